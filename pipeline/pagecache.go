package pipeline

import (
	"container/list"
	"sync"
)

// pageCache remembers, per page URL, its validators (ETag, Last-Modified, body hash), its
// next-page URL and the reqs it carried, so a 304 Not Modified, or a 200 whose body hashes as
// before, replays the page's sightings without keeping its postings: two short strings per
// posting instead of the parsed page. Every page read in full is kept, with validators or not
// (the hash serves hosts that send none). It holds about maxBytes (see cachedPage.size).
//
// A crawl reads every page once per cycle in about the same order, the access pattern that
// defeats plain LRU: with more pages than fit, each page is evicted just before it is read again
// and no 304 is ever replayed. So the cache is scan-resistant: a page read in this cycle or the
// one before (stamped with the cycle's tick) is never evicted for another page; only pages not
// read for two cycles (a source that went away) make room, least recently used first. When
// nothing may go, the new page is not kept (counted as refused): a full cache keeps the same
// pages from cycle to cycle and replays as many 304s as it has room for. A page not kept is
// fetched in full next time, without If-None-Match or If-Modified-Since.
type pageCache struct {
	mu        sync.Mutex
	maxBytes  int64
	bytes     int64
	pages     map[string]*list.Element // url → element of lru holding a *cacheEntry
	lru       *list.List               // front: most recently used
	tick      uint32                   // the latest cycle's tick (advance)
	evictions uint64
	refused   uint64
}

type cacheEntry struct {
	url  string
	page *cachedPage
	size int64
	tick uint32 // of the cycle that last read it
}

type cachedPage struct {
	validators
	next string
	obs  []cachedObs
}

// cachedObs is one posting of an unchanged page: the req it resolved to and its id in the source.
type cachedObs struct {
	reqKey   string
	sourceID string
}

// Approximate bytes of bookkeeping per page (map entry, list element, entry, page) and per
// posting (string headers, allocation rounding), on top of the strings' bytes.
const (
	cachePageOverhead = 256
	cacheObsOverhead  = 48
)

// size is about the memory a cached page takes under url.
func (p *cachedPage) size(url string) int64 {
	n := int64(cachePageOverhead + len(url) + len(p.etag) + len(p.lastModified) + len(p.hash) + len(p.next))
	for _, o := range p.obs {
		n += int64(cacheObsOverhead + len(o.reqKey) + len(o.sourceID))
	}
	return n
}

func newPageCache(maxBytes int64) *pageCache {
	return &pageCache{maxBytes: maxBytes, pages: map[string]*list.Element{}, lru: list.New()}
}

// reset forgets every page (the crawler's state was reloaded from the ledger: a page replayed
// as unchanged must carry only reqs the state knows, and the pages read by the pass that found
// its state stale carried reqs the reloaded state may not). Counters stay.
func (c *pageCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pages, c.bytes = map[string]*list.Element{}, 0
	c.lru.Init()
}

// advance starts the cycle of tick (a cycle of an older tick, or an on-demand crawl at the same
// one, leaves it as it is).
func (c *pageCache) advance(tick uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick = max(c.tick, tick)
}

// get returns what is kept for url (nil when nothing is) and marks it read in this cycle.
func (c *pageCache) get(url string) *cachedPage {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.pages[url]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*cacheEntry)
	e.tick = c.tick
	return e.page
}

// put keeps p for url when there is room, or room can be made by evicting pages not read in
// this cycle or the one before, and returns how many it evicted and whether p was kept. What was
// kept for url before is dropped either way (it is stale).
func (c *pageCache) put(url string, p *cachedPage) (evicted int, kept bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.pages[url]; ok {
		c.remove(el)
	}
	size := p.size(url)
	for c.bytes+size > c.maxBytes {
		back := c.lru.Back()
		if back == nil || back.Value.(*cacheEntry).tick+1 >= c.tick {
			c.refused++
			c.evictions += uint64(evicted)
			return evicted, false
		}
		c.remove(back)
		evicted++
	}
	c.pages[url] = c.lru.PushFront(&cacheEntry{url: url, page: p, size: size, tick: c.tick})
	c.bytes += size
	c.evictions += uint64(evicted)
	return evicted, true
}

func (c *pageCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.pages, e.url)
	c.bytes -= e.size
}

// stats reports the pages and approximate bytes kept, and the evictions and refusals so far.
func (c *pageCache) stats() (pages int, bytes int64, evictions, refused uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pages), c.bytes, c.evictions, c.refused
}

// obsFromEvent rebuilds a sighting of a req on an unchanged page from its ledger state.
func obsFromEvent(e *Event, src *Source, sourceID string) observation {
	o := observation{
		companyID: e.CompanyID, reqKey: e.ReqKey, titleKey: e.TitleKey, rawTitle: e.RawTitle, title: e.Title,
		function: e.Function, country: e.Country, location: e.Location, sourceKey: src.Key, sourceID: sourceID,
		board: src.BoardName(), sourceType: src.SourceType(), url: e.URL, reqID: e.RequisitionID,
	}
	f := e.Facts // the page is unchanged: so are its postings' facts
	o.facts = &f
	if e.SalMin != nil && e.SalMax != nil {
		o.salary, o.salLo, o.salHi = true, *e.SalMin, *e.SalMax
	}
	return o
}
