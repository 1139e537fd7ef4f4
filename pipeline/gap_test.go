package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// TestOpeningsAfterAGapAreDatedInsideIt: the crawl stops for a day of windows; the reqs first
// seen after it are dated by their posted date inside the gap where they have one, never as if
// published in the last window, and a crawler restarted after the gap knows where it began.
func TestOpeningsAfterAGapAreDatedInsideIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	world, base := simServer(t, sim.Config{Seed: 11, Companies: 120, NoGzip: true})
	ch, _ := storetest.ClickHouse(t, "pipeline")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	const first, last, after = 700, 703, 712 // ticks 704..711 (a day) are not crawled
	for tick := first; tick <= last; tick++ {
		world.Pin(tick)
		_, err := c.RunTick(ctx, base, tick)
		require.NoError(t, err)
	}
	// A restarted crawler reads where each region's history stopped from the ledger.
	c, err = pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	world.Pin(after)
	_, err = c.RunTick(ctx, base, after)
	require.NoError(t, err)

	gapFrom, cycleAt := world.CycleTime(last), world.CycleTime(after)
	rows, err := ch.Query(ctx, "SELECT occurred_at, posted_at, gap_from, gap_to FROM events WHERE tick = ? AND event_type = 'opened'", uint32(after))
	require.NoError(t, err)
	defer rows.Close()
	inGap, fresh := 0, 0
	for rows.Next() {
		var occurred time.Time
		var posted *time.Time
		var from, to time.Time
		require.NoError(t, rows.Scan(&occurred, &posted, &from, &to))
		require.Equal(t, gapFrom.UTC(), from.UTC(), "an opening after a gap carries its bounds")
		require.Equal(t, cycleAt.UTC(), to.UTC())
		if posted != nil && posted.After(gapFrom) && posted.Before(cycleAt) {
			require.Equal(t, posted.UTC(), occurred.UTC(), "an opening posted inside the gap is dated by its posted date")
		}
		if occurred.Before(cycleAt.Add(-3 * time.Hour)) {
			inGap++
			require.True(t, occurred.After(gapFrom), "no opening after the gap is dated before it")
		} else {
			fresh++
		}
	}
	require.NoError(t, rows.Err())
	t.Logf("openings after the gap: %d dated inside it, %d in the last window", inGap, fresh)
	require.Positive(t, inGap, "a day of openings must not all look fresh")
}
