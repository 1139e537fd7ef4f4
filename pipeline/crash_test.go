package pipeline_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
)

// crashingConn lets the first `after` INSERT blocks through, then fails every INSERT: the
// process "dies" in the middle of a cycle's writes.
type crashingConn struct {
	driver.Conn
	after   int32
	inserts atomic.Int32
}

func (c *crashingConn) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	if strings.HasPrefix(strings.TrimSpace(query), "INSERT") && c.inserts.Add(1) > c.after {
		return nil, errors.New("killed")
	}
	return c.Conn.PrepareBatch(ctx, query, opts...)
}

// TestKilledCycleRerunChangesNothing kills a crawl part-way through a cycle's writes (after some
// event blocks landed, before the commit), restarts from the committed ledger, reruns, and checks
// the ledger is identical to an uninterrupted crawl of the same world. The two crawls are
// independent (a world and a database each) and run at once.
func TestKilledCycleRerunChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const first, ticks, crashTick = 900, 6, 903
	run := func(t *testing.T, crash bool) []crawltruth.LedgerRow {
		world, base := simServer(t, faultyWorld(120, nil))
		ch, _ := storetest.ClickHouse(t, "pipeline_crash")
		cfg := pipeline.Config{Fetch: testFetch(), Log: quietLog()}
		c, err := pipeline.NewCrawler(ctx, ch, cfg)
		require.NoError(t, err)
		for tick := first; tick < first+ticks; tick++ {
			world.Pin(tick)
			if crash && tick == crashTick {
				cc := &crashingConn{Conn: ch, after: 3}
				dcfg := cfg
				dcfg.InsertBatch = 7 // many small blocks: the crash lands after some of the cycle's events
				dead, err := pipeline.NewCrawler(ctx, cc, dcfg)
				require.NoError(t, err)
				_, err = dead.RunTick(ctx, base, tick)
				require.ErrorContains(t, err, "killed")
				require.Equal(t, int32(3), min(cc.after, cc.inserts.Load()), "some blocks landed before the crash")
				// Restart: a new crawler rebuilds its state from the committed ledger only.
				c, err = pipeline.NewCrawler(ctx, ch, cfg)
				require.NoError(t, err)
			}
			_, err := c.RunTick(ctx, base, tick)
			require.NoError(t, err)
			// Rerunning a committed tick is a no-op.
			again, err := c.RunTick(ctx, base, tick)
			require.NoError(t, err)
			for _, s := range again {
				require.True(t, s.Skipped)
			}
		}
		return crawltruth.Ledger(t, ch)
	}
	var want, got []crawltruth.LedgerRow
	t.Run("crawls", func(t *testing.T) {
		t.Run("uninterrupted", func(t *testing.T) { t.Parallel(); want = run(t, false) })
		t.Run("killed and rerun", func(t *testing.T) { t.Parallel(); got = run(t, true) })
	})
	if t.Failed() {
		return // a crawl failed and said why
	}
	require.NotEmpty(t, want)
	require.Equal(t, len(want), len(got))
	require.Equal(t, want, got, "a killed-and-rerun cycle must neither lose nor double events")
}
