package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// directory is where a crawl learns its companies and sources, and which window it is: the
// simulator's directory on its virtual clock (dev, backfill, tests), or the source registry in
// Postgres on the wall clock (production; the simulator's clock in tests: crawl --clock=sim).
type directory interface {
	// at returns the directory of tick (tick < 0: the current one).
	at(ctx context.Context, tick int) (*pipeline.Directory, error)
	// describe names the directory in logs and errors.
	describe() string
}

// simDirectory is the simulator's GET /_sim/directory.
type simDirectory struct {
	client *http.Client
	url    string
}

func (d simDirectory) at(ctx context.Context, tick int) (*pipeline.Directory, error) {
	return pipeline.FetchDirectory(ctx, d.client, d.url, tick)
}

func (d simDirectory) describe() string { return "the simulator at " + d.url }

// registryDirectory is the source registry in Postgres on the crawl's clock (the wall clock, or
// the simulator's with crawl --clock=sim): the current window is the one now falls in, and a
// cycle's time is when it was read (never a future window end), so first_seen and occurred_at are
// never ahead of the clock.
type registryDirectory struct {
	pool  *pgxpool.Pool
	clock crawlClock
	crawl *sources.Crawl // on-demand crawls claim their company's sources through its leases; nil: they read without
}

func (d registryDirectory) at(ctx context.Context, tick int) (*pipeline.Directory, error) {
	now := d.clock.now().UTC().Truncate(time.Second)
	if tick < 0 {
		tick = d.clock.Tick(now)
	}
	if tick < 0 {
		return nil, fmt.Errorf("the crawl's clock (--clock) reads %s, before the crawl epoch %s (--epoch)", now.Format(time.RFC3339), d.clock.Epoch.Format(time.RFC3339))
	}
	if end := d.clock.Start(tick + 1).Add(-time.Second); now.After(end) {
		now = end
	}
	return sources.Directory(ctx, d.pool, tick, now)
}

func (d registryDirectory) describe() string { return "the source registry" }

// discoverCold queues the discovery of a company an on-demand read asked for while the registry
// holds no source of it, ahead of every coverage request.
func (d registryDirectory) discoverCold(ctx context.Context, domain, name string) error {
	return sources.EnqueueOnDemand(ctx, d.pool, domain, name)
}

// crawlCompany is the on-demand crawl of the company at domain through the registry's leases
// (sources.Crawl.CrawlCompany), so no worker reads one of its sources at the same time.
func (d registryDirectory) crawlCompany(ctx context.Context, c *pipeline.Crawler, dir *pipeline.Directory, domain string, now time.Time) (pipeline.CycleStats, error) {
	if d.crawl == nil {
		return c.RunCompany(ctx, dir, domain, now)
	}
	return d.crawl.CrawlCompany(ctx, dir, domain, now)
}

// crawlClock is the registry crawl's window clock read at now: the wall clock, or the simulator's
// (crawl --clock=sim, simClockNow).
type crawlClock struct {
	sources.Clock
	now func() time.Time
}

func parseEpoch(s string) (time.Time, error) {
	epoch, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("cannot parse --epoch %q (RFC 3339, e.g. 2026-01-05T00:00:00Z): %w", s, err)
	}
	return epoch.UTC(), nil
}
