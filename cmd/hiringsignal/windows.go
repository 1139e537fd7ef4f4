package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// crawlOwner names this process in the registry's leases.
func crawlOwner() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// readLoop is a crawl worker: every poll it claims the sources due in the current window, reads
// them and stores what each showed, until none is due.
func readLoop(log *slog.Logger, c *sources.Crawl, now func() time.Time, poll time.Duration) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) {
		for {
			tick := c.Clock.Tick(now())
			if tick >= 0 {
				n, err := c.ReadDue(ctx, tick, false)
				switch {
				case err != nil && ctx.Err() == nil:
					log.Warn("cannot read due sources; will retry", "tick", tick, "err", err)
				case n > 0:
					log.Info("sources read", "tick", tick, "read", n)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(poll):
			}
		}
	}}
}

// commitLoop is the committer: grace after each window ends it commits that window from the
// workers' reads (and, at start, the last window before now if it was read and not committed). A
// window nothing read is left uncommitted: a gap in the history, never an empty window. It sleeps
// until the next window's grace has passed, but never longer than poll when poll is set: a clock
// that moves apart from the wall clock's (the simulator's) is read again every poll.
func commitLoop(log *slog.Logger, c *sources.Crawl, now func() time.Time, grace, poll time.Duration, m crawlMetrics, committed func()) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) {
		for {
			t := now()
			prev := c.Clock.Tick(t.Add(-grace)) - 1 // the last window whose grace has passed
			if prev >= 0 {
				start := time.Now()
				stats, err := c.Commit(ctx, prev, time.Time{})
				if ctx.Err() != nil {
					return
				}
				m.observe(stats, err)
				switch {
				case err != nil:
					log.Error("cannot commit the window; will retry", "tick", prev, "err", err)
				case stats != nil:
					logTick(log, stats, time.Since(start))
					if committed != nil {
						committed()
					}
				}
			}
			wait := c.Clock.Start(c.Clock.Tick(t.Add(-grace)) + 1).Add(grace).Sub(now())
			if poll > 0 {
				wait = min(wait, poll)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(max(wait, time.Second)):
			}
		}
	}}
}

// simClockNow is the registry crawl's clock read from the simulator at url (crawl --clock=sim):
// the start of the tick it serves, so a test or dev that pins its tick moves the windows (the
// window of a tick opens when it is pinned, and its commit comes once a later one is). It reads
// the simulator once first and refuses an --epoch that puts its ticks in other windows; a later
// read that fails keeps the last time read, so the windows stay where they were.
func simClockNow(ctx context.Context, log *slog.Logger, client *http.Client, url string, clock sources.Clock) (func() time.Time, error) {
	read := func(ctx context.Context) (time.Time, error) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		tick, at, err := pipeline.SimTick(ctx, client, url)
		if err != nil {
			return time.Time{}, err
		}
		if got := clock.Tick(at); got != tick {
			return time.Time{}, fmt.Errorf("the simulator's tick %d starts at %s, which --epoch %s puts in window %d: give --epoch the simulator's --sim-epoch",
				tick, at.Format(time.RFC3339), clock.Epoch.Format(time.RFC3339), got)
		}
		return at, nil
	}
	first, err := read(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot run on the simulator's clock (--clock=sim): %w", err)
	}
	var mu sync.Mutex
	last := first
	return func() time.Time {
		at, err := read(ctx)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("cannot read the simulator's clock; the windows stay where they were", "err", err)
			}
			return last
		}
		last = at
		return at
	}, nil
}
