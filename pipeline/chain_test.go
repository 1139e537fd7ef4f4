package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// TestAChainReadAheadWritesTheLedgerOfAChainReadPageByPage: the same world crawled for two
// ticks by a crawler that reads every chain of pages page after page (ChainDepth 1) and by one
// that reads numbered chains (the list boards' ?page=N) eight pages at once writes the same
// ledger, event for event; the second did read pages ahead, the first none.
func TestAChainReadAheadWritesTheLedgerOfAChainReadPageByPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	crawl := func(depth int) ([]crawltruth.LedgerRow, uint64, int) {
		world, base := simServer(t, sim.Config{Seed: 11, Companies: 150})
		ch, _ := storetest.ClickHouse(t, "pipeline")
		fc := testFetch()
		fc.ChainDepth = depth
		fc.Timeout = 10 * time.Second // no fault here: a loaded machine's slow answer is no failure
		fc.Workers = 64               // most of them spare while the boards' chains are read
		c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fc, Log: quietLog()})
		require.NoError(t, err)
		pages := 0
		for tick := 700; tick < 702; tick++ {
			world.Pin(tick)
			stats, err := c.RunTick(ctx, base, tick)
			require.NoError(t, err)
			for _, st := range stats {
				pages += st.Pages
				require.Empty(t, st.FailedReasons, "depth %d, tick %d: the world has no fault", depth, tick)
			}
		}
		used, dropped := c.Fetcher().ChainPages()
		t.Logf("depth %d: %d pages, %d read ahead and taken, %d dropped", depth, pages, used, dropped)
		return crawltruth.Ledger(t, ch), used, pages
	}
	var (
		wg                sync.WaitGroup
		seq, con          []crawltruth.LedgerRow
		seqUsed, conUsed  uint64
		seqPages, conPage int
	)
	wg.Add(2)
	go func() { defer wg.Done(); seq, seqUsed, seqPages = crawl(1) }()
	go func() { defer wg.Done(); con, conUsed, conPage = crawl(8) }()
	wg.Wait()
	require.NotEmpty(t, seq)
	require.Zero(t, seqUsed, "ChainDepth 1 reads page after page")
	require.Positive(t, conUsed, "the list boards' pages were read ahead")
	require.Equal(t, seqPages, conPage, "the same pages were taken")
	require.Equal(t, seq, con, "read ahead or page by page, the ledger is the same")
}

// leverChain is a Lever feed of n postings served limit= at a time from skip=; the page at
// skip=failAt (when set) answers 500.
type leverChain struct {
	n      atomic.Int32
	failAt atomic.Int32 // skip of the failing page; -1 none
	asked  atomic.Int32
}

func (b *leverChain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	b.asked.Add(1)
	skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if int32(skip) == b.failAt.Load() {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	out := []map[string]any{}
	for i := skip; i < min(skip+limit, int(b.n.Load())); i++ {
		out = append(out, leverPosting(fmt.Sprintf("p%03d", i), fmt.Sprintf("Engineer %d", i), "Full-time", "on-site", ""))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func leverChainDirectory(url string, tick int) *pipeline.Directory {
	d := oneTenantDirectory(url+"/v0/postings/acme?mode=json&skip=0&limit=2", tick, time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC).Add(time.Duration(tick)*3*time.Hour))
	d.Sources[0].Key, d.Sources[0].Vendor = "lever:acme", "lever"
	return d
}

// TestAFailedPageOfAChainReadAheadClosesNothing: a Lever chain of six pages whose fourth page
// fails is a failed read, read ahead or page by page alike: its reqs stay open.
func TestAFailedPageOfAChainReadAheadClosesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, depth := range []int{1, 8} {
		t.Run(fmt.Sprintf("depth %d", depth), func(t *testing.T) {
			t.Parallel()
			b := &leverChain{}
			b.n.Store(11)
			b.failAt.Store(-1)
			srv := httptest.NewServer(b)
			defer srv.Close()
			ch, _ := storetest.ClickHouse(t, "pipeline")
			fc := testFetch()
			fc.ChainDepth = depth
			c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fc, Log: quietLog()})
			require.NoError(t, err)
			st, err := c.RunCycle(ctx, leverChainDirectory(srv.URL, 0), "dach")
			require.NoError(t, err)
			require.Equal(t, 1, st.SourcesOK)
			require.Equal(t, 6, st.Pages)
			require.Equal(t, 11, st.ByType["opened"])

			b.failAt.Store(6) // the fourth page
			st, err = c.RunCycle(ctx, leverChainDirectory(srv.URL, 1), "dach")
			require.NoError(t, err)
			require.Equal(t, 1, st.SourcesFailed)
			require.Equal(t, "gave up after retries: status 500", st.FailedReasons["lever:acme"])
			require.Zero(t, st.ByType["closed"], "a page not read closes nothing")
			_, live := c.State().Reqs()
			require.Equal(t, 11, live)
		})
	}
}

// TestAChainPastTheCapClosesNothing: a source with more pages than --fetch-max-pages is a failed
// read that says which setting to raise and is counted (OnPageCap); the reqs it carried stay
// open, those on the pages read as much as the others.
func TestAChainPastTheCapClosesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := &leverChain{}
	b.n.Store(11)
	b.failAt.Store(-1)
	srv := httptest.NewServer(b)
	defer srv.Close()
	ch, _ := storetest.ClickHouse(t, "pipeline")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	st, err := c.RunCycle(ctx, leverChainDirectory(srv.URL, 0), "dach")
	require.NoError(t, err)
	require.Equal(t, 11, st.ByType["opened"])

	var capped []string
	fc := testFetch()
	fc.MaxPages = 3
	fc.OnPageCap = func(source, vendor string) { capped = append(capped, source+" "+vendor) }
	small, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fc, Log: quietLog()})
	require.NoError(t, err)
	b.n.Store(7) // four pages: the three read carry 6 of the 11 reqs
	st, err = small.RunCycle(ctx, leverChainDirectory(srv.URL, 1), "dach")
	require.NoError(t, err)
	require.Equal(t, 1, st.SourcesFailed)
	require.Equal(t, 3, st.Pages)
	require.Equal(t, "more than 3 pages (--fetch-max-pages)", st.FailedReasons["lever:acme"])
	require.Equal(t, []string{"lever:acme lever"}, capped)
	require.Zero(t, st.ByType["closed"], "a chain cut at the cap closes nothing")
	_, live := small.State().Reqs()
	require.Equal(t, 11, live)
}
