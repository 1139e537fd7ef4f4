package sources_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
	"github.com/planehq/hiringsignal/sim"
)

// hostWorld serves a host-mode world over TLS, the companies' own sites included (a leaf per site
// host, issued on demand, for discovery), and returns the fetch settings that reach it the way
// `crawl --connect-to :443=ADDR --ca-file CA.pem` does. No host-mode world here serves slow
// answers, so a read that times out can only be a loaded machine under -race (TLS handshakes
// included): the timeout is generous, or a failed read would cool its source down on the wall
// clock, longer than a test's windows take, and two runs of one world would disagree. The
// worlds of this package's tests serve plain bodies (sim.Config.NoGzip), but the registry truth
// test's, which reads gzip as production does: the fetcher's gzip is tested in package pipeline,
// and compressing every body under -race costs more than the rest of a small world's serving.
func hostWorld(t *testing.T, cfg sim.Config) (*sim.World, pipeline.FetchConfig) {
	t.Helper()
	cfg.HostMode = true
	w := sim.New(cfg)
	connectTo, caFile := hosttest.Serve(t, w.Handler(), sim.HostNames(), w.ServesSite)
	return w, pipeline.FetchConfig{ConnectTo: connectTo, CAFile: caFile,
		Workers: 16, PerHost: 16, Timeout: 15 * time.Second, Attempts: 4, Backoff: 5 * time.Millisecond, MaxRetryWait: 50 * time.Millisecond}
}

// importWorld imports world's registry at tick, as an operator would with the tenants it has
// then (sources import --apply).
func importWorld(t *testing.T, pool *pgxpool.Pool, world *sim.World, tick int) {
	t.Helper()
	var csv bytes.Buffer
	require.NoError(t, world.RegistryCSV(&csv, tick))
	_, err := sources.Import(context.Background(), pool, &csv, sources.ImportOptions{File: "world.csv", By: "test", Apply: true})
	require.NoError(t, err)
}

// TestRegistryCrawlMatchesGroundTruth runs the production path against a faulty world served
// on the vendors' real hostnames: the world's registry CSV imported each window (as an operator
// would, with the tenants it has then), two workers claiming and reading the sources through
// leases in Postgres, and one committer committing each window from their reads; the ledger is
// scored against the world's truth as a single crawler's is.
func TestRegistryCrawlMatchesGroundTruth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const first, ticks = 800, 16
	world, fetch := hostWorld(t, sim.Config{Seed: 42, Companies: 200,
		FaultServerError: 0.03, FaultRateLimit: 0.02, FaultMalformedRecord: 0.03, FaultMalformedBody: 0.01, FaultVanish: 0.02})
	pool := storetest.Postgres(t, "sources")
	ch, _ := storetest.ClickHouse(t, "sources")
	run := crawltruth.New()
	quiet := slog.New(slog.DiscardHandler)
	newCrawler := func(hook func(string, string, string)) *pipeline.Crawler {
		c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fetch, Log: quiet, OnObservation: hook})
		require.NoError(t, err)
		return c
	}
	codec := pipeline.NewReadCodec()
	clock := sources.Clock{Epoch: world.CycleTime(0)}
	workers := []*sources.Crawl{
		{Pool: pool, Crawler: newCrawler(nil), Codec: codec, Clock: clock, Owner: "worker-1", Batch: 16},
		{Pool: pool, Crawler: newCrawler(nil), Codec: codec, Clock: clock, Owner: "worker-2", Batch: 16},
	}
	committer := &sources.Crawl{Pool: pool, Crawler: newCrawler(run.Hook), Codec: codec, Clock: clock, Owner: "committer"}

	readBy := map[string]int{}
	notFetched := 0
	for tick := first; tick < first+ticks; tick++ {
		world.Pin(tick)
		importWorld(t, pool, world, tick)

		var wg sync.WaitGroup
		counts := make([]int, len(workers))
		errs := make([]error, len(workers))
		for i, w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i], errs[i] = w.ReadDue(ctx, tick, true)
			}()
		}
		wg.Wait()
		for i := range workers {
			require.NoError(t, errs[i])
			readBy[workers[i].Owner] += counts[i]
		}
		run.Begin(tick)
		stats, err := committer.Commit(ctx, tick, world.CycleTime(tick))
		require.NoError(t, err)
		require.Len(t, stats, 7)
		for _, st := range stats {
			require.False(t, st.Skipped)
			notFetched += st.NotFetched // cooling down after failing windows in a row
		}
		run.End(t, tick, world.Truth(tick), crawltruth.Unread(stats))
	}
	t.Logf("sources read per worker: %v; not fetched (cooling down): %d", readBy, notFetched)
	for _, w := range workers {
		require.Positive(t, readBy[w.Owner], "both workers took a share")
	}
	run.Score(t, ch, first, first+ticks-1)
}
