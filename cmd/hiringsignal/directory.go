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
// Postgres on the wall clock (production).
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

// registryDirectory is the source registry in Postgres on the wall clock: the current window is
// the one now falls in, and a cycle's time is when it was read (never a future window end), so
// first_seen and occurred_at are never ahead of the clock.
type registryDirectory struct {
	pool  *pgxpool.Pool
	clock wallClock
}

func (d registryDirectory) at(ctx context.Context, tick int) (*pipeline.Directory, error) {
	now := d.clock.now().UTC().Truncate(time.Second)
	if tick < 0 {
		tick = d.clock.tick(now)
	}
	if tick < 0 {
		return nil, fmt.Errorf("the wall clock %s is before the crawl epoch %s (--epoch)", now.Format(time.RFC3339), d.clock.epoch.Format(time.RFC3339))
	}
	if end := d.clock.start(tick + 1).Add(-time.Second); now.After(end) {
		now = end
	}
	return sources.Directory(ctx, d.pool, tick, now)
}

func (d registryDirectory) describe() string { return "the source registry" }

// wallClock numbers the 3-hour crawl windows from epoch: window t is [epoch+3h·t, epoch+3h·(t+1)).
type wallClock struct {
	epoch time.Time
	now   func() time.Time
}

// Window is the length of one crawl window (a tick).
const Window = 3 * time.Hour

func (c wallClock) tick(t time.Time) int { return int(t.Sub(c.epoch) / Window) }

// start is the beginning of window tick.
func (c wallClock) start(tick int) time.Time { return c.epoch.Add(time.Duration(tick) * Window) }

// untilNext is how long until the next window starts.
func (c wallClock) untilNext() time.Duration {
	now := c.now()
	return max(0, c.start(c.tick(now)+1).Sub(now))
}

func parseEpoch(s string) (time.Time, error) {
	epoch, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("cannot parse --epoch %q (RFC 3339, e.g. 2026-01-05T00:00:00Z): %w", s, err)
	}
	return epoch.UTC(), nil
}
