package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// Every long-running part of a command is a lifecycle.Service in one lifecycle.Group: started
// in order, stopped in reverse, each Stop waiting for what the part started. This file holds the
// parts that belong to the binary rather than to a package.

// storesPart closes the store connections when stopped, after every part that uses them.
type storesPart struct{ s *stores }

func (p storesPart) Start(context.Context) error { return nil }
func (p storesPart) Stop(context.Context) error  { p.s.Close(); return nil }

// addListener adds the process's one Postgres LISTEN connection to g, after the stores s and
// before every part that hears notifications through it (the key cache of the API, the webhook
// dispatcher), so it stops after them. It connects, and reconnects, by itself; its health is on
// set (hs_pg_listener_*).
func addListener(g *lifecycle.Group, log *slog.Logger, s *stores, set *metrics.Set) *pglisten.Listener {
	l := pglisten.New(pglisten.Config{ConnConfig: s.pg.Config().ConnConfig, Log: log.With("part", "pg listener"), Metrics: set})
	g.Add("postgres listener", l)
	return l
}

// devstackPart starts the private Postgres and ClickHouse (those not already running) and stops
// only what it started.
type devstackPart struct {
	st      *devstack.Stack
	started devstack.Started
}

func (p *devstackPart) Start(ctx context.Context) (err error) {
	p.started, err = p.st.Up(ctx)
	return err
}

func (p *devstackPart) Stop(ctx context.Context) error {
	which := p.started
	p.started = devstack.Started{}
	return p.st.Down(ctx, which)
}

// simPart serves the simulated world; Stop shuts its HTTP server down.
type simPart struct {
	f     *simFlags
	log   *slog.Logger
	clock *sim.Clock // the world's time (nil: the wall clock)
	world *sim.World
	srv   *http.Server
	url   string
}

func (p *simPart) Start(context.Context) (err error) {
	if p.srv != nil {
		return nil
	}
	p.world, p.srv, p.url, err = p.f.start(p.log, p.clock)
	return err
}

func (p *simPart) Stop(ctx context.Context) error {
	if p.srv == nil {
		return nil
	}
	err := p.srv.Shutdown(ctx)
	p.srv = nil
	return err
}

// crawlLoop runs one crawl whenever next says (next(true) before the first one, next(false) after
// each crawl) of d's directory at the tick tick says (-1: d's current one). A Stop cancels a
// crawl in progress: the region cycles not committed are rerun by the next crawl (commits are
// idempotent). committed, when set, runs after each crawl that committed.
func crawlLoop(log *slog.Logger, c *pipeline.Crawler, d directory, next func(first bool) time.Duration, tick func() int, committed func(), m crawlMetrics) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) {
		wait := next(true)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			start := time.Now()
			stats, err := crawlOnce(ctx, c, d, tick())
			wait = next(false)
			if ctx.Err() == nil {
				m.observe(stats, err)
			}
			if err != nil {
				if ctx.Err() == nil {
					log.Error("crawl failed; will retry at the next scheduled crawl", "err", err)
				}
				continue
			}
			logTick(log, stats, time.Since(start))
			if committed != nil {
				committed()
			}
		}
	}}
}

// every schedules a crawl each interval (the first at once when now is set).
func every(interval time.Duration, now bool) func(first bool) time.Duration {
	return func(first bool) time.Duration {
		if first && now {
			return 0
		}
		return interval
	}
}

// cycleStarts schedules a crawl at the start of each of the world's cycles on its clock: one
// every --cycle-every of wall time. A crawl that overruns its cycle is followed at once by the
// crawl of the cycle then current (the cycles in between are not crawled, as in production when
// a crawl falls behind: the next diff carries their changes).
func cycleStarts(world *sim.World, clock *sim.Clock) func(bool) time.Duration {
	return func(bool) time.Duration {
		next := world.CycleTime(world.TickAt(clock.Now()) + 1)
		return max(0, time.Until(clock.WallAt(next)))
	}
}

// worldTick crawls the world at its clock's tick, pinning the simulator to it.
func worldTick(world *sim.World, clock *sim.Clock) func() int {
	return func() int {
		t := world.TickAt(clock.Now())
		world.Pin(t)
		return t
	}
}

// crawlJobs claims on-demand crawl jobs every poll (see crawlJobLoop).
// now is the observation time of an on-demand crawl (the world's clock).
func crawlJobs(log *slog.Logger, c *pipeline.Crawler, s *stores, d directory, poll time.Duration, now func() time.Time, committed func()) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) { crawlJobLoop(ctx, log, c, s.pg, d, poll, now, committed) }}
}

// crawlOnce crawls every region of d's directory at tick (-1: the current one).
func crawlOnce(ctx context.Context, c *pipeline.Crawler, d directory, tick int) ([]pipeline.CycleStats, error) {
	dir, err := d.at(ctx, tick)
	if err != nil {
		return nil, err
	}
	return c.RunDirectory(ctx, dir)
}
