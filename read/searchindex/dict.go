package searchindex

import (
	"strings"
	"sync"
	"sync/atomic"
)

// The dictionaries of the values few distinct strings take in a req record (function ids,
// country names, source types) and of its board lists: a record holds their small ids, and its
// methods read the strings back. They are the process's, shared by every build (a record carried
// from one snapshot into the next keeps its ids without a translation) and only grow: each holds
// the distinct values the ledger ever gave (vocabularies of a few hundred words, and board lists
// of a few dozen boards), never one entry a req. Lookups by id take no lock.

// vocab is a dictionary of short strings with uint16 ids; id 0 is "".
type vocab struct {
	mu   sync.Mutex
	ids  map[string]uint16
	vals atomic.Pointer[[]string]
}

func newVocab() *vocab {
	v := &vocab{ids: map[string]uint16{"": 0}}
	vals := []string{""}
	v.vals.Store(&vals)
	return v
}

// id is s's id, added when new.
func (v *vocab) id(s string) uint16 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if id, ok := v.ids[s]; ok {
		return id
	}
	vals := *v.vals.Load()
	if len(vals) > 1<<16-1 {
		panic("searchindex: more than 65,535 distinct functions, countries and source types")
	}
	s = strings.Clone(s)
	id := uint16(len(vals))
	vals = append(vals, s) // readers of the old slice never read past its length
	v.vals.Store(&vals)
	v.ids[s] = id
	return id
}

// lookup is s's id, false when the dictionary never held s.
func (v *vocab) lookup(s string) (uint16, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	id, ok := v.ids[s]
	return id, ok
}

// str is the string of id.
func (v *vocab) str(id uint16) string { return (*v.vals.Load())[id] }

// size is the number of ids (the largest plus one).
func (v *vocab) size() int { return len(*v.vals.Load()) }

// boardList is one distinct pair of board lists of a req: every board the ledger listed it on,
// empty names kept (analytics.LedgerReq.AnyBoards: the index's), the boards committed sightings
// name (analytics.Req.Boards: the read model's), and the ids of the distinct names of the first
// (boardDict.names).
type boardList struct {
	names   []string
	sighted []string
	ids     []uint32
}

// boardDict is the dictionary of board names and board lists; list id 0 is two empty lists.
type boardDict struct {
	mu     sync.Mutex
	lists  map[string]uint32 // joined names → list id
	nameID map[string]uint32 // board name → board id
	all    atomic.Pointer[[]boardList]
	names  atomic.Pointer[[]string] // board id → name
	key    []byte
}

func newBoardDict() *boardDict {
	d := &boardDict{lists: map[string]uint32{"\x01": 0}, nameID: map[string]uint32{}}
	all := []boardList{{names: []string{}, sighted: []string{}}}
	d.all.Store(&all)
	names := []string{}
	d.names.Store(&names)
	return d
}

// id is the list id of (any, sighted), added when new.
func (d *boardDict) id(any, sighted []string) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.key = d.key[:0]
	for _, b := range any {
		d.key = append(d.key, b...)
		d.key = append(d.key, 0)
	}
	d.key = append(d.key, 1)
	for _, b := range sighted {
		d.key = append(d.key, b...)
		d.key = append(d.key, 0)
	}
	if id, ok := d.lists[string(d.key)]; ok { // no allocation for the lookup
		return id
	}
	names := *d.names.Load()
	name := func(b string) uint32 {
		id, ok := d.nameID[b]
		if !ok {
			b = strings.Clone(b)
			id = uint32(len(names))
			names = append(names, b)
			d.nameID[b] = id
		}
		return id
	}
	l := boardList{names: make([]string, len(any)), sighted: make([]string, len(sighted))} // empty, never nil
	for i, b := range any {
		id := name(b)
		l.names[i] = names[id]
		if !containsID(l.ids, id) {
			l.ids = append(l.ids, id)
		}
	}
	for i, b := range sighted {
		l.sighted[i] = names[name(b)]
	}
	d.names.Store(&names)
	all := *d.all.Load()
	id := uint32(len(all))
	all = append(all, l)
	d.all.Store(&all)
	d.lists[string(d.key)] = id
	return id
}

// list is the list of id.
func (d *boardDict) list(id uint32) *boardList { return &(*d.all.Load())[id] }

// boardNames is every board name the dictionary holds, by board id.
func (d *boardDict) boardNames() []string { return *d.names.Load() }

var (
	values = newVocab()     // function ids, country names, source types
	boards = newBoardDict() // board names and board lists
)

func containsID(ids []uint32, id uint32) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

// attrsDict is the dictionary of reqAttrs (location, latest board, latest event type), with
// uint32 ids; id 0 is all three empty.
type attrsDict struct {
	mu  sync.Mutex
	ids map[reqAttrs]uint32
	all atomic.Pointer[[]reqAttrs]
}

func newAttrsDict() *attrsDict {
	d := &attrsDict{ids: map[reqAttrs]uint32{{}: 0}}
	all := []reqAttrs{{}}
	d.all.Store(&all)
	return d
}

func (d *attrsDict) id(location, board, eventType string) uint32 {
	k := reqAttrs{location: location, board: board, eventType: eventType}
	d.mu.Lock()
	defer d.mu.Unlock()
	if id, ok := d.ids[k]; ok {
		return id
	}
	k = reqAttrs{location: strings.Clone(location), board: strings.Clone(board), eventType: strings.Clone(eventType)}
	all := *d.all.Load()
	id := uint32(len(all))
	all = append(all, k)
	d.all.Store(&all)
	d.ids[k] = id
	return id
}

func (d *attrsDict) get(id uint32) *reqAttrs { return &(*d.all.Load())[id] }

var attrsOf = newAttrsDict()
