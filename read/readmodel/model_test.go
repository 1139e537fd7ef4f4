package readmodel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMomentumWeeksZeroFill(t *testing.T) {
	t.Parallel()
	mon := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	require.Equal(t, time.Monday, mon.Weekday())
	ws := []week{{day: mondayDay(mon), opened: 3}, {day: mondayDay(mon.Add(2 * Week)), closed: 1}}
	got := momentumWeeks(ws, mon.Add(3*Week+2*Day), mon.Add(9*time.Hour)) // observation began Monday 09:00
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
	require.Equal(t, []MomentumWeek{}, momentumWeeks(nil, mon, mon))
	require.Equal(t, mondayDay(mon), mondayDay(mon.Add(6*Day+23*time.Hour)))
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
