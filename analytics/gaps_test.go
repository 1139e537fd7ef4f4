package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// gapEpoch is tick 0 of the tests below (a Monday); a tick is 3 hours.
var gapEpoch = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

func tickTime(tick uint32) time.Time { return gapEpoch.Add(time.Duration(tick) * 3 * time.Hour) }

// commitTicks commits an empty cycle of region at each of ticks, numbered from next.
func commitTicks(t *testing.T, ch driver.Conn, region string, next uint64, ticks ...uint32) {
	t.Helper()
	for _, tick := range ticks {
		c := analytics.Cycle{Region: region, Tick: tick, CycleTime: tickTime(tick), StartedAt: tickTime(tick), SeqFrom: next, SeqTo: next - 1}
		require.NoError(t, analytics.WriteCycle(context.Background(), ch, &analytics.CycleWrite{Cycle: c}, 1000))
	}
}

func ticks(from, to uint32) []uint32 {
	var out []uint32
	for t := from; t <= to; t++ {
		out = append(out, t)
	}
	return out
}

func TestGapsAreTheMissingRunsOfTicksOfEachCrawlRegion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	none, err := analytics.Gaps(ctx, ch, analytics.AllCommitted, analytics.GapQuery{})
	require.NoError(t, err)
	require.Empty(t, none, "no cycle, no gap")

	// eu: ticks 0..9, down for 10..41 (4 days), back 42..45, one missed tick (46), 47.
	commitTicks(t, ch, "eu", 1, append(append(ticks(0, 9), ticks(42, 45)...), 47)...)
	// na: every tick 0..47, crawled twice at 20 (a rerun row of the same cycle): no gap.
	commitTicks(t, ch, "na", 1, append(ticks(0, 47), 20)...)
	// An on-demand crawl of one company runs on no schedule: never a gap.
	commitTicks(t, ch, analytics.CompanyRegion(7), 1, 3, 30)
	// apac: down for 10..41 too.
	commitTicks(t, ch, "apac", 1, append(ticks(0, 9), ticks(42, 47)...)...)

	outage := func(region string) analytics.Gap {
		return analytics.Gap{Region: region, From: tickTime(9), To: tickTime(42), FromTick: 9, ToTick: 42}
	}
	short := analytics.Gap{Region: "eu", From: tickTime(45), To: tickTime(47), FromTick: 45, ToTick: 47}
	all, err := analytics.Gaps(ctx, ch, analytics.AllCommitted, analytics.GapQuery{})
	require.NoError(t, err)
	require.Equal(t, []analytics.Gap{outage("apac"), outage("eu"), short}, all, "ascending by end, then region")
	require.Equal(t, uint32(32), all[0].Missed())
	require.Equal(t, "2026-11-03T03:00:00Z/2026-11-07T06:00:00Z", all[0].From.Format(time.RFC3339)+"/"+all[0].To.Format(time.RFC3339))
	latest, ok := analytics.LatestGap(all)
	require.True(t, ok)
	require.Equal(t, short, latest)
	_, ok = analytics.LatestGap(nil)
	require.False(t, ok)

	eu, err := analytics.Gaps(ctx, ch, analytics.AllCommitted, analytics.GapQuery{Region: "eu"})
	require.NoError(t, err)
	require.Equal(t, []analytics.Gap{outage("eu"), short}, eu)
	na, err := analytics.Gaps(ctx, ch, analytics.AllCommitted, analytics.GapQuery{Region: "na"})
	require.NoError(t, err)
	require.Empty(t, na, "a region crawled every tick has no gap")

	// Since inside the outage: the outage is found whole (it ends after Since); since after it, not.
	mid, err := analytics.Gaps(ctx, ch, analytics.AllCommitted, analytics.GapQuery{Since: tickTime(20)})
	require.NoError(t, err)
	require.Equal(t, all, mid)
	late, err := analytics.Gaps(ctx, ch, analytics.AllCommitted, analytics.GapQuery{Since: tickTime(42)})
	require.NoError(t, err)
	require.Equal(t, []analytics.Gap{short}, late)

	// The most recent Limit.
	one, err := analytics.Gaps(ctx, ch, analytics.AllCommitted, analytics.GapQuery{Limit: 1})
	require.NoError(t, err)
	require.Equal(t, []analytics.Gap{short}, one)

	// A read snapshot's bound: cycles after its cycle time are not there yet, so neither is the
	// gap they close.
	before, err := analytics.Gaps(ctx, ch, analytics.AtWatermark(0, tickTime(45)), analytics.GapQuery{})
	require.NoError(t, err)
	require.Equal(t, []analytics.Gap{outage("apac"), outage("eu")}, before)
}

