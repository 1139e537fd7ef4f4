package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/pipeline/ats"
)

// htmlPage is an empty jsonld page (no postings) linking to next when it is not "".
func htmlPage(next string) string {
	link := ""
	if next != "" {
		link = `<link rel="next" href="` + next + `">`
	}
	return "<html><head>" + link + "</head><body></body></html>"
}

// collectSources runs one collect pass over srcs (all in region "eu") on a crawler with a fresh
// ledger state (no ClickHouse needed: nothing is replayed from the ledger on a first pass).
func collectSources(t *testing.T, ctx context.Context, c *Crawler, srcs ...Source) (map[string]sourceStatus, *CycleStats) {
	t.Helper()
	st := &CycleStats{Region: "eu", ByType: map[string]int{}}
	ptrs := make([]*Source, len(srcs))
	for i := range srcs {
		srcs[i].Region = "eu"
		ptrs[i] = &srcs[i]
	}
	_, status, err := c.collect(ctx, ptrs, newResolver(nil), map[string]*CycleStats{"eu": st})
	require.NoError(t, err)
	return status, st
}

// quietCrawler is a crawler for servers on loopback (AllowPrivate) that logs nothing.
func quietCrawler(t testing.TB, cfg Config) *Crawler {
	t.Helper()
	cfg.Log = slog.New(slog.DiscardHandler)
	cfg.Fetch.AllowPrivate = true
	c, err := newCrawler(nil, newState(), cfg)
	require.NoError(t, err)
	return c
}

func TestNextLinkOffSourceHostIsRefused(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1) // stands in for a private address or the local ClickHouse HTTP port
		w.Write([]byte(htmlPage("")))
	}))
	defer other.Close()
	var src *httptest.Server
	src = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hostile":
			w.Write([]byte(htmlPage(other.URL + "/?query=SELECT+1")))
		case "/protocol-relative":
			w.Write([]byte(htmlPage("//" + strings.TrimPrefix(other.URL, "http://") + "/")))
		case "/good":
			w.Write([]byte(htmlPage("/good2"))) // relative: same host
		case "/good2":
			w.Write([]byte(htmlPage(src.URL + "/good3"))) // absolute, same host
		default:
			w.Write([]byte(htmlPage("")))
		}
	}))
	defer src.Close()

	c := quietCrawler(t, Config{Fetch: FetchConfig{Backoff: time.Millisecond}})
	status, st := collectSources(t, context.Background(), c,
		Source{Key: "jsonld:hostile", Vendor: "jsonld", Kind: "board", URL: src.URL + "/hostile"},
		Source{Key: "jsonld:protocol-relative", Vendor: "jsonld", Kind: "board", URL: src.URL + "/protocol-relative"},
		Source{Key: "jsonld:good", Vendor: "jsonld", Kind: "board", URL: src.URL + "/good"})
	require.Zero(t, elsewhere.Load(), "a next link to another host must never be fetched")
	require.Equal(t, sourceFailed, status["jsonld:hostile"])
	require.Equal(t, sourceFailed, status["jsonld:protocol-relative"])
	require.Equal(t, sourceOK, status["jsonld:good"], "next links on the source's own host are followed")
	require.Equal(t, 2, st.SourcesFailed)
	require.Equal(t, []string{"jsonld:hostile", "jsonld:protocol-relative"}, st.FailedSources)
	require.Equal(t, 5, st.Pages, "hostile 1 + protocol-relative 1 + good 3")

	for _, tc := range []struct {
		next string
		ok   bool
	}{
		{"http://board.example/p2", true},
		{"http://BOARD.example:80/p2?x=1", true},
		{"https://board.example/p2", false},
		{"http://board.example:8123/", false},
		{"http://127.0.0.1/", false},
		{"http://169.254.169.254/latest/meta-data/", false},
		{"http://board.example.evil.test/", false},
		{"file:///etc/passwd", false},
		{"", false},
	} {
		require.Equal(t, tc.ok, sameOrigin("http://board.example/jobs", tc.next), tc.next)
	}
}

