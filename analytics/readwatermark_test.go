package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// TestATickBecomesVisibleToEveryRegionAtOnce: while a tick commits region by region, reads stay
// on the ledger before it (watermark and as_of both), an on-demand cycle committed meanwhile
// included only with the tick; once every region of the tick before committed, the tick is read
// whole.
func TestATickBecomesVisibleToEveryRegionAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	at := func(tick uint32) time.Time {
		return time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(tick) * 3 * time.Hour)
	}
	next := uint64(1)
	commit := func(region string, tick uint32, events uint64) {
		t.Helper()
		c := analytics.Cycle{Region: region, Tick: tick, CycleTime: at(tick), StartedAt: at(tick), Events: events, SeqFrom: next, SeqTo: next + events - 1}
		require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: synthEvents(next, next+events-1, at(tick), region), Cycle: c}, 1000))
		next += events
	}
	read := func() (uint64, time.Time) {
		t.Helper()
		wm, asOf, err := analytics.ReadWatermark(ctx, ch)
		require.NoError(t, err)
		return wm, asOf.UTC()
	}

	wm, _ := read()
	require.Zero(t, wm, "no cycle yet")
	commit("na", 1, 5)
	commit("dach", 1, 3)
	wm, asOf := read()
	require.Equal(t, uint64(8), wm)
	require.Equal(t, at(1), asOf)

	commit("na", 2, 4)        // events 9..12
	commit("company:7", 2, 2) // an on-demand crawl meanwhile: 13..14
	wm, asOf = read()
	require.Equal(t, uint64(8), wm, "dach has not committed tick 2: nothing of tick 2 is read")
	require.Equal(t, at(1), asOf)
	head, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, uint64(14), head, "the ledger's head moved; the read did not")

	commit("dach", 2, 0) // an empty cycle completes the tick too
	wm, asOf = read()
	require.Equal(t, uint64(14), wm)
	require.Equal(t, at(2), asOf)

	// A region that stops committing holds the read back one tick only.
	commit("na", 3, 1)
	wm, _ = read()
	require.Equal(t, uint64(14), wm)
	commit("na", 4, 1)
	wm, asOf = read()
	require.Equal(t, uint64(16), wm)
	require.Equal(t, at(4), asOf)
}