func TestGapTouchesTheWeeksItsStretchAndItsEndFallIn(t *testing.T) {
	t.Parallel()
	week := 7 * 24 * time.Hour
	mon := gapEpoch                                                                        // a Monday
	g := analytics.Gap{From: mon.Add(6 * 24 * time.Hour), To: mon.Add(week + 6*time.Hour)} // Sunday 00:00 .. next Monday 06:00
	require.False(t, g.Touches(mon.Add(-week), mon), "the week before")
	require.True(t, g.Touches(mon, mon.Add(week)), "its unobserved stretch")
	require.True(t, g.Touches(mon.Add(week), mon.Add(2*week)), "the week its first cycle after dates the changes in")
	require.False(t, g.Touches(mon.Add(2*week), mon.Add(3*week)))
	// A gap from the last cycle of a week: the week it began in ended observed.
	edge := analytics.Gap{From: mon.Add(week), To: mon.Add(week + 9*time.Hour)}
	require.False(t, edge.Touches(mon, mon.Add(week)))
	require.True(t, edge.Touches(mon.Add(week), mon.Add(2*week)))
}

func TestEventsCarryTheirCloseReasonAndGapBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	at := tickTime(42)
	ev := func(seq uint64, typ string) analytics.Event {
		return analytics.Event{Seq: seq, Type: typ, ReqKey: fmt.Sprintf("%016x", seq), CompanyID: 1, Region: "eu", Tick: 42,
			OccurredAt: at, ObservedAt: at, FirstSeen: at, RawTitle: fmt.Sprintf("Engineer %d", seq), Board: "greenhouse"}
	}
	opened := ev(1, analytics.EventOpened)
	opened.GapFrom, opened.GapTo = tickTime(9), at
	retired := ev(2, analytics.EventClosed)
	retired.CloseReason = analytics.CloseSourceRetired
	plain := ev(3, analytics.EventClosed)
	write := func(evs ...analytics.Event) error {
		c := analytics.Cycle{Region: "eu", Tick: 42, CycleTime: at, StartedAt: at, SeqFrom: evs[0].Seq, SeqTo: evs[len(evs)-1].Seq}
		return analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: evs, Cycle: c}, 1000)
	}

	// What the ledger cannot serve as written is refused before anything is written.
	bad := ev(1, analytics.EventOpened)
	bad.CloseReason = analytics.CloseSourceRetired
	require.ErrorContains(t, write(bad), "close_reason")
	bad = ev(1, analytics.EventClosed)
	bad.CloseReason = "tired"
	require.ErrorContains(t, write(bad), "must be one of source_retired")
	bad = ev(1, analytics.EventOpened)
	bad.GapTo = at
	require.ErrorContains(t, write(bad), "gap bounds")
	bad.GapFrom, bad.GapTo = at, tickTime(9)
	require.ErrorContains(t, write(bad), "from before to")
	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	require.Zero(t, wm, "nothing committed")

	require.NoError(t, write(opened, retired, plain))
	p, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 0, Upper: 3, Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Events, 3)
	require.Equal(t, tickTime(9), p.Events[0].GapFrom)
	require.Equal(t, at, p.Events[0].GapTo)
	require.Empty(t, p.Events[0].CloseReason)
	require.Equal(t, analytics.CloseSourceRetired, p.Events[1].CloseReason)
	require.True(t, p.Events[1].GapFrom.IsZero(), "no gap: the zero time, not the epoch")
	require.True(t, p.Events[1].GapTo.IsZero())
	require.Empty(t, p.Events[2].CloseReason, "an ordinary close")

	// A req's latest event gives its attributes, not the event's own fields: a close the crawl
	// builds from it must not inherit them.
	last, err := analytics.LatestEvents(ctx, ch, 3, []string{opened.ReqKey, retired.ReqKey})
	require.NoError(t, err)
	require.Equal(t, opened.RawTitle, last[opened.ReqKey].RawTitle)
	require.False(t, last[opened.ReqKey].AfterGap())
	require.Empty(t, last[retired.ReqKey].CloseReason)

	// Rows written before the columns existed read as no reason and no gap (the defaults).
	insertEvents(t, ch, 1, synthEvents(4, 4, at, "old"))
	p, err = analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 3, Upper: 4, Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Events, 1)
	require.Empty(t, p.Events[0].CloseReason)
	require.True(t, p.Events[0].GapTo.IsZero())
}
