package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline/sources"
	"github.com/planehq/hiringsignal/sim"
)

// dev's schedule and served tick follow the world's clock: the next crawl is due at the start of
// the clock's next cycle (at most --cycle-every away) and crawls the clock's tick, and the crawl
// floor and the fire windows are spans of world time.
func TestDevScheduleFollowsTheClock(t *testing.T) {
	t.Parallel()
	world := sim.New(sim.Config{Companies: 10})
	ahead := time.Now().Add(40 * 24 * time.Hour) // a ledger left 40 days ahead by an accelerated run
	clock, err := sim.NewClock(20*time.Second, ahead)
	require.NoError(t, err)

	wait := cycleStarts(world, clock)(true)
	require.Greater(t, wait, time.Duration(0))
	require.LessOrEqual(t, wait, 20*time.Second)
	tick := worldTick(world, clock)()
	require.Equal(t, world.TickAt(ahead), tick, "the world's tick, not the wall clock's")
	require.Equal(t, tick, world.CurrentTick(), "pinned for the crawl")
	require.Greater(t, tick, world.TickAt(time.Now()))

	require.Equal(t, 15*time.Minute*20/(3*60*60), clock.Wall(oltp.CrawlFloor))
	var wall *sim.Clock
	require.Equal(t, oltp.CrawlFloor, wall.Wall(oltp.CrawlFloor), "serve keeps 15 minutes")
	require.WithinDuration(t, time.Now(), wall.Now(), time.Minute)

	// Fire-limit hours are world hours: an hour of world time is 20 s / 3 of wall time here.
	require.Equal(t, oltp.FireWindows{Hour: 20 * time.Second / 3, Week: 7 * 8 * 20 * time.Second, Month: 30 * 8 * 20 * time.Second}, fireWindows(clock))
	require.Equal(t, oltp.RealFireWindows, fireWindows(nil))
}

// TestRegistryCrawlOnTheSimulatorsClock: with --clock=sim the registry crawl's windows are the
// simulator's ticks, its time the start of the tick it serves, so pinning a tick moves the
// windows; an --epoch that puts the simulator's ticks in other windows is refused at start, and a
// simulator that stops answering leaves the windows where they were.
func TestRegistryCrawlOnTheSimulatorsClock(t *testing.T) {
	t.Parallel()
	world := sim.New(sim.Config{Companies: 5})
	srv := httptest.NewServer(world.Handler())
	defer srv.Close()
	log := slog.New(slog.DiscardHandler)
	epoch := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	clock := sources.Clock{Epoch: epoch}
	world.Pin(2600)
	now, err := simClockNow(context.Background(), log, srv.Client(), srv.URL, clock)
	require.NoError(t, err)
	require.Equal(t, world.CycleTime(2600), now())
	require.Equal(t, 2600, clock.Tick(now()))
	world.Pin(2601)
	require.Equal(t, 2601, clock.Tick(now()), "pinning the next tick opens its window")

	_, err = simClockNow(context.Background(), log, srv.Client(), srv.URL, sources.Clock{Epoch: epoch.Add(time.Hour)})
	require.ErrorContains(t, err, "give --epoch the simulator's --sim-epoch")

	srv.Close()
	require.Equal(t, world.CycleTime(2601), now(), "the last time read")
}
