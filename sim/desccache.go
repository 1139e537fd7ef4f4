package sim

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// The description cache.
//
// A req's description, its facts and its truth depend on the req alone (its company, slot and
// generation), never on the tick, yet every feed, board, aggregator page and truth that carries
// the req asks for them again at every tick. The World keeps them per req, within a bound in
// bytes (Config.DescriptionCache): what a feed writes of the description (a descFlavor: the
// bytes of its fields, escaped as it escapes them) and the truth, each once it is asked for a
// second time (a word per slot remembers the first), so a world rendered once (the
// 100,000-company benchmarks) copies nothing it will not read again, while a world crawled tick
// after tick (the tests) writes each of its descriptions a couple of times in its life. What the
// cache returns is what would have been written: the bodies are byte for byte those of a world
// without it (TestBodiesMatchGolden).
//
// Entries are found by slot (an index over every company's slots, made with the World), so a
// read takes no lock and hashes nothing; a slot's next generation replaces its entry. Entries
// leave in the order they came when the bytes they hold outgrow the bound. A world whose
// descriptions do not fit (the 2,000-company dev world, read every tick) would have each entry
// leave before it is read again; an entry leaving unread lowers the share of reqs the cache
// takes in (by a hash of the req: always the same ones), and room raises it, so the cache holds
// what fits of the world rather than copying every description to drop it.

// DefaultDescriptionCache is Config.DescriptionCache's default: 64 MiB.
const DefaultDescriptionCache = 64 << 20

// descFlavor is the bytes one feed writes of a description, from its first description field
// to its last (the feed's own fields between them included).
type descFlavor uint8

const (
	flGreenhouse descFlavor = iota // content, entity-escaped, without its quotes
	flLeverTail                    // additionalPlain's value to additional's
	flLeverIntro                   // descriptionPlain's value to description's
	flLeverLists                   // the entries of lists
	flAshby                        // descriptionHtml's value to descriptionPlain's
	flWorkable                     // ,"description" to benefits' value
	flRecruitee                    // ,"description" to requirements' value
	flPersonio                     // the jobDescription elements
	flTeamtailor                   // the description, XML-escaped
	flPinpoint                     // description's value to benefits_header's
	flICIMS                        // the card's opening, XML-escaped
	flHTMLJSON                     // the HTML in a JSON string (the aggregator)
	flHTMLJSONH                    // the HTML in an HTML-safe JSON string (JSON-LD, job pages)
	numFlavors
)

// descFlavors write each flavor from a written description.
var descFlavors = [numFlavors]func(d *descDoc, b []byte) []byte{
	flGreenhouse: greenhouseContent,
	flLeverTail:  leverTail,
	flLeverIntro: leverIntro,
	flLeverLists: leverLists,
	flAshby:      ashbyDescription,
	flWorkable:   workableDetails,
	flRecruitee:  recruiteeDescription,
	flPersonio:   personioDescriptions,
	flTeamtailor: func(d *descDoc, b []byte) []byte { return d.appendHTMLXML(b, allParts, 0) },
	flPinpoint:   pinpointSections,
	flICIMS:      icimsOpeningText,
	flHTMLJSON:   func(d *descDoc, b []byte) []byte { return d.appendHTMLJSON(b, allParts, 0) },
	flHTMLJSONH:  func(d *descDoc, b []byte) []byte { return d.appendHTMLJSONH(b, allParts, 0) },
}

// descEntry is what the cache keeps of one req. Its facts and generation never change; a
// flavor or truth, once set, neither.
type descEntry struct {
	k     int64 // generation
	slot  int32 // index into descCache.slots
	facts descFacts
	frags [numFlavors]atomic.Pointer[[]byte]
	truth [2]atomic.Pointer[DescriptionTruth] // of the req, of its second country's req
	read  atomic.Bool                         // read from the cache
	size  int64                               // bytes accounted for it (descCache.mu)
	gone  bool                                // evicted (descCache.mu)
}

// hit notes that e was read from the cache.
func (e *descEntry) hit() {
	if !e.read.Load() {
		e.read.Store(true)
	}
}

// entryBytes is what an entry costs before what it keeps.
const entryBytes = int64(unsafe.Sizeof(descEntry{}))

// Bits of a slot's seen word: one per flavor, then the req's truth and its second country's.
const (
	seenTruth     = numFlavors
	seenBits      = 16
	seenFlavorMax = seenTruth + 2
)

var _ [seenBits - seenFlavorMax]struct{} // the bits fit in the word's low half

// descCache is the World's description cache; nil when Config.DescriptionCache is negative.
type descCache struct {
	bound int64
	// slots holds each slot's entry (nil: none); seen each slot's word: the flavors written once
	// (low bits) for the generation tagged in the high bits.
	slots []atomic.Pointer[descEntry]
	seen  []atomic.Uint32
	// admit is the share of reqs kept, of admitAll: those whose hash is below it.
	admit atomic.Uint32

	mu    sync.Mutex
	queue []*descEntry // entries in the order they came (from head)
	head  int
	total int64 // bytes of the queued entries
}

