package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// TestALaggingReplicaDelaysReadsNeverSkips: a replica that holds a cycle's commit row but not yet
// its events (here: the row written alone) keeps every reader below it (the read snapshot's
// watermark, the notifier's present watermark, feed pages filtered or not, which end before the
// first missing position), and they catch up once the events arrive; a commit row missing below
// events that are there holds them back the same way.
func TestALaggingReplicaDelaysReadsNeverSkips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	at, cycle := presenceTick, presenceCycle
	reads := func() (snap, present, page, filtered uint64) {
		t.Helper()
		wm, _, err := analytics.ReadWatermark(ctx, ch)
		require.NoError(t, err)
		pwm, _, err := analytics.PresentWatermark(ctx, ch, 8)
		require.NoError(t, err)
		// The pages read with an upper bound a complete replica gave (the head): what a feed page
		// or a notifier batch reads when its bound came from another replica.
		p, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 8, Upper: 20, Limit: 100})
		require.NoError(t, err)
		require.Equal(t, span(9, p.Next), seqs(p.Events), "an unfiltered page has every position up to its cursor")
		f, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 8, Upper: 20, Limit: 100, Span: 100, CompanyIDs: []uint64{1, 2}})
		require.NoError(t, err)
		require.Equal(t, span(9, f.Next), seqs(f.Events), "every event of the ledger is of company 1 or 2")
		return wm, pwm, p.Next, f.Next
	}

	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: synthEvents(1, 10, at(1), "a"), Cycle: cycle(1, 1, 10)}, 1000))
	snap, present, page, filtered := reads()
	require.Equal(t, []uint64{10, 10, 10, 10}, []uint64{snap, present, page, filtered})

	// Tick 2's commit row is there, its events are not.
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Cycle: cycle(2, 11, 15)}, 1000))
	head, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, uint64(15), head)
	snap, present, page, filtered = reads()
	require.Equal(t, []uint64{10, 10, 10, 10}, []uint64{snap, present, page, filtered}, "every reader stays below the commit row whose events are missing")

	// Its events arrive but for one: still below it (the page up to the position before it).
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: synthEvents(11, 15, at(2), "b")[:2], Cycle: cycle(2, 11, 15)}, 1000))
	insertEvents(t, ch, 1, synthEvents(14, 15, at(2), "b"))
	snap, present, page, filtered = reads()
	require.Equal(t, []uint64{10, 10, 12, 12}, []uint64{snap, present, page, filtered})

	// All of them: every reader catches up.
	insertEvents(t, ch, 1, synthEvents(13, 13, at(2), "b"))
	snap, present, page, filtered = reads()
	require.Equal(t, []uint64{15, 15, 15, 15}, []uint64{snap, present, page, filtered})

	// Events of tick 3 without their commit row, tick 4 committed above them: the readers stay
	// at 15 until tick 3's row arrives.
	insertEvents(t, ch, 1, synthEvents(16, 18, at(3), "c"))
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: synthEvents(19, 20, at(4), "d"), Cycle: cycle(4, 19, 20)}, 1000))
	wm, _, err := analytics.ReadWatermark(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, uint64(15), wm)
	pwm, _, err := analytics.PresentWatermark(ctx, ch, 15)
	require.NoError(t, err)
	require.Equal(t, uint64(15), pwm)
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Cycle: cycle(3, 16, 18)}, 1000))
	wm, asOf, err := analytics.ReadWatermark(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, uint64(20), wm)
	require.Equal(t, at(4), asOf.UTC())
}

