package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An accelerated clock starts at its world time and runs one cycle per `every` of wall time:
// consecutive ticks begin exactly `every` of wall time apart, and At and WallAt invert each other.
func TestAcceleratedClockSpacesCyclesEvery(t *testing.T) {
	t.Parallel()
	w := New(Config{Companies: 10})
	wall0 := time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC)
	from := time.Date(2026, 11, 23, 15, 45, 0, 0, time.UTC) // 45 min into the cycle of 15:00
	c, err := NewClockAt(20*time.Second, from, wall0)
	require.NoError(t, err)
	require.True(t, c.Accelerated())
	require.Equal(t, from, c.At(wall0))

	t0 := w.TickAt(c.At(wall0))
	first := c.WallAt(w.CycleTime(t0 + 1))
	require.Equal(t, 15*time.Second, first.Sub(wall0), "the rest of the first cycle (135 of 180 min), sped up")
	for k := 1; k <= 1000; k++ {
		start := c.WallAt(w.CycleTime(t0 + k))
		next := c.WallAt(w.CycleTime(t0 + k + 1))
		require.Equal(t, 20*time.Second, next.Sub(start), "cycle %d", k)
		require.Equal(t, t0+k, w.TickAt(c.At(start)), "the world is in tick t0+%d when it begins", k)
		require.Equal(t, t0+k, w.TickAt(c.At(next.Add(-time.Millisecond))), "and still in it just before the next")
	}
	// A day of world time is 8 cycles: 160 s of wall time. A month of wall time (44 years of world time) stays exact.
	require.Equal(t, 160*time.Second, c.Wall(24*time.Hour))
	month := wall0.Add(30 * 24 * time.Hour)
	require.Equal(t, month, c.WallAt(c.At(month)))
	require.Equal(t, from.Add(30*24*time.Hour*540), c.At(month))
}

// The wall clock (nil) and a clock at real speed keep world time = wall time (shifted by the
// start for the latter).
func TestRealClockIsWallTime(t *testing.T) {
	t.Parallel()
	var c *Clock
	now := time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC)
	require.Equal(t, now, c.At(now))
	require.Equal(t, now, c.WallAt(now))
	require.Equal(t, time.Hour, c.Wall(time.Hour))
	require.False(t, c.Accelerated())
	require.Equal(t, TickDuration, c.Every())

	ahead := now.Add(5 * 24 * time.Hour)
	r, err := NewClockAt(TickDuration, ahead, now)
	require.NoError(t, err)
	require.False(t, r.Accelerated())
	require.Equal(t, ahead.Add(time.Hour), r.At(now.Add(time.Hour)))

	_, err = NewClock(0, now)
	require.Error(t, err)
}

// An unpinned world serves the tick of its clock.
func TestWorldServesItsClocksTick(t *testing.T) {
	t.Parallel()
	c, err := NewClock(time.Second, DefaultEpoch().Add(100*TickDuration+time.Minute))
	require.NoError(t, err)
	w := New(Config{Companies: 10, Clock: c})
	require.Equal(t, 100, w.CurrentTick())
	w.Pin(7)
	require.Equal(t, 7, w.CurrentTick())
}
