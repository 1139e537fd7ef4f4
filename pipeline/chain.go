package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/planehq/hiringsignal/pipeline/ats"
)

// A source's pages form a chain: each page names the next (NextURL). Where the adapter's pages
// are numbered (ats.Numbered: ?page=N, an offset) and the chain has stepped the same twice, the
// reader asks the next pages ahead of the page linking them, up to FetchConfig.ChainDepth pages
// at once (fewer at a chain's start: as many ahead as it has read past its first page), each on
// a fetch slot no source is using (Fetcher.takeSpare) and through its host's gate like any
// request (its slots, its rate or shared turns, robots.txt): the host's budget bounds a chain
// read ahead as it bounds one read page after page, so what it gains is the latency of the pages
// it overlaps. A page read ahead is taken only when the page before it, once read, links exactly
// its URL; a guess its chain disproves is dropped with every guess after it, and the rest of the
// chain is read one page after another. So the pages taken, and the postings, are the ones a read
// page after page takes; a page that fails fails the source as it would then (its reqs unknown,
// never closed). A cursor-chained feed (the aggregator) and a job-page board (each page links the
// next job's page by its id) are read page after page.

// pageRead is one page of a chain as fetched: the outcome, the page kept for its URL when it was
// asked (whose validators were sent), and the failure, with the source deadline as its cause
// when that is what ended it.
type pageRead struct {
	res fetched
	cp  *cachedPage
	err error
}

// readPage fetches page n of a source's chain at url, under the source's deadline for its nth
// page (Fetcher.sourceDeadline from start).
func (c *Crawler) readPage(ctx context.Context, ad ats.Adapter, url string, scope []string, start time.Time, n int) pageRead {
	var prev validators
	cp := c.pages.get(url)
	if cp != nil {
		prev = cp.validators
	}
	sctx, cancel := context.WithDeadlineCause(ctx, c.fetch.sourceDeadline(start, n), errSourceDeadline)
	res, err := c.fetch.fetchPage(sctx, ad, url, prev, scope)
	cause := context.Cause(sctx)
	cancel()
	if err != nil && cause != nil {
		err = fmt.Errorf("%w: %w", cause, err)
	}
	return pageRead{res: res, cp: cp, err: err}
}

// readAhead is the pages of one source's chain asked ahead (by their index in the chain).
// One goroutine, the source's reader, calls its methods.
type readAhead struct {
	c     *Crawler
	ctx   context.Context
	ad    ats.Adapter
	scope []string
	start time.Time
	first int // the read's first page: a page's deadline counts the pages from it
	end   int // the page the read stops before: nothing is asked at or past it
	depth int
	pages map[int]*aheadPage
	wrong bool // a guess was disproved: the rest of the chain is read page after page
	wg    sync.WaitGroup
}

type aheadPage struct {
	url    string
	cancel context.CancelFunc
	done   chan struct{}
	read   pageRead
}

// newReadAhead is the read-ahead of a source read with ad from page first up to (not including)
// page end (the cap, or where a read in parts stops), nil when its pages are not numbered or
// ChainDepth is 1 (every method is a no-op on nil).
func (c *Crawler) newReadAhead(ctx context.Context, ad ats.Adapter, scope []string, start time.Time, first, end int) *readAhead {
	if c.fetch.cfg.ChainDepth <= 1 || !ats.PagesNumbered(ad) {
		return nil
	}
	return &readAhead{c: c, ctx: ctx, ad: ad, scope: scope, start: start, first: first, end: end, depth: c.fetch.cfg.ChainDepth,
		pages: map[int]*aheadPage{}}
}

// plan asks ahead the pages after page n (at url), while fetch slots are spare, when pages n-2
// (before) and n-1 (prev) and n step by the same number: pages n+1 to n+k, those not asked yet,
// each on url's origin (allowed) and under the cap, where k grows with the chain read so far (n-1,
// at most depth-1), so a short chain asks few pages past its end; never at or past the page the
// read stops before (the cap, or the end of a part of a chain read in parts).
func (a *readAhead) plan(before, prev, url string, n int, allowed func(string) bool) {
	if a == nil || a.wrong || before == "" || ats.PageAhead(before, prev, 1) != url {
		return
	}
	for j := 1; j < a.depth && j < n && n+j < a.end; j++ {
		if _, ok := a.pages[n+j]; ok {
			continue
		}
		u := ats.PageAhead(prev, url, j)
		if u == "" || !allowed(u) || !a.c.fetch.takeSpare() {
			return
		}
		ctx, cancel := context.WithCancel(a.ctx)
		p := &aheadPage{url: u, cancel: cancel, done: make(chan struct{})}
		a.pages[n+j] = p
		a.wg.Add(1)
		go func(idx int) {
			defer a.wg.Done()
			defer a.c.fetch.releaseSpare()
			defer close(p.done)
			p.read = a.c.readPage(ctx, a.ad, u, a.scope, a.start, idx-a.first)
		}(n + j)
	}
}

// take is page n at url when it was asked ahead (ok), waiting for it if it is still coming. A
// page asked ahead at another URL disproves the guess: it and every page asked after it are
// dropped, and no more is asked.
func (a *readAhead) take(n int, url string) (pageRead, bool) {
	if a == nil {
		return pageRead{}, false
	}
	p := a.pages[n]
	if p == nil {
		return pageRead{}, false
	}
	delete(a.pages, n)
	if p.url != url {
		a.wrong = true
		p.cancel()
		a.c.fetch.aheadWasted.Add(1)
		a.drop()
		return pageRead{}, false
	}
	<-p.done
	p.cancel()
	a.c.fetch.aheadUsed.Add(1)
	return p.read, true
}

// drop cancels every page asked ahead and not taken.
func (a *readAhead) drop() {
	for n, p := range a.pages {
		p.cancel()
		a.c.fetch.aheadWasted.Add(1)
		delete(a.pages, n)
	}
}

// stop drops what is left (the chain ended, or failed) and waits for the requests under way.
func (a *readAhead) stop() {
	if a == nil {
		return
	}
	a.drop()
	a.wg.Wait()
}
