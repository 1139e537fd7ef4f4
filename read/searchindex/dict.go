package searchindex

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Dictionaries hold the values few distinct strings take in req records, each record naming them
// by small ids: the (function, country, source type) of a req, its board lists, and its location,
// latest board and latest event type. They belong to one lineage of indexes, not to the process:
// a Builder without Over makes new ones (a full build starts a lineage), Over hands prev's to the
// Builder (an applied commit's records, and those it carries from prev, name their values in the
// same dictionaries), and they go with the lineage's last index and record (a full rebuild starts
// fresh ones; package snapshot says when). Within a lineage they only grow, by the distinct values
// its builds met: vocabularies of a few hundred words, board lists of a few thousand, and the
// (location, board, event type) triples, whose locations are the crawl's free text
// (Index.DictionaryEntries counts them).
//
// A record reaches its dictionaries through its Title (made by a build of the same lineage), so
// its methods need no index and a record costs no pointer more. Lookups by id take no lock;
// additions take one, so builds over the same index may run at once.
//
// The read model of the same lineage (package readmodel, whose builds package snapshot hands the
// index builder's Dictionaries) names its companies' few-valued strings here too: the values of
// a company's directory row and its coverage (CompanyValuesID), the function sets its censored
// functions take (FunctionSetID) and the words of its board sightings and first hires (WordID).
// Those grow the same way: a few thousand directory values, and the distinct sets of censored
// functions (about 16,000 at a million reqs, half of the entries there).
type Dictionaries struct {
	values *table[string, string]      // function ids and country names (byFunction, byCountry)
	sets   *table[[3]string, valueSet] // (function, country, source type) of a req
	attrs  *table[reqAttrs, reqAttrs]  // location, latest board, latest event type of a req
	boards *boardDict                  // board names and board lists

	companies    *table[CompanyValues, CompanyValues] // the read model's companies' directory values
	functionSets *table[string, map[string]bool]      // sorted function ids, joined → the one set of them
	words        *table[string, string]               // the read model's directory values, board names, source types, functions
}

// NewDictionaries returns empty dictionaries, for a new lineage.
func NewDictionaries() *Dictionaries {
	return &Dictionaries{
		values: newTable[string, string]("", ""),
		sets:   newTable[[3]string, valueSet]([3]string{}, valueSet{}),
		attrs:  newTable[reqAttrs, reqAttrs](reqAttrs{}, reqAttrs{}),
		boards: newBoardDict(),

		companies:    newTable[CompanyValues, CompanyValues](CompanyValues{}, CompanyValues{}),
		functionSets: newTable[string, map[string]bool]("", nil),
		words:        newTable[string, string]("", ""),
	}
}

// Entries is the number of entries the dictionaries hold.
func (d *Dictionaries) Entries() int {
	return d.values.size() + d.sets.size() + d.attrs.size() + d.boards.size() +
		d.companies.size() + d.functionSets.size() + d.words.size()
}

// CompanyValues are the values of a company's directory row that few distinct values take, and
// its coverage: what the read model's companies name by one id (CompanyValuesID) instead of seven
// strings.
type CompanyValues struct {
	HQCountry, Region, Industry, HeadcountBand, AgencyKind, ATSVendor, Coverage string
}

// CompanyValuesID is v's id, added when new (its strings copied: they may be a row's buffers).
// The zero CompanyValues is id 0.
func (d *Dictionaries) CompanyValuesID(v CompanyValues) uint32 {
	return d.companies.id(v, func() CompanyValues {
		return CompanyValues{HQCountry: d.words.get32(d.wordID(v.HQCountry)), Region: d.words.get32(d.wordID(v.Region)),
			Industry: d.words.get32(d.wordID(v.Industry)), HeadcountBand: d.words.get32(d.wordID(v.HeadcountBand)),
			AgencyKind: d.words.get32(d.wordID(v.AgencyKind)), ATSVendor: d.words.get32(d.wordID(v.ATSVendor)),
			Coverage: d.words.get32(d.wordID(v.Coverage))}
	})
}

// CompanyValues is the value of id (CompanyValuesID); read only.
func (d *Dictionaries) CompanyValues(id uint32) *CompanyValues { return d.companies.at(id) }

