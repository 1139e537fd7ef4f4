package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// crawledWorld is a faulty simulated world crawled once at tick into a fresh database.
func crawledWorld(t *testing.T, db string, tick int) (*sim.World, string, driver.Conn, *pipeline.Crawler) {
	t.Helper()
	world, base := simServer(t, faultyWorld(80, nil))
	ch, _ := storetest.ClickHouse(t, db)
	c, err := pipeline.NewCrawler(context.Background(), ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	world.Pin(tick)
	_, err = c.RunTick(context.Background(), base, tick)
	require.NoError(t, err)
	return world, base, ch, c
}

// TestRunCompanyCrawlsOnlyThatCompany: an on-demand crawl between cycles sees one company's
// changes, emits events for it alone, and commits them under its own cycle.
func TestRunCompanyCrawlsOnlyThatCompany(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const tick = 1000
	world, base, ch, c := crawledWorld(t, "pipeline_ondemand", tick)
	before := crawltruth.Ledger(t, ch)

	// Move the world on a week and crawl only one company that changed.
	world.Pin(tick + 56)
	dir, err := pipeline.FetchDirectory(ctx, c.Fetcher().Client(), base, tick+56)
	require.NoError(t, err)
	var domain string
	for _, s := range dir.Sources {
		if s.Kind == "ats_tenant" {
			domain = s.CompanyDomain
			break
		}
	}
	require.NotEmpty(t, domain)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	st, err := c.RunCompany(ctx, dir, domain, now)
	require.NoError(t, err)
	require.Equal(t, analytics.CompanyRegion(pipeline.CompanyID(domain)), st.Region)
	after := crawltruth.Ledger(t, ch)
	require.Equal(t, before, after[:len(before)], "nothing earlier changes")
	require.Equal(t, st.Events, len(after)-len(before))
	require.Positive(t, st.Events, "a week later the company has news (at least reobserved)")
	for _, r := range after[len(before):] {
		var cid uint64
		require.NoError(t, ch.QueryRow(ctx, "SELECT company_id FROM events WHERE event_seq = ?", r.Seq).Scan(&cid))
		require.Equal(t, pipeline.CompanyID(domain), cid, "an on-demand crawl touches its company only")
	}
	var at time.Time
	require.NoError(t, ch.QueryRow(ctx, "SELECT max(cycle_time) FROM cycles WHERE region = ?", st.Region).Scan(&at))
	require.Equal(t, now, at.UTC())
}

// TestOlderTickThanCommittedHistoryIsSkipped: the ledger is append-only in cycle order; a cycle
// older than a region's latest committed one (a backfill asked for earlier days) changes nothing.
func TestOlderTickThanCommittedHistoryIsSkipped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const tick = 1000
	world, base, ch, c := crawledWorld(t, "pipeline_older", tick)
	before := crawltruth.Ledger(t, ch)
	require.NotEmpty(t, before)

	world.Pin(tick - 56) // a week earlier
	stats, err := c.RunTick(ctx, base, tick-56)
	require.NoError(t, err)
	require.NotEmpty(t, stats)
	for _, st := range stats {
		require.True(t, st.Skipped, "region %s: an older cycle is not run", st.Region)
		require.Zero(t, st.Events)
	}
	require.Equal(t, before, crawltruth.Ledger(t, ch), "the ledger is unchanged")
	var cycles uint64
	require.NoError(t, ch.QueryRow(ctx, "SELECT count() FROM cycles WHERE tick = ?", uint32(tick-56)).Scan(&cycles))
	require.Zero(t, cycles)
}
