package sim

import (
	"fmt"
	"time"
)

// Clock is the world's time: the wall clock, or the wall clock sped up so that one cycle
// (TickDuration of world time) passes every `every` of wall time. It starts at a given world time
// at a given wall time and runs from there at its speed. A nil *Clock is the wall clock itself.
//
// Everything time-dependent in a dev stack reads the same Clock: the served tick, the crawl
// schedule, the observation time of on-demand crawls, and the rules that compare an age with "now"
// (coldness, max_age, fire-limit hours). It holds no mutable state, so it is safe to share.
type Clock struct {
	every time.Duration // wall time per cycle; TickDuration: real time
	wall0 time.Time     // wall time at which the clock read from
	from  time.Time     // world time at wall0
}

// NewClock returns a clock that reads from now and runs one cycle (3 h) every `every` of wall
// time (every == TickDuration: real time, shifted by from − now). every must be positive.
func NewClock(every time.Duration, from time.Time) (*Clock, error) {
	return NewClockAt(every, from, time.Now())
}

// NewClockAt is NewClock started at wall time wall0 instead of now (tests pin it).
func NewClockAt(every time.Duration, from, wall0 time.Time) (*Clock, error) {
	if every <= 0 {
		return nil, fmt.Errorf("a cycle must take a positive wall time, not %s", every)
	}
	return &Clock{every: every, wall0: wall0, from: from.UTC()}, nil
}

// Every is the wall time one cycle takes (TickDuration for the wall clock).
func (c *Clock) Every() time.Duration {
	if c == nil {
		return TickDuration
	}
	return c.every
}

// Accelerated reports whether world time runs faster than wall time.
func (c *Clock) Accelerated() bool { return c.Every() < TickDuration }

// Now is the world time now.
func (c *Clock) Now() time.Time { return c.At(time.Now()) }

// At is the world time at wall time t.
func (c *Clock) At(wall time.Time) time.Time {
	if c == nil {
		return wall.UTC()
	}
	return c.from.Add(scale(wall.Sub(c.wall0), TickDuration, c.every))
}

// WallAt is the wall time at which the clock reads world time t (the inverse of At).
func (c *Clock) WallAt(t time.Time) time.Time {
	if c == nil {
		return t
	}
	return c.wall0.Add(scale(t.Sub(c.from), c.every, TickDuration))
}

// Wall is how much wall time a span d of world time takes (d itself for the wall clock).
func (c *Clock) Wall(d time.Duration) time.Duration {
	if c == nil {
		return d
	}
	return scale(d, c.every, TickDuration)
}

// scale returns d*num/den without overflowing for spans of years: whole dens exactly, the rest
// in floating point (sub-nanosecond error).
func scale(d, num, den time.Duration) time.Duration {
	whole, rest := d/den, d%den
	return whole*num + time.Duration(float64(rest)*float64(num)/float64(den))
}
