package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/planehq/hiringsignal/internal/lifecycle"
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
// window nothing read is left uncommitted: a gap in the history, never an empty window.
func commitLoop(log *slog.Logger, c *sources.Crawl, now func() time.Time, grace time.Duration, m crawlMetrics, committed func()) *lifecycle.Loop {
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
			select {
			case <-ctx.Done():
				return
			case <-time.After(max(wait, time.Second)):
			}
		}
	}}
}
