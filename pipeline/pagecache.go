package pipeline

import "sync"

// pageCache remembers, per page URL, its ETag, its next-page URL and the reqs it carried, so a
// 304 Not Modified replays the page's sightings without keeping its postings: two short strings
// per posting instead of the parsed page.
type pageCache struct {
	mu    sync.Mutex
	pages map[string]*cachedPage
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

func newPageCache() *pageCache { return &pageCache{pages: map[string]*cachedPage{}} }

func (c *pageCache) get(url string) *cachedPage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages[url]
}

func (c *pageCache) put(url string, p *cachedPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pages[url] = p
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
