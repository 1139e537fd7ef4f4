package sources_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
	"github.com/planehq/hiringsignal/sim"
)

// The committer keeps the window's reads packed and decodes each only when the commit merges
// it, so a stored read that does not decode is met halfway through the merge. It must still fail
// the commit before anything is written, every time it is retried.
func TestAReadThatDoesNotDecodeFailsTheCommitBeforeAnyWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	world, fetch := hostWorld(t, sim.Config{Seed: 11, Companies: 40, NoGzip: true})
	pool := storetest.Postgres(t, "sources_commit")
	ch, _ := storetest.ClickHouse(t, "sources_commit")
	const tick = 600
	world.Pin(tick)
	importWorld(t, pool, world, tick)
	clock := sources.Clock{Epoch: world.CycleTime(0)}

	// A worker stores a read whose sightings are not Encode's; another reads the rest.
	bad, err := oltp.ClaimDueSources(ctx, pool, "bad", tick, 1, time.Minute, true)
	require.NoError(t, err)
	require.Len(t, bad, 1)
	require.NoError(t, oltp.StoreCrawlReads(ctx, pool, []oltp.CrawlRead{{Tick: tick, SourceKey: bad[0], ReadAt: time.Now(), Worker: "bad",
		Status: pipeline.StatusOK, Sightings: []byte("not zstd"), NextDue: clock.Start(tick + 1)}}))
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fetch, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	worker := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: clock, Owner: "worker"}
	n, err := worker.ReadDue(ctx, tick, true)
	require.NoError(t, err)
	require.Positive(t, n)

	conn := &killingConn{Conn: ch, after: -1} // counts the INSERTs, fails none
	cc, err := pipeline.NewCrawler(ctx, conn, pipeline.Config{Fetch: fetch, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	committer := &sources.Crawl{Pool: pool, Crawler: cc, Codec: pipeline.NewReadCodec(), Clock: clock, Owner: "committer"}
	for range 2 {
		_, err = committer.Commit(ctx, tick, world.CycleTime(tick))
		require.ErrorContains(t, err, "cannot commit the read of "+bad[0])
		require.Zero(t, conn.inserts.Load(), "nothing is written")
	}
	for _, st := range mustCommitted(t, cc, tick) {
		require.False(t, st, "no region of the window is committed")
	}
}

// mustCommitted is whether each region of window tick is committed in c's ledger.
func mustCommitted(t *testing.T, c *pipeline.Crawler, tick int) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, r := range normalize.Regions() {
		done, err := c.Committed(context.Background(), r, uint32(tick))
		require.NoError(t, err)
		out[r] = done
	}
	return out
}
