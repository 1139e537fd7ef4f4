package pipeline_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// TestTwoCrawlersNeverReuseAnEventSeq runs two crawler processes' worth of state on one ledger,
// taking turns: each finds the other's commits under the commit lock, reloads and numbers on
// from the committed head, so event_seq stays 1..n with no number used twice, and the ledger is
// the one a single crawler writes over the same ticks of the same world (a rerun after a reload
// once replayed the stale pass's pages as unchanged and lost that tick's openings).
func TestTwoCrawlersNeverReuseAnEventSeq(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	world, base := simServer(t, sim.Config{Seed: 7, Companies: 60, NoGzip: true})
	ch, _ := storetest.ClickHouse(t, "pipeline")
	var mu sync.Mutex
	locks := 0
	lock := func(context.Context) (func(), error) {
		mu.Lock()
		locks++
		return mu.Unlock, nil
	}
	a, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog(), CommitLock: lock})
	require.NoError(t, err)
	b, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog(), CommitLock: lock})
	require.NoError(t, err)
	for i, c := range []*pipeline.Crawler{a, b, a, a, b, b, a} {
		tick := 900 + i
		world.Pin(tick)
		stats, err := c.RunTick(ctx, base, tick)
		require.NoError(t, err)
		for _, st := range stats {
			require.False(t, st.Skipped, "tick %d region %s", tick, st.Region)
		}
	}
	require.Positive(t, locks)
	ledger := crawltruth.Ledger(t, ch)
	require.NotEmpty(t, ledger)
	for i, r := range ledger {
		require.Equal(t, uint64(i+1), r.Seq, "event_seq must be 1..n without gaps or reuse")
	}
	// What both crawlers built equals one crawler's view of the same ledger.
	fresh, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	require.Equal(t, fresh.State().NextSeq(), uint64(len(ledger))+1)
	all1, live1 := fresh.State().Reqs()
	all2, live2 := a.State().Reqs()
	require.Equal(t, all1, all2)
	require.Equal(t, live1, live2)

	oneWorld, oneBase := simServer(t, sim.Config{Seed: 7, Companies: 60, NoGzip: true})
	oneCh, _ := storetest.ClickHouse(t, "pipeline")
	one, err := pipeline.NewCrawler(ctx, oneCh, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	for i := range 7 {
		oneWorld.Pin(900 + i)
		_, err := one.RunTick(ctx, oneBase, 900+i)
		require.NoError(t, err)
	}
	require.Equal(t, crawltruth.Ledger(t, oneCh), ledger, "two crawlers taking turns write what one crawler writes")
}