// FunctionSetID is the id of the set of function ids set (0: none), added when new: companies
// with the same censored functions share one set. set is kept when new and must not be modified
// after.
func (d *Dictionaries) FunctionSetID(set map[string]bool) uint32 {
	if len(set) == 0 {
		return 0
	}
	key := strings.Join(slices.Sorted(maps.Keys(set)), "\x00")
	return d.functionSets.id(key, func() map[string]bool { return set })
}

// FunctionSet is the set of id (FunctionSetID; nil for 0); read only.
func (d *Dictionaries) FunctionSet(id uint32) map[string]bool { return *d.functionSets.at(id) }

// WordID is the id of s among the read model's words (board names, source types, function ids),
// added when new ("" is 0).
func (d *Dictionaries) WordID(s string) uint32 { return d.wordID(s) }

// Word is the word of id (WordID).
func (d *Dictionaries) Word(id uint32) string { return *d.words.at(id) }

func (d *Dictionaries) wordID(s string) uint32 {
	return d.words.id(s, func() string { return strings.Clone(s) })
}

// valueSet is one distinct (function, country, source type) of a req, with the ids (in values)
// of its function and country that the index's lists per function and country go by.
type valueSet struct {
	function, country, source string
	functionID, countryID     uint16
}

// set is the id of (function, country, source), added when new.
func (d *Dictionaries) set(function, country, source string) uint16 {
	id := d.sets.id([3]string{function, country, source}, func() valueSet {
		return valueSet{function: d.values.get(d.value(function)), country: d.values.get(d.value(country)),
			source: strings.Clone(source), functionID: d.value(function), countryID: d.value(country)}
	})
	if id > 1<<16-1 {
		panic("searchindex: more than 65,535 distinct (function, country, source type) of reqs")
	}
	return uint16(id)
}

// value is s's id in values, added when new.
func (d *Dictionaries) value(s string) uint16 {
	id := d.values.id(s, func() string { return strings.Clone(s) })
	if id > 1<<16-1 {
		panic("searchindex: more than 65,535 distinct functions and countries")
	}
	return uint16(id)
}

func (d *Dictionaries) attrsID(location, board, eventType string) uint32 {
	return d.attrs.id(reqAttrs{location: location, board: board, eventType: eventType}, func() reqAttrs {
		return reqAttrs{location: strings.Clone(location), board: strings.Clone(board), eventType: strings.Clone(eventType)}
	})
}

// table is a dictionary of values by key with uint32 ids; id 0 is the zero key's.
type table[K comparable, V any] struct {
	mu  sync.Mutex
	ids map[K]uint32
	all atomic.Pointer[[]V]
}

func newTable[K comparable, V any](zeroKey K, zero V) *table[K, V] {
	t := &table[K, V]{ids: map[K]uint32{zeroKey: 0}}
	all := []V{zero}
	t.all.Store(&all)
	return t
}

// id is k's id; when k is new, newValue's value is added under it (newValue copies what it keeps of k:
// the key's strings may be a row's buffers).
func (t *table[K, V]) id(k K, newValue func() V) uint32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids[k]; ok {
		return id
	}
	v := newValue()
	all := *t.all.Load()
	id := uint32(len(all))
	all = append(all, v) // readers of the old slice never read past its length
	t.all.Store(&all)
	t.ids[k] = id
	return id
}

// lookup is k's id, false when the table never held k.
func (t *table[K, V]) lookup(k K) (uint32, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.ids[k]
	return id, ok
}

// get is the value of id.
func (t *table[K, V]) get(id uint16) V { return (*t.all.Load())[id] }

// get32 is the value of id.
func (t *table[K, V]) get32(id uint32) V { return (*t.all.Load())[id] }

// at is the value of id.
func (t *table[K, V]) at(id uint32) *V { return &(*t.all.Load())[id] }

// size is the number of ids (the largest plus one).
func (t *table[K, V]) size() int { return len(*t.all.Load()) }

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

// size is the number of board lists and board names.
func (d *boardDict) size() int { return len(*d.all.Load()) + len(*d.names.Load()) }

func containsID(ids []uint32, id uint32) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}
