package main

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/read/snapshot"
	"github.com/planehq/hiringsignal/sim"
)

// devHistory is the demo history of a dev run, committed behind the serving API: the backfill
// runs as a part of its own (started after the API, stopped before it; a stop mid-tick keeps
// what was committed and the next run resumes), then marks the history complete, which lets the
// crawl loop and the on-demand crawls start (gated: they would commit the world's present
// cycle, and history is append-only per region, so the backfill could add nothing after it).
// Until then every /v1 answer carries X-History-Complete: false (addAPI, api.History).
type devHistory struct {
	log     *slog.Logger
	crawler *pipeline.Crawler
	simURL  string
	world   *sim.World
	clock   *sim.Clock
	from    int                                       // first tick to backfill
	snap    func() *snapshot.Snapshot                 // the API's read snapshot (set before Start)
	refresh func(context.Context, bool) (bool, error) // rebuilds the snapshot now if the ledger moved
	done    chan struct{}                             // closed once complete
	state   atomic.Int32                              // historyRunning, historyComplete or historyFailed
}

const (
	historyRunning int32 = iota
	historyComplete
	historyFailed // the backfill failed: the crawl runs on, the history stays incomplete
)

func newDevHistory(log *slog.Logger, c *pipeline.Crawler, simURL string, world *sim.World, clock *sim.Clock, from int) *devHistory {
	return &devHistory{log: log, crawler: c, simURL: simURL, world: world, clock: clock, from: from, done: make(chan struct{})}
}

// Complete reports whether the whole history the run was started with is committed and served.
func (h *devHistory) Complete() bool { return h.state.Load() == historyComplete }

// part is the backfill as a lifecycle part.
func (h *devHistory) part() *lifecycle.Loop {
	return &lifecycle.Loop{Run: h.run}
}

// run backfills from h.from through the world's tick at its start, waits until the read
// snapshot serves the last cycle, and marks the history complete. The cycles the world's clock
// moved on meanwhile (a cycle every few seconds on the accelerated clock) are not backfilled: as
// when a crawl overruns its cycle, the crawl loop then crawls the present cycle and its diff
// carries their changes (catching up cycle by cycle never ends when a cycle takes longer to
// crawl than the clock gives it).
func (h *devHistory) run(ctx context.Context) {
	start := time.Now()
	to := h.world.TickAt(h.clock.Now())
	h.log.Info("backfilling the demo history behind the API", "from_tick", h.from, "to_tick", to,
		"from", h.world.CycleTime(h.from).Format(time.RFC3339), "to", h.world.CycleTime(to).Format(time.RFC3339))
	if err := backfill(ctx, h.log, h.crawler, h.simURL, h.from, to); err != nil {
		if ctx.Err() != nil {
			return // stopped: committed cycles are kept and skipped next time
		}
		h.log.Error("cannot backfill the demo history; the crawl starts without it (answers keep X-History-Complete: false)", "err", err)
		h.state.Store(historyFailed)
		close(h.done)
		return
	}
	// The snapshot follows the ledger by polling, at most every backfillGap meanwhile: rebuilt
	// here at once.
	last := h.world.CycleTime(to)
	for cur := h.snap(); cur.AsOf.Before(last); cur = h.snap() {
		if _, err := h.refresh(ctx, false); err != nil && ctx.Err() == nil {
			h.log.Warn("cannot rebuild the read snapshot after the backfill; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	h.state.Store(historyComplete)
	close(h.done)
	h.log.Info("demo history complete", "through", last.Format(time.RFC3339), "took", time.Since(start).Round(time.Second))
}

// after wraps l so that it runs only once the history is complete (or failed); a stop before
// that ends it without running.
func (h *devHistory) after(l *lifecycle.Loop) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) {
		select {
		case <-ctx.Done():
			return
		case <-h.done:
		}
		l.Run(ctx)
	}}
}
