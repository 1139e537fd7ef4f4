package readmodel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
)

func TestMomentumWeeksZeroFill(t *testing.T) {
	t.Parallel()
	mon := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	require.Equal(t, time.Monday, mon.Weekday())
	ws := []week{{day: mondayDay(mon), opened: 3}, {day: mondayDay(mon.Add(2 * Week)), closed: 1}}
	got := momentumWeeks(ws, mon.Add(3*Week+2*Day), mon.Add(9*time.Hour), nil) // observation began Monday 09:00
	require.Len(t, got, 4)
	require.True(t, got[0].Partial, "the coverage-start week began before observation")
	require.False(t, got[1].Partial)
	require.False(t, got[2].Partial)
	require.True(t, got[3].Partial, "the current week has not ended")
	require.Equal(t, mon, got[0].BucketStart)
	require.Equal(t, 3, got[0].Opened)
	require.Equal(t, MomentumWeek{BucketStart: mon.Add(Week)}, got[1])
	require.Equal(t, 1, got[2].Closed)
	require.Equal(t, mon.Add(3*Week), got[3].BucketStart)
	require.Equal(t, []MomentumWeek{}, momentumWeeks(nil, mon, mon, nil))
	require.Equal(t, mondayDay(mon), mondayDay(mon.Add(6*Day+23*time.Hour)))
}

// A week a gap of the company's region touches is partial: the weeks it left unobserved and the
// week of the first cycle after it, which dates the gap's changes at itself.
func TestMomentumWeeksAGapTouchesArePartial(t *testing.T) {
	t.Parallel()
	mon := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	ws := []week{{day: mondayDay(mon), opened: 3}, {day: mondayDay(mon.Add(4 * Week)), opened: 40, closed: 38}}
	now := mon.Add(5*Week + 2*Day)
	// Down from Saturday of week 1 to Tuesday of week 3 (weeks counted from 0).
	gap := analytics.Gap{Region: "eu", From: mon.Add(Week + 5*Day), To: mon.Add(3*Week + Day)}
	got := momentumWeeks(ws, now, mon, []analytics.Gap{gap})
	require.Len(t, got, 6)
	var partial []bool
	for _, w := range got {
		partial = append(partial, w.Partial)
	}
	require.Equal(t, []bool{false, true, true, true, false, true}, partial, "the gap's weeks 1..3, and the current week")
	require.Equal(t, 40, got[4].Opened, "the counts are the ledger's, partial or not")

	// Without the gap the same weeks read as before.
	partial = partial[:0]
	for _, w := range momentumWeeks(ws, now, mon, nil) {
		partial = append(partial, w.Partial)
	}
	require.Equal(t, []bool{false, false, false, false, false, true}, partial)

	// The model gives a company the gaps of its own region only.
	b := NewBuilder(nil, 1, now, []analytics.RegionRead{{Region: "eu", First: mon, Latest: now}, {Region: "na", First: mon, Latest: now}},
		[]analytics.Company{{CompanyID: 1, Region: "eu", Covered: true}, {CompanyID: 2, Region: "na", Covered: true}})
	b.Gaps([]analytics.Gap{gap})
	m := b.Build(Side{Momentum: []analytics.WeekCount{{Key: 1, BucketStart: mon, Opened: 1}, {Key: 2, BucketStart: mon, Opened: 1}}})
	eu, ok := m.Pulse(1)
	require.True(t, ok)
	na, ok := m.Pulse(2)
	require.True(t, ok)
	require.True(t, eu.Momentum[2].Partial, "eu's gap")
	require.False(t, na.Momentum[2].Partial, "na was crawled through it")
}

func TestDirectionAndSurgeRules(t *testing.T) {
	t.Parallel()
	require.Equal(t, "steady", direction(0, 0))
	require.Equal(t, "accelerating", direction(2, 0))
	require.Equal(t, "steady", direction(1, 0))
	require.Equal(t, "steady", direction(12, 10))
	require.Equal(t, "accelerating", direction(13, 10))
	require.Equal(t, "decelerating", direction(7, 10))
	require.Equal(t, "steady", direction(8, 10))
	require.False(t, isSurge(4, 0))
	require.True(t, isSurge(5, 0))
	require.True(t, isSurge(10, 15))
	require.False(t, isSurge(10, 16))
}