// The share of reqs the cache takes in: all at first, never below 1/1024.
const (
	admitAll   = 1 << 16
	admitFloor = admitAll >> 10
)

func newDescCache(bound, slots int) *descCache {
	if bound < 0 {
		return nil
	}
	dc := &descCache{bound: int64(bound), slots: make([]atomic.Pointer[descEntry], slots), seen: make([]atomic.Uint32, slots)}
	dc.admit.Store(admitAll)
	return dc
}

// lookup returns slot's entry for generation k, or nil.
func (dc *descCache) lookup(slot int, k int64) *descEntry {
	if dc == nil {
		return nil
	}
	if e := dc.slots[slot].Load(); e != nil && e.k == k {
		return e
	}
	return nil
}

// keepNow marks what bit names (a flavor or truth) written for slot's generation k and
// reports whether to keep it: the cache takes the req in, and it was written before.
func (dc *descCache) keepNow(slot int, k int64, bit uint) bool {
	h := mix64(uint64(slot)<<32 ^ uint64(k))
	if uint32(h>>48) >= dc.admit.Load() {
		return false
	}
	tag := uint32(h>>32)&0xffff | 1
	w := &dc.seen[slot]
	for {
		old := w.Load()
		nw := tag<<seenBits | 1<<bit
		if old>>seenBits == tag {
			if old&(1<<bit) != 0 {
				return true
			}
			nw |= old
		}
		if w.CompareAndSwap(old, nw) {
			return false
		}
	}
}

// entry returns slot's entry for generation k, made with facts f when there is none.
func (dc *descCache) entry(slot int, k int64, f *descFacts) *descEntry {
	if e := dc.lookup(slot, k); e != nil {
		return e
	}
	e := &descEntry{k: k, slot: int32(slot), facts: *f, size: entryBytes}
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if x := dc.lookup(slot, k); x != nil {
		return x
	}
	dc.slots[slot].Store(e)
	dc.queue = append(dc.queue, e)
	dc.total += e.size
	if dc.total < dc.bound/2 {
		// Room: take in more of the world.
		dc.admit.Store(min(admitAll, dc.admit.Load()*9/8+16))
	}
	dc.evict()
	return e
}

// keep accounts n bytes more kept in e.
func (dc *descCache) keep(e *descEntry, n int64) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if e.gone {
		return
	}
	e.size += n
	dc.total += n
	dc.evict()
}

// evict drops the oldest entries while the cache holds more than its bound (mu held).
func (dc *descCache) evict() {
	for dc.total > dc.bound && dc.head < len(dc.queue) {
		e := dc.queue[dc.head]
		dc.queue[dc.head] = nil
		dc.head++
		e.gone = true
		dc.total -= e.size
		dc.slots[e.slot].CompareAndSwap(e, nil)
		if !e.read.Load() {
			// It leaves unread: the cache takes in more than it holds.
			dc.admit.Store(max(admitFloor, dc.admit.Load()*7/8))
		}
	}
	if dc.head > 1024 && dc.head*2 > len(dc.queue) {
		n := copy(dc.queue, dc.queue[dc.head:])
		clear(dc.queue[n:])
		dc.queue, dc.head = dc.queue[:n], 0
	}
}

// slotOf is the index of c's slot s among every company's slots (the demo companies' after the
// world's).
func (w *World) slotOf(c *company, s int) int { return int(w.slotBase[c.idx]) + s }

// descRef is one req's description while a feed writes it: its entry when the cache has one, its
// facts, and the description written once for the flavors the cache does not hold.
type descRef struct {
	w    *World
	c    *company
	g    *gen
	slot int
	e    *descEntry
	own  descFacts // the facts when there is no entry
	d    *descDoc
}

// descOf returns g's description for a feed to write (release it after use).
func (w *World) descOf(c *company, g *gen) descRef {
	r := descRef{w: w, c: c, g: g, slot: w.slotOf(c, g.slot)}
	if r.e = w.dcache.lookup(r.slot, g.k); r.e == nil {
		r.own = w.facts(c, g)
	}
	return r
}

// facts returns what the description states.
func (r *descRef) facts() *descFacts {
	if r.e != nil {
		return &r.e.facts
	}
	return &r.own
}

// append appends flavor f of the description.
func (r *descRef) append(b []byte, f descFlavor) []byte {
	if r.e != nil {
		if p := r.e.frags[f].Load(); p != nil {
			r.e.hit()
			return append(b, *p...)
		}
	}
	if r.d == nil {
		r.d = r.w.writeDoc(r.c, r.g, r.facts())
	}
	start := len(b)
	b = descFlavors[f](r.d, b)
	if dc := r.w.dcache; dc != nil && dc.keepNow(r.slot, r.g.k, uint(f)) {
		if r.e == nil {
			r.e = dc.entry(r.slot, r.g.k, &r.own)
		}
		frag := append([]byte(nil), b[start:]...)
		if r.e.frags[f].CompareAndSwap(nil, &frag) {
			dc.keep(r.e, int64(cap(frag)))
		}
	}
	return b
}

// release returns the written description, if any, to the pool.
func (r *descRef) release() {
	if r.d != nil {
		r.w.release(r.d)
		r.d = nil
	}
}
