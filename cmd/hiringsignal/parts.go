package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/planehq/hiringsignal/devstack"
	"github.com/planehq/hiringsignal/lifecycle"
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
	world *sim.World
	srv   *http.Server
	url   string
}

func (p *simPart) Start(context.Context) (err error) {
	if p.srv != nil {
		return nil
	}
	p.world, p.srv, p.url, err = p.f.start(p.log)
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

// crawlLoop runs one crawl every interval (the first one at once when now is set); tick says
// which tick to crawl (-1: the simulator's current one). A Stop cancels a crawl in progress: the
// region cycles not committed are rerun by the next crawl (commits are idempotent).
// committed, when set, runs after each crawl that committed.
func crawlLoop(log *slog.Logger, c *pipeline.Crawler, simURL string, interval time.Duration, now bool, tick func() int, committed func(), m crawlMetrics) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) {
		wait := interval
		if now {
			wait = 0
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = interval
			start := time.Now()
			stats, err := c.RunTick(ctx, simURL, tick())
			if ctx.Err() == nil {
				m.observe(stats, err)
			}
			if err != nil {
				if ctx.Err() == nil {
					log.Error("crawl failed; will retry next interval", "err", err)
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

// worldTick crawls the world at the wall clock's tick, pinning the simulator to it.
func worldTick(world *sim.World) func() int {
	return func() int {
		t := world.TickAt(time.Now())
		world.Pin(t)
		return t
	}
}

// crawlJobs claims on-demand crawl jobs every poll (see crawlJobLoop).
func crawlJobs(log *slog.Logger, c *pipeline.Crawler, s *stores, simURL string, poll time.Duration, committed func()) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) { crawlJobLoop(ctx, log, c, s.pg, simURL, poll, committed) }}
}