func TestSourceDeadlineFailsSlowSource(t *testing.T) {
	// Not parallel: it times a 300 ms deadline against a 3 s bound, which the crawls beside it would
	// stretch.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/endless": // every page is quick, but there is always another
			time.Sleep(20 * time.Millisecond)
			n, _ := strconv.Atoi(r.URL.Query().Get("p"))
			w.Write([]byte(htmlPage(fmt.Sprintf("/endless?p=%d", n+1))))
		case "/busy": // asks to be retried later, forever
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Write([]byte(htmlPage("")))
		}
	}))
	defer srv.Close()

	c := quietCrawler(t, Config{Fetch: FetchConfig{SourceDeadline: 300 * time.Millisecond, Attempts: 1000,
		Backoff: time.Millisecond, MaxRetryWait: time.Second}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // without a deadline these run for minutes
	defer cancel()
	start := time.Now()
	status, st := collectSources(t, ctx, c,
		Source{Key: "jsonld:endless", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/endless"},
		Source{Key: "jsonld:busy", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/busy"},
		Source{Key: "jsonld:fine", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/fine"})
	require.Less(t, time.Since(start), 3*time.Second, "sources past their deadline must stop")
	require.Equal(t, sourceFailed, status["jsonld:endless"], "a source past its deadline fails (its reqs stay open)")
	require.Equal(t, sourceFailed, status["jsonld:busy"])
	require.Equal(t, sourceOK, status["jsonld:fine"])
	require.Equal(t, 2, st.SourcesFailed)

	var cfg FetchConfig
	cfg.defaults()
	require.Equal(t, 2*time.Minute, cfg.SourceDeadline)
}

// parseCounter is an adapter that records how many bodies are being parsed at once.
type parseCounter struct {
	now, peak atomic.Int32
}

func (*parseCounter) Vendor() string { return "counter" }

func (p *parseCounter) Parse(body []byte, _ string) (ats.Page, error) {
	n := p.now.Add(1)
	defer p.now.Add(-1)
	for {
		peak := p.peak.Load()
		if n <= peak || p.peak.CompareAndSwap(peak, n) {
			break
		}
	}
	time.Sleep(50 * time.Millisecond)
	return ats.Page{}, nil
}

func TestPageBodyIsBoundedPerPageAndInTotal(t *testing.T) {
	t.Parallel()
	big := "<html><head></head><body><!--" + strings.Repeat("x", 9<<20) + "--></body></html>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write([]byte(big)) // streamed without a Content-Length beyond the first chunk
			return
		}
		w.Write([]byte(htmlPage("")))
	}))
	defer srv.Close()
	ad, ok := ats.For("jsonld")
	require.True(t, ok)

	// Per page: the default limit refuses a 9 MiB page, without retrying it.
	f := testFetcher(t, FetchConfig{Backoff: time.Millisecond})
	_, err := f.fetchPage(context.Background(), ad, srv.URL+"/big", validators{}, nil)
	var perm errPermanent
	require.ErrorAs(t, err, &perm)
	require.Equal(t, http.StatusRequestEntityTooLarge, perm.status)
	_, err = f.fetchPage(context.Background(), ad, srv.URL+"/small", validators{}, nil)
	require.NoError(t, err)
	body, err := readBody(strings.NewReader("12345"), 5, nil)
	require.NoError(t, err)
	require.Equal(t, "12345", string(body))
	_, err = readBody(strings.NewReader("123456"), 5, nil)
	require.ErrorIs(t, err, errBodyTooLarge)

	// In total: with a budget of two pages, 32 workers never hold more than two bodies at once.
	f = testFetcher(t, FetchConfig{MaxBody: 1 << 20, BodyBudget: 2 << 20})
	counter := &parseCounter{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.fetchPage(context.Background(), counter, srv.URL+"/small", validators{}, nil)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.LessOrEqual(t, counter.peak.Load(), int32(2), "bodies held at once must stay within BodyBudget/MaxBody")
}

// A crawl reads every page once a cycle in the same order: a plain LRU smaller than the pages
// evicts each page just before it is read again (a 100k-company world replayed no 304 at all).
// The cache keeps what the last two cycles read and refuses new pages instead; only pages not
// read for two cycles make room, least recently used first.
func TestPageCacheSurvivesCycleScans(t *testing.T) {
	t.Parallel()
	page := func(etag string) *cachedPage {
		return &cachedPage{validators: validators{etag: etag}, obs: []cachedObs{{reqKey: "0123456789abcdef", sourceID: "a1"}}}
	}
	one := page("e").size("u1")
	c := newPageCache(3 * one)
	put := func(url string) (int, bool) { return c.put(url, page("e")) }
	scan := func(urls ...string) (hits int) {
		for _, u := range urls {
			if c.get(u) != nil {
				hits++
			} else {
				put(u)
			}
		}
		return hits
	}
	// Five pages, room for three, read in the same order every cycle: the first three stay.
	urls := []string{"u1", "u2", "u3", "u4", "u5"}
	c.advance(1)
	require.Zero(t, scan(urls...))
	for tick := uint32(2); tick <= 4; tick++ {
		c.advance(tick)
		require.Equal(t, 3, scan(urls...), "cycle %d replays what fits", tick)
	}
	pages, bytes, evictions, refused := c.stats()
	require.Equal(t, 3, pages)
	require.Equal(t, 3*one, bytes)
	require.Zero(t, evictions)
	require.EqualValues(t, 8, refused, "u4 and u5 in each of four cycles")

	// u2 goes away (its source left the directory): read neither at tick 5 nor at 6, it makes room
	// at tick 6 for u4; u1 and u3, read at tick 5 and 6, stay.
	c.advance(5)
	require.Equal(t, 2, scan("u1", "u3"))
	c.advance(6)
	require.Equal(t, 2, scan("u1", "u3"))
	evicted, kept := put("u4")
	require.True(t, kept)
	require.Equal(t, 1, evicted)
	require.Nil(t, c.get("u2"))
	require.NotNil(t, c.get("u1"))
	require.NotNil(t, c.get("u4"))
	// A page larger than the whole cache is not kept, and drops the stale entry for its URL.
	huge := &cachedPage{validators: validators{etag: "e"}, obs: make([]cachedObs, 100)}
	_, kept = c.put("u1", huge)
	require.False(t, kept)
	require.Nil(t, c.get("u1"))
	pages, bytes, _, _ = c.stats()
	require.Equal(t, 2, pages)
	require.Equal(t, 2*one, bytes)

	// In a crawl: a page not kept is fetched in full next time, without If-None-Match, and one
	// not read for two cycles makes room.
	var conditional atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		etag := `"` + r.URL.Path + `"`
		if r.Header.Get("If-None-Match") != "" {
			conditional.Add(1)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Header().Set("ETag", etag)
		w.Write([]byte(htmlPage("")))
	}))
	defer srv.Close()
	a := Source{Key: "jsonld:a", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/a"}
	b := Source{Key: "jsonld:b", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/b"}
	size := (&cachedPage{validators: validators{etag: `"/a"`}}).size(a.URL)
	cr := quietCrawler(t, Config{PageCacheBytes: size + 10}) // room for one page
	evicted, refusedPages := 0, 0
	for i, step := range []struct {
		tick uint32
		src  Source
	}{{1, a}, {1, a}, {1, b}, {2, b}, {3, b}, {3, a}} {
		cr.pages.advance(step.tick)
		status, st := collectSources(t, context.Background(), cr, step.src)
		require.Equal(t, sourceOK, status[step.src.Key])
		evicted += st.CacheEvicted
		refusedPages += st.CacheRefused
		switch i {
		case 1:
			require.Equal(t, 1, st.NotModified, "a page still kept is asked for conditionally")
		case 2, 3:
			require.Equal(t, 1, st.CacheRefused, "a was read in this cycle or the one before: b is not kept")
		case 4:
			require.Equal(t, 1, st.CacheEvicted, "a, not read at ticks 2 and 3, makes room for b")
		case 5:
			require.Zero(t, st.NotModified)
		}
	}
	require.EqualValues(t, 1, conditional.Load(), "pages not kept (b twice, a after its eviction) are fetched in full")
	require.Equal(t, 1, evicted)
	require.Equal(t, 3, refusedPages, "b at ticks 1 and 2, a at tick 3 (b was read at tick 3)")
	_, _, evictions, _ = cr.PageCacheStats()
	require.EqualValues(t, 1, evictions)

	var cfg Config
	cfg.defaults()
	require.Equal(t, int64(256<<20), cfg.PageCacheBytes)
}
