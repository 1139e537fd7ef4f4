package sources_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
	"github.com/planehq/hiringsignal/sim"
)

// TestCommittedWindowTellsOperatorsWhatItSaw: each committed window tells OnWindow every source
// of the directory by vendor and status, the reqs held open by sources not read ok, and the
// registry's counts; a rerun of a committed window tells nothing; a source not read (here paused)
// is not_fetched and the reqs it alone carried are held open, not closed.
func TestCommittedWindowTellsOperatorsWhatItSaw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	world, fetch := hostWorld(t, sim.Config{Seed: 11, Companies: 40, NoGzip: true})
	pool := storetest.Postgres(t, "sources_health")
	ch, _ := storetest.ClickHouse(t, "sources_health")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fetch, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	var told []sources.WindowHealth
	crawl := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: sources.Clock{Epoch: world.CycleTime(0)}, Owner: "w",
		OnWindow: func(h sources.WindowHealth) { told = append(told, h) }}
	window := func(tick int) sources.WindowHealth {
		t.Helper()
		world.Pin(tick)
		importWorld(t, pool, world, tick)
		_, err = crawl.ReadDue(ctx, tick, true)
		require.NoError(t, err)
		told = nil
		_, err = crawl.Commit(ctx, tick, world.CycleTime(tick))
		require.NoError(t, err)
		require.Len(t, told, 1, "one committed window, told once")
		_, err = crawl.Commit(ctx, tick, world.CycleTime(tick))
		require.NoError(t, err)
		require.Len(t, told, 1, "a rerun of a committed window tells nothing")
		return told[0]
	}
	total := func(h sources.WindowHealth, status string) int {
		n := 0
		for vs, k := range h.Sources {
			if status == "" || vs.Status == status {
				n += k
			}
		}
		return n
	}

	const first = 300
	h := window(first)
	require.Equal(t, first, h.Tick)
	byStatus, _, err := oltp.RegistryHealth(ctx, pool)
	require.NoError(t, err)
	active := byStatus[oltp.SourceActive]
	require.Positive(t, active)
	require.Equal(t, active, total(h, ""), "every source of the directory is counted once")
	require.Equal(t, total(h, pipeline.StatusOK), total(h, ""), "a world without faults reads every source ok")
	require.Zero(t, h.HeldOpen, "every source read ok: nothing is held open by an unread one")
	require.Equal(t, byStatus, h.Registry)
	require.Zero(t, h.Cooling)

	// Pause the ATS tenant that carried the most postings: next window it is not fetched, and
	// the reqs it alone carried stay open, counted as held open.
	page, _, err := oltp.ListSources(ctx, pool, oltp.SourceFilter{Limit: oltp.MaxSourceList})
	require.NoError(t, err)
	var busiest oltp.RegistrySource
	for _, s := range page {
		if s.Kind == oltp.SourceATSTenant && s.LastCount != nil && (busiest.LastCount == nil || *s.LastCount > *busiest.LastCount) {
			busiest = s
		}
	}
	require.NotNil(t, busiest.LastCount)
	require.Positive(t, *busiest.LastCount)
	_, err = oltp.SetSourceStatus(ctx, pool, busiest.Key, oltp.SourcePaused, "checking the tenant", "test")
	require.NoError(t, err)
	h = window(first + 1)
	require.Equal(t, 1, h.Sources[sources.VendorStatus{Vendor: busiest.Vendor, Status: pipeline.StatusNotFetched}])
	require.Equal(t, 1, total(h, pipeline.StatusNotFetched))
	require.Equal(t, active, total(h, ""))
	require.Positive(t, h.HeldOpen, "the paused tenant's own reqs are held open")
	require.LessOrEqual(t, h.HeldOpen, *busiest.LastCount)
	require.Equal(t, 1, h.Registry[oltp.SourcePaused])
	require.Equal(t, active-1, h.Registry[oltp.SourceActive])
	t.Logf("%s paused: %d of its %d postings' reqs held open", busiest.Key, h.HeldOpen, *busiest.LastCount)
}
