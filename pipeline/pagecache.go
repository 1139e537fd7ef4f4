package pipeline

import (
	"container/list"
	"sync"
)

// pageCache remembers, per page URL, its ETag, its next-page URL and the reqs it carried, so a
// 304 Not Modified replays the page's sightings without keeping its postings: two short strings
// per posting instead of the parsed page. It holds about maxBytes (see cachedPage.size) and
// evicts the least recently used pages beyond that; an evicted page is fetched in full next
// time, without If-None-Match.
type pageCache struct {
	mu        sync.Mutex
	maxBytes  int64
	bytes     int64
	pages     map[string]*list.Element // url → element of lru holding a *cacheEntry
	lru       *list.List               // front: most recently used
	evictions uint64
}

type cacheEntry struct {
	url  string
	page *cachedPage
	size int64
}

type cachedPage struct {
	etag string
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
	n := int64(cachePageOverhead + len(url) + len(p.etag) + len(p.next))
	for _, o := range p.obs {
		n += int64(cacheObsOverhead + len(o.reqKey) + len(o.sourceID))
	}
	return n
}

func newPageCache(maxBytes int64) *pageCache {
	return &pageCache{maxBytes: maxBytes, pages: map[string]*list.Element{}, lru: list.New()}
}

// get returns what is kept for url (nil when nothing is) and marks it recently used.
func (c *pageCache) get(url string) *cachedPage {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.pages[url]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry).page
}

// put keeps p for url, evicting the least recently used pages while the cache is over its
// bound, and returns how many it evicted. A page larger than the whole bound is not kept (and
// what was kept for its URL is dropped: it is stale).
func (c *pageCache) put(url string, p *cachedPage) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.pages[url]; ok {
		c.remove(el)
	}
	size := p.size(url)
	if size > c.maxBytes {
		return 0
	}
	c.pages[url] = c.lru.PushFront(&cacheEntry{url: url, page: p, size: size})
	c.bytes += size
	evicted := 0
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
		evicted++
	}
	c.evictions += uint64(evicted)
	return evicted
}

func (c *pageCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.pages, e.url)
	c.bytes -= e.size
}

// stats reports the pages and approximate bytes kept, and the evictions so far.
func (c *pageCache) stats() (pages int, bytes int64, evictions uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pages), c.bytes, c.evictions
}

// obsFromEvent rebuilds a sighting of a req on an unchanged page from its ledger state.
func obsFromEvent(e *Event, src *Source, sourceID string) observation {
	o := observation{
		companyID: e.CompanyID, reqKey: e.ReqKey, titleKey: e.TitleKey, rawTitle: e.RawTitle, title: e.Title,
		function: e.Function, country: e.Country, location: e.Location, sourceKey: src.Key, sourceID: sourceID,
		board: src.BoardName(), sourceType: src.SourceType(), url: e.URL, reqID: e.RequisitionID,
	}
	if e.SalMin != nil && e.SalMax != nil {
		o.salary, o.salLo, o.salHi = true, *e.SalMin, *e.SalMax
	}
	return o
}
