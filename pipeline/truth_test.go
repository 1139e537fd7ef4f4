package pipeline_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// simServer serves a world on loopback; the directory carries its real base URL. Worlds whose
// test is not about what the fetcher reads on the wire serve plain bodies (sim.Config.NoGzip):
// gzip under -race is costly, and the truth crawl (faultyWorld), the gzip and conditional
// fetch tests read it.
func simServer(t *testing.T, cfg sim.Config) (*sim.World, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	cfg.BaseURL = base
	w := sim.New(cfg)
	srv := &http.Server{Handler: w.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	t.Cleanup(func() { srv.Close() })
	return w, base
}

// faultyWorld is the faulty world of the crawl tests. Its slow sources sleep SlowDelay, and the
// crawl waits for its fetch timeouts on them, only at the ticks slowAt accepts (nil: none); at
// every other tick the same sources fail at once (sim.Config.SlowTicks), so a long crawl does not
// wait two timeouts a tick while the sources that fail, and so the expected ledger, stay the same.
func faultyWorld(companies int, slowAt func(tick int) bool) sim.Config {
	if slowAt == nil {
		slowAt = func(int) bool { return false }
	}
	return sim.Config{Seed: 42, Companies: companies,
		FaultServerError: 0.03, FaultRateLimit: 0.02, FaultSlow: 0.01, FaultMalformedRecord: 0.03,
		FaultMalformedBody: 0.01, FaultVanish: 0.02,
		SlowDelay: 15 * time.Second, // three times the fetch timeout, so only slow sources fail even on a loaded machine
		SlowTicks: slowAt}
}

func testFetch() pipeline.FetchConfig {
	// The timeout is what tells a slow source from a healthy one: 5 s, which a healthy page of the
	// simulator never takes even when the race detector and a loaded machine slow both ends many
	// times over (at 1.5 s, healthy sources timed out at load averages above 20). It costs the
	// slow ticks two timeouts a slow source.
	return pipeline.FetchConfig{Workers: 16, PerHost: 16, Timeout: 5 * time.Second, Attempts: 4,
		Backoff: 5 * time.Millisecond, MaxRetryWait: 50 * time.Millisecond, // Retry-After is honoured in TestFetchHonoursRetryAfter
		AllowPrivate: true} // the simulator on loopback; HostRate 0: unlimited
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestCrawlMatchesGroundTruth crawls a faulty world for 32 ticks and scores dedup and the ledger
// against the simulator's ground truth. Its slow sources time out for real in the first
// slowTicks ticks (10 of them, at least one each tick); later they fail at once.
func TestCrawlMatchesGroundTruth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const companies, first, ticks, slowTicks = 250, 800, 32, 4
	world, base := simServer(t, faultyWorld(companies, func(tick int) bool { return tick < first+slowTicks }))
	ch, _ := storetest.ClickHouse(t, "pipeline")
	run := crawltruth.New()
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog(), OnObservation: run.Hook})
	require.NoError(t, err)

	totalFailed, notModified := 0, 0
	for tick := first; tick < first+ticks; tick++ {
		world.Pin(tick)
		run.Begin(tick)
		t0 := time.Now()
		stats, err := c.RunTick(ctx, base, tick)
		require.NoError(t, err)
		if tick < first+slowTicks {
			t.Logf("tick %d took %s (collect %s, emit %s in na)", tick, time.Since(t0), stats[0].CollectTook, stats[0].EmitTook)
		}
		require.Len(t, stats, 7)
		for _, s := range stats {
			notModified += s.NotModified
			totalFailed += len(s.FailedSources)
		}
		run.End(t, tick, world.Truth(tick), crawltruth.Unread(stats))
	}
	require.Positive(t, totalFailed, "the faults must actually bite")
	require.Positive(t, notModified, "unchanged pages must be replayed from the page cache (304)")
	t.Logf("pages answered 304 and replayed: %d", notModified)
	run.Score(t, ch, first, first+ticks-1)
}