// TestThePresenceCheckCountsFromTheBoundTheSameReplicaProved: ReadWatermarkAbove counts only the
// events above a bound it proved before while the replica that proved it answers (a hole below
// the bound is not looked for again), and counts from the first event when the bound names
// another replica, the same one restarted, or another database.
func TestThePresenceCheckCountsFromTheBoundTheSameReplicaProved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	at, cycle := presenceTick, presenceCycle
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: synthEvents(1, 10, at(1), "a"), Cycle: cycle(1, 1, 10)}, 1000))
	wm, _, p1, err := analytics.ReadWatermarkAbove(ctx, ch, analytics.Present{})
	require.NoError(t, err)
	require.Equal(t, uint64(10), wm)
	require.Equal(t, uint64(10), p1.Watermark)
	require.NotEmpty(t, p1.Replica.Host)
	require.NotZero(t, p1.Replica.Database)

	// Nothing committed above it: the same bound, whoever counts.
	wm, _, p, err := analytics.ReadWatermarkAbove(ctx, ch, p1)
	require.NoError(t, err)
	require.Equal(t, uint64(10), wm)
	require.Equal(t, p1.Watermark, p.Watermark)

	// Tick 2 committed with event 13 missing, tick 3 whole above it: the bound stays at 10.
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: synthEvents(11, 12, at(2), "b"), Cycle: cycle(2, 11, 15)}, 1000))
	insertEvents(t, ch, 1, synthEvents(14, 15, at(2), "b"))
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: synthEvents(16, 20, at(3), "c"), Cycle: cycle(3, 16, 20)}, 1000))
	wm, _, p, err = analytics.ReadWatermarkAbove(ctx, ch, p1)
	require.NoError(t, err)
	require.Equal(t, uint64(10), wm, "a lagging replica holds the reader below the missing event")
	require.Equal(t, p1, p)

	// A bound of 15 this replica proved (as if it had held event 13 then): only 16..20 are
	// counted, so the hole below it is not seen.
	claimed := analytics.Present{Watermark: 15, Replica: p1.Replica}
	wm, _, p, err = analytics.ReadWatermarkAbove(ctx, ch, claimed)
	require.NoError(t, err)
	require.Equal(t, uint64(20), wm, "counted from the bound the same replica proved")
	require.Equal(t, uint64(20), p.Watermark)
	require.True(t, p.Replica.Same(p1.Replica))

	// The same claim from another replica, a restarted server or another database: counted from
	// the first event, which finds the hole.
	other := claimed
	other.Replica.Host += "-other"
	restarted := claimed
	restarted.Replica.Started = restarted.Replica.Started.Add(time.Hour)
	otherDB := claimed
	otherDB.Replica.Database += "_other"
	for what, known := range map[string]analytics.Present{"another host": other, "a restart": restarted, "another database": otherDB} {
		wm, _, p, err = analytics.ReadWatermarkAbove(ctx, ch, known)
		require.NoError(t, err, what)
		require.Equal(t, uint64(10), wm, "%s: counted from the first event", what)
		require.Equal(t, uint64(10), p.Watermark, what)
		require.True(t, p.Replica.Same(p1.Replica), what)
	}
	// Nothing above the claimed bound on another replica: it is counted from the first event too.
	wm, _, _, err = analytics.ReadWatermarkAbove(ctx, ch, analytics.Present{Watermark: 20, Replica: other.Replica})
	require.NoError(t, err)
	require.Equal(t, uint64(10), wm)

	// Event 13 arrives: counted from 10, the reader catches up.
	insertEvents(t, ch, 1, synthEvents(13, 13, at(2), "b"))
	wm, asOf, p, err := analytics.ReadWatermarkAbove(ctx, ch, p1)
	require.NoError(t, err)
	require.Equal(t, uint64(20), wm)
	require.Equal(t, at(3), asOf.UTC())
	require.Equal(t, uint64(20), p.Watermark)
}

// presenceTick is the cycle time of tick in the presence tests' region.
func presenceTick(tick uint32) time.Time {
	return time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(tick) * 3 * time.Hour)
}

// presenceCycle is the eu cycle of tick committing events from to to.
func presenceCycle(tick uint32, from, to uint64) analytics.Cycle {
	return analytics.Cycle{Region: "eu", Tick: tick, CycleTime: presenceTick(tick), StartedAt: presenceTick(tick), Events: to - from + 1, SeqFrom: from, SeqTo: to}
}
