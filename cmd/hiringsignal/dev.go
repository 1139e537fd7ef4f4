package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/planehq/hiringsignal/devstack"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

func runDev(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("dev", "Bring the whole stack up with demo data: private Postgres and ClickHouse under --run-dir (unless HS_POSTGRES_URL / HS_CLICKHOUSE_ADDR point elsewhere), migrations, the simulated world, a backfill of --backfill-days, the API, and a crawl every --interval. Ctrl-C stops what it started.")
	f := addStoreFlags(fs)
	sf := addServeFlags(fs)
	kf := addStackFlags(fs)
	cf := addCrawlFlags(fs)
	simf := addSimFlags(fs)
	days := fs.Int("backfill-days", 57, "days of history to backfill before serving; 57 covers the 8 weeks the windowed pulse fields (direction, is_surge) need (committed cycles are skipped on the next run)")
	interval := fs.Duration("interval", 3*time.Hour, "time between crawls")
	if err := parse(fs, args); err != nil {
		return err
	}
	st := kf.stack(log)
	var started devstack.Started
	if os.Getenv("HS_POSTGRES_URL") == "" || os.Getenv("HS_CLICKHOUSE_ADDR") == "" {
		var err error
		if started, err = st.Up(ctx); err != nil {
			return err
		}
		if os.Getenv("HS_POSTGRES_URL") == "" {
			*f.postgresURL = st.PostgresURL()
		}
		if os.Getenv("HS_CLICKHOUSE_ADDR") == "" {
			*f.clickhouseAddr = st.ClickHouseAddr()
		}
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := st.Down(sctx, started); err != nil {
			log.Error("cannot stop stores", "err", err)
		}
	}()

	// The simulated world on loopback; the crawl reads it over HTTP like any source.
	*simf.epoch = *cf.epoch
	world, simSrv, simURL, err := simf.start(log)
	if err != nil {
		return err
	}
	defer simSrv.Close()
	*cf.simURL = simURL

	crawler, cs, err := openCrawler(ctx, log, f, cf)
	if err != nil {
		return err
	}
	defer cs.Close()
	now := world.TickAt(time.Now())
	from := max(0, now-*days*8)
	log.Info("backfilling the demo history", "days", *days, "from_tick", from, "to_tick", now)
	if err := backfill(ctx, log, crawler, simURL, from, now); err != nil {
		return fmt.Errorf("cannot backfill the demo history: %w", err)
	}

	a, err := startAPI(ctx, log, f, sf)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = a.Stop(sctx)
	}()
	key, err := oltp.EnsureDevAccount(ctx, a.stores.pg)
	if err != nil {
		return fmt.Errorf("cannot create the dev account: %w", err)
	}
	if err := waitReady(ctx, a); err != nil {
		return err
	}
	printDemo("http://"+a.srv.Addr(), key, crawler.State().BusiestCompany())

	go crawlLoop(ctx, log, crawler, world, simURL, *interval)
	go crawlJobLoop(ctx, log, crawler, cs.pg, simURL, 2*time.Second)
	<-ctx.Done()
	log.Info("shutting down")
	return nil
}

// crawlLoop crawls the world at the wall clock's tick every interval.
func crawlLoop(ctx context.Context, log *slog.Logger, c *pipeline.Crawler, world *sim.World, simURL string, interval time.Duration) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		tick := world.TickAt(time.Now())
		world.Pin(tick)
		start := time.Now()
		stats, err := c.RunTick(ctx, simURL, tick)
		if err != nil {
			log.Error("crawl failed; will retry next interval", "err", err)
			continue
		}
		logTick(log, stats, time.Since(start))
	}
}

func printDemo(base, key string, companyID uint64) {
	fmt.Printf(`
hiringsignal is up.
  base URL:  %[1]s/v1
  health:    %[1]s/healthz   readiness: %[1]s/readyz
  OpenAPI:   %[1]s/openapi.json

Your key (growth plan; shown once — a new one is minted on every start):
  %[2]s

Try:
  curl -s -H 'X-API-Key: %[2]s' %[1]s/v1/whoami
  curl -s -H 'X-API-Key: %[2]s' %[1]s/v1/companies/%[3]d/is-hiring
  curl -s -H 'Authorization: Bearer %[2]s' '%[1]s/v1/reqs/search?q=engineer&limit=5'

Ctrl-C stops everything this command started.

`, base, key, companyID)
}

// waitReady waits until the read model and search index serve the backfilled history, so the
// printed calls answer with data.
func waitReady(ctx context.Context, a *apiStack) error {
	for !a.models.Ready() || a.index.Current() == nil {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}
