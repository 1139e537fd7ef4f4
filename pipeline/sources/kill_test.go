package sources_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
	"github.com/planehq/hiringsignal/sim"
)

// killingConn lets the first `after` INSERT blocks through and fails every later one (after < 0:
// none fails): the committer "dies" between two of its writes. It counts the INSERTs asked.
type killingConn struct {
	driver.Conn
	after   int32
	inserts atomic.Int32
}

func (c *killingConn) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	if strings.HasPrefix(strings.TrimSpace(query), "INSERT") && c.inserts.Add(1) > c.after && c.after >= 0 {
		return nil, errors.New("killed")
	}
	return c.Conn.PrepareBatch(ctx, query, opts...)
}

// windows crawls ticks first..first+n-1 of a small faulty world through the registry, one worker
// and a committer; at killTick the committer dies after killAfter INSERT blocks (-1: it does not)
// and a fresh one reruns the window. It returns the ledger and how many INSERTs the committer of
// killTick asked for.
func windows(t *testing.T, first, n, killTick int, killAfter int32) ([]crawltruth.LedgerRow, int32) {
	ctx := context.Background()
	world, fetch := hostWorld(t, sim.Config{Seed: 5, Companies: 60, FaultServerError: 0.05, FaultVanish: 0.03, NoGzip: true})
	pool := storetest.Postgres(t, "sources_kill")
	ch, _ := storetest.ClickHouse(t, "sources_kill")
	quiet := slog.New(slog.DiscardHandler)
	cfg := pipeline.Config{Fetch: fetch, Log: quiet, InsertBatch: 5} // small blocks: many kill points
	newCrawl := func(conn driver.Conn) *sources.Crawl {
		c, err := pipeline.NewCrawler(ctx, conn, cfg)
		require.NoError(t, err)
		return &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: sources.Clock{Epoch: world.CycleTime(0)}, Owner: "w"}
	}
	worker, committer := newCrawl(ch), newCrawl(ch)
	var asked int32
	for tick := first; tick < first+n; tick++ {
		world.Pin(tick)
		importWorld(t, pool, world, tick)
		_, err := worker.ReadDue(ctx, tick, true)
		require.NoError(t, err)
		if tick == killTick {
			kc := &killingConn{Conn: ch, after: killAfter}
			_, err := newCrawl(kc).Commit(ctx, tick, world.CycleTime(tick))
			asked = kc.inserts.Load()
			if killAfter >= 0 && killAfter < asked {
				require.ErrorContains(t, err, "killed")
			} else {
				require.NoError(t, err)
			}
			committer = newCrawl(ch) // restarted: its state is the committed ledger
		}
		_, err = committer.Commit(ctx, tick, world.CycleTime(tick))
		require.NoError(t, err)
		again, err := committer.Commit(ctx, tick, world.CycleTime(tick))
		require.NoError(t, err)
		for _, st := range again {
			require.True(t, st.Skipped, "a committed window is committed once")
		}
	}
	return crawltruth.Ledger(t, ch), asked
}

// TestKilledCommitterLosesAndDoublesNothing kills the committer at each of its steps in one
// window (before its first write, after each share of its INSERT blocks, just before the last,
// the cycle row that commits a region) and checks that a restarted committer leaves exactly the
// ledger of a committer that was never killed.
func TestKilledCommitterLosesAndDoublesNothing(t *testing.T) {
	t.Parallel()
	const first, n, killTick = 600, 3, 601
	want, asked := windows(t, first, n, killTick, -1)
	require.NotEmpty(t, want)
	require.Greater(t, asked, int32(8))
	points := []int32{0, 1, asked / 4, asked / 2, 3 * asked / 4, asked - 1}
	for _, after := range points {
		t.Run(fmt.Sprintf("killed after %d of %d inserts", after, asked), func(t *testing.T) {
			t.Parallel()
			got, _ := windows(t, first, n, killTick, after)
			require.Equal(t, want, got, "a killed-and-restarted committer must neither lose nor double events")
		})
	}
}

// TestKilledWorkerLeaseLapses: a worker that claimed sources and died holds them only until its
// lease lapses; another worker then reads them, and the window commits with every source read.
func TestKilledWorkerLeaseLapses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	world, fetch := hostWorld(t, sim.Config{Seed: 9, Companies: 40, NoGzip: true})
	pool := storetest.Postgres(t, "sources_kill")
	ch, _ := storetest.ClickHouse(t, "sources_kill")
	const tick = 500
	world.Pin(tick)
	importWorld(t, pool, world, tick)
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fetch, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	live := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: sources.Clock{Epoch: world.CycleTime(0)}, Owner: "live"}

	// The dead worker claims ten sources and never reads them.
	dead, err := oltp.ClaimDueSources(ctx, pool, "dead", tick, 10, time.Hour, true)
	require.NoError(t, err)
	require.Len(t, dead, 10)
	n, err := live.ReadDue(ctx, tick, true)
	require.NoError(t, err)
	left, err := oltp.PendingCrawlSources(ctx, pool, tick)
	require.NoError(t, err)
	require.Equal(t, 10, left, "the dead worker's claims are not taken while its lease holds")

	// Its lease lapses (the hour passes).
	_, err = pool.Exec(ctx, "UPDATE crawl_sources SET lease_until = now() - interval '1 second' WHERE lease_owner = 'dead'")
	require.NoError(t, err)
	m, err := live.ReadDue(ctx, tick, true)
	require.NoError(t, err)
	require.Equal(t, 10, m, "once the lease lapses another worker reads them")
	n += m
	left, err = oltp.PendingCrawlSources(ctx, pool, tick)
	require.NoError(t, err)
	require.Zero(t, left)
	stats, err := live.Commit(ctx, tick, world.CycleTime(tick))
	require.NoError(t, err)
	for _, st := range stats {
		require.Zero(t, st.NotFetched, "region %s", st.Region)
	}
	t.Logf("read %d sources, 10 of them after the dead worker's lease lapsed", n)
}
