package pipeline_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/chproxy"
	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// TestACommitThatGaveUpAndLandsLaterIsNeverNumberedOver: a crawler's commit row is held back on
// its way to ClickHouse (a loopback proxy keeps its data and cuts the crawler off), so its write
// fails with its status unknown while ClickHouse will still take it. Another crawler process
// then commits the next window: it first sends the write left in unknown state again, as it was
// numbered, and numbers after it. The held write lands after all that. The ledger is 1..n, every
// cycle's positions its own (without the head, the next window was numbered over the held one's),
// and it equals a crawler's that never failed, run over the same windows.
func TestACommitThatGaveUpAndLandsLaterIsNeverNumberedOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	world, base := simServer(t, sim.Config{Seed: 11, Companies: 60, NoGzip: true})
	ch, opts := storetest.ClickHouse(t, "pipeline")
	pool := storetest.Postgres(t, "pipeline")
	proxy := chproxy.Start(t, storetest.ClickHouseAddr())
	through := opts
	through.Addr = proxy.Addr()
	pch, err := analytics.Open(through)
	require.NoError(t, err)
	t.Cleanup(func() { pch.Close() })
	head := oltp.LedgerHeads{Pool: pool, Ledger: opts.Database}
	cfg := pipeline.Config{Fetch: testFetch(), Log: quietLog(), CommitLock: oltp.CrawlCommitLock(pool, opts.Database), Ledger: head}

	a, err := pipeline.NewCrawler(ctx, pch, cfg)
	require.NoError(t, err)
	world.Pin(900)
	_, err = a.RunTick(ctx, base, 900)
	require.NoError(t, err)
	before, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)

	proxy.HoldNext("INSERT INTO cycles")
	world.Pin(901)
	dir901, err := pipeline.FetchDirectory(ctx, http.DefaultClient, base, 901)
	require.NoError(t, err)
	stats, err := a.RunTick(ctx, base, 901)
	require.Error(t, err, "the commit row's write gave up")
	proxy.WaitHeld(t, 10*time.Second)
	first := stats[0]
	require.Equal(t, dir901.Regions[0], first.Region)
	require.Positive(t, first.Events)
	_, _, pending, err := head.Head(ctx)
	require.NoError(t, err)
	require.NotNil(t, pending, "the write in unknown state is pending")
	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, before, wm, "ClickHouse does not show the held commit yet")

	// Another crawler process commits the next window.
	b, err := pipeline.NewCrawler(ctx, ch, cfg)
	require.NoError(t, err)
	world.Pin(902)
	_, err = b.RunTick(ctx, base, 902)
	require.NoError(t, err)
	// The held write lands now, after the next window's commit.
	proxy.Release(t, 10*time.Second)

	ledger := crawltruth.Ledger(t, ch)
	for i, r := range ledger {
		require.Equal(t, uint64(i+1), r.Seq, "event_seq must be 1..n without gaps or reuse")
	}
	cycles := cyclesOf(t, ch)
	requirePartition(t, cycles)
	require.Contains(t, cycles, cycleSpan{Region: first.Region, Tick: 901, From: first.SeqFrom, To: first.SeqTo}, "the held cycle is committed as it was numbered")

	// The same windows of the same world, on a crawler that never failed: 900, the first region
	// of 901 (the rest of 901 never committed), 902.
	rworld, rbase := simServer(t, sim.Config{Seed: 11, Companies: 60, NoGzip: true})
	rch, _ := storetest.ClickHouse(t, "pipeline")
	ref, err := pipeline.NewCrawler(ctx, rch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	rworld.Pin(900)
	_, err = ref.RunTick(ctx, rbase, 900)
	require.NoError(t, err)
	rworld.Pin(901)
	rdir, err := pipeline.FetchDirectory(ctx, http.DefaultClient, rbase, 901)
	require.NoError(t, err)
	_, err = ref.RunRegions(ctx, rdir, rdir.Regions[:1])
	require.NoError(t, err)
	rworld.Pin(902)
	_, err = ref.RunTick(ctx, rbase, 902)
	require.NoError(t, err)
	refLedger := crawltruth.Ledger(t, rch)
	require.Equal(t, refLedger, ledger, "the ledger is a never-failed crawler's")
	require.Equal(t, len(cyclesOf(t, rch)), len(cycles))
}

type cycleSpan struct {
	Region   string
	Tick     uint32
	From, To uint64
}

// cyclesOf is every committed cycle in ledger order: identical copies of a commit row once,
// different rows of one window each.
func cyclesOf(t *testing.T, ch driver.Conn) []cycleSpan {
	t.Helper()
	rows, err := ch.Query(context.Background(), `SELECT DISTINCT region, tick, seq_from, seq_to FROM cycles ORDER BY seq_from, seq_to, region, tick`)
	require.NoError(t, err)
	defer rows.Close()
	var out []cycleSpan
	for rows.Next() {
		var c cycleSpan
		require.NoError(t, rows.Scan(&c.Region, &c.Tick, &c.From, &c.To))
		out = append(out, c)
	}
	require.NoError(t, rows.Err())
	return out
}

// requirePartition requires that cycles, in ledger order, cover 1..n one after another, each
// position in one cycle only (an empty cycle covers none: its seq_to is its seq_from - 1).
func requirePartition(t *testing.T, cycles []cycleSpan) {
	t.Helper()
	next := uint64(1)
	for _, c := range cycles {
		require.Equal(t, next, c.From, "cycle %s/%d starts where the one before it ends: %+v", c.Region, c.Tick, cycles)
		require.GreaterOrEqual(t, c.To+1, c.From)
		next = c.To + 1
	}
}
