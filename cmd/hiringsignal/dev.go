package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/sim"
)

func runDev(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("dev", "Bring the whole stack up with demo data: private Postgres and ClickHouse under --run-dir (unless --postgres-url / --clickhouse-addr or HS_POSTGRES_URL / HS_CLICKHOUSE_ADDR point elsewhere), migrations, the simulated world, the API (serving at once), a backfill of --backfill-days behind it, then a crawl at the start of every cycle of the world's clock (one 3-hour cycle every --cycle-every of wall time). Ctrl-C stops what it started.")
	f := addStoreFlags(fs)
	sf := addServeFlags(fs)
	kf := addStackFlags(fs)
	cf := addCrawlFlags(fs)
	df := addDispatchFlags(fs)
	simf := addSimFlags(fs)
	days := fs.Int("backfill-days", 57, "days of history to backfill behind the serving API (answers say X-History-Complete: false until it is committed); 57 covers the 8 weeks the windowed pulse fields (direction, is_surge) need (committed cycles are skipped on the next run)")
	cycleEvery := fs.Duration("cycle-every", sim.TickDuration, "wall time of one 3-hour cycle of the simulated world and the crawl (e.g. 20s: the accelerated clock, deliveries within a minute of creating a watch); every time rule (coldness, max_age, on-demand crawls, the freshness floor, fire-limit hours) reads the same simulated clock. From 1s to 3h")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := sf.check(); err != nil {
		return err
	}
	if *cycleEvery < time.Second || *cycleEvery > sim.TickDuration {
		return fmt.Errorf("cannot run a cycle every %s: --cycle-every (env HS_CYCLE_EVERY) must be from 1s to 3h", *cycleEvery)
	}
	box, err := webhookSecretBox(*sf.webhookSecretKeys, true, *kf.dir)
	if err != nil {
		return err
	}
	// Every part joins one group as soon as it runs, so a signal at any point (during the
	// backfill too) stops exactly what started, in reverse, and waits for it.
	var g lifecycle.Group
	defer func() { _ = stopGroup(log, &g) }()
	if pg, ch := privateStores(fs); pg || ch {
		st := kf.stack(log)
		g.Add("private stores", &devstackPart{st: st})
		if err := g.Start(ctx); err != nil {
			return err
		}
		if pg {
			*f.postgresURL = st.PostgresURL()
		}
		if ch {
			*f.clickhouseAddr = st.ClickHouseAddr()
		}
	}
	// One Postgres pool and one ClickHouse connection for the crawler and the API alike.
	s, err := f.open(ctx)
	if err != nil {
		return err
	}
	g.Add("stores", storesPart{s})
	if err := g.Start(ctx); err != nil {
		return err
	}
	set := metrics.NewSet() // served by the API at /metrics, crawl figures included
	cm := newCrawlMetrics(set)
	crawler, err := newCrawler(ctx, log, f, s, cf, &cm)
	if err != nil {
		return err
	}
	clock, err := devClock(ctx, log, s, *cycleEvery)
	if err != nil {
		return err
	}
	// The simulated world on loopback; the crawl reads it over HTTP like any source.
	*simf.epoch = *cf.epoch
	simulator := &simPart{f: simf, log: log, clock: clock}
	g.Add("simulator", simulator)
	if err := g.Start(ctx); err != nil {
		return err
	}
	*cf.simURL = simulator.url

	// The API serves at once; the demo history is committed behind it (devHistory), and the
	// crawl of the world's present starts once it is complete.
	now := simulator.world.TickAt(clock.Now())
	hist := newDevHistory(log, crawler, simulator.url, simulator.world, clock, max(0, now-*days*8))
	// dev allows http and loopback webhook URLs, so a receiver on this machine works.
	mail, err := df.mail()
	if err != nil {
		return err
	}
	push := pushDeps{box: box, egress: egress.Policy{AllowHTTP: true, AllowPrivate: true}, mail: mail, clock: clock, complete: hist.Complete}
	listener := addListener(&g, log, s, set)
	a := addAPI(&g, log, f, s, listener, sf, set, push)
	if err := addDispatcher(ctx, &g, log, f, df, set, push, listener, a.ready); err != nil {
		return err
	}
	if err := addDigest(ctx, &g, log, f, set, push, a.ready); err != nil {
		return err
	}
	hist.snap, hist.refresh = a.snap.Current, a.snap.Refresh
	g.Add("history backfill", hist.part())
	// The API reads the ledger this process writes: a commit rebuilds its snapshot at once
	// instead of at the next poll.
	g.Add("crawl loop", hist.after(crawlLoop(log, crawler, simDirectory{client: crawler.Fetcher().Client(), url: simulator.url}, cycleStarts(simulator.world, clock), worldTick(simulator.world, clock), a.snap.Nudge, cm)))
	g.Add("crawl jobs", hist.after(crawlJobs(log, crawler, s, simDirectory{client: crawler.Fetcher().Client(), url: simulator.url}, 2*time.Second, clock.Now, a.snap.Nudge)))
	if err := g.Start(ctx); err != nil {
		return err
	}
	key, err := oltp.EnsureDevAccount(ctx, s.pg)
	if err != nil {
		return fmt.Errorf("cannot create the dev account: %w", err)
	}
	company, err := waitDemoCompany(ctx, a)
	if err != nil {
		return nil // stopped before the first cycle was served
	}
	printDemo("http://"+a.srv.Addr(), key, company, clock, hist.Complete())
	<-ctx.Done()
	return nil
}

// privateStores says which stores dev runs itself, under --run-dir: those that neither
// their flag nor their HS_* variable names.
func privateStores(fs *flagenv.Set) (pg, ch bool) {
	return !fs.Given("postgres-url"), !fs.Given("clickhouse-addr")
}

// devClock is the world's clock of a dev run: one cycle every cycleEvery of wall time, starting
// now at the later of the wall clock and the latest committed cycle (a run after an accelerated
// one resumes where the world was, instead of idling until the wall clock catches up with the
// ledger: cycles older than the latest committed one are never crawled).
func devClock(ctx context.Context, log *slog.Logger, s *stores, cycleEvery time.Duration) (*sim.Clock, error) {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, latest, err := analytics.Watermark(rctx, s.ch)
	if err != nil {
		return nil, fmt.Errorf("cannot start the dev clock: %w", err)
	}
	from := time.Now().UTC()
	if latest.After(from) {
		from = latest.UTC()
	}
	clock, err := sim.NewClock(cycleEvery, from)
	if err != nil {
		return nil, fmt.Errorf("cannot start the dev clock (--cycle-every): %w", err)
	}
	if clock.Accelerated() || !latest.Before(time.Now()) {
		log.Info("simulated clock", "cycle_every", cycleEvery, "speedup", float64(sim.TickDuration)/float64(cycleEvery), "world_time", from.Format(time.RFC3339))
	}
	return clock, nil
}

func printDemo(base, key string, companyID uint64, clock *sim.Clock, complete bool) {
	switch world := clock.Now(); {
	case clock.Accelerated():
		fmt.Printf("\nAccelerated clock: one 3-hour cycle every %s of wall time (world time now %s).\n", clock.Every(), world.Format(time.RFC3339))
	case time.Until(world) > time.Minute:
		fmt.Printf("\nWorld time now %s, ahead of the wall clock (an earlier run's accelerated clock); it runs at real speed from there.\n", world.Format(time.RFC3339))
	}
	fmt.Printf(`
hiringsignal is up.
  base URL:  %[1]s/v1
  health:    %[1]s/healthz   readiness: %[1]s/readyz
  reference: %[1]s/docs   (interactive; OpenAPI: %[1]s/openapi.json)

Your key (growth plan; shown once — a new one is minted on every start):
  %[2]s

Try:
  curl -s -H 'X-API-Key: %[2]s' %[1]s/v1/whoami
  curl -s -H 'X-API-Key: %[2]s' %[1]s/v1/companies/%[3]d/is-hiring
  curl -s -H 'Authorization: Bearer %[2]s' '%[1]s/v1/reqs/search?q=engineer&limit=5'
  curl -s -H 'X-API-Key: %[2]s' '%[1]s/v1/events?since=0&limit=3'

Push (dev accepts http and loopback receivers; the secret is shown once):
  curl -s -H 'X-API-Key: %[2]s' -H 'Content-Type: application/json' -d '{"url":"http://127.0.0.1:9999/hook"}' %[1]s/v1/webhooks
  curl -s -H 'X-API-Key: %[2]s' -H 'Content-Type: application/json' -d '{"webhook_endpoint_id":<id>,"company_id":%[3]d}' %[1]s/v1/watches
  curl -s -H 'X-API-Key: %[2]s' %[1]s/v1/watches

Push in one minute (HS_CYCLE_EVERY=20s make run): print every delivery, both signatures verified:
  ./bin/hiringsignal listen --api %[1]s --key %[2]s --company-id %[3]d

Ctrl-C stops everything this command started.

`, base, key, companyID)
	if !complete {
		fmt.Print(`The demo history is still filling in behind the API (progress in the log, "msg=backfill").
Until it is complete every /v1 answer carries X-History-Complete: false and is as of
X-History-Through (curl -i shows them); windowed fields (direction, is_surge, velocity,
new_roles_30d) stay null until the history covers their window. The crawl of the present
starts when it is complete ("demo history complete" in the log).

`)
	}
}

// waitDemoCompany waits until the read snapshot serves a committed cycle (the first cycle of
// the backfill, on a fresh run) and returns the company with the most live reqs in it, so every
// printed call answers with data the moment it is printed.
func waitDemoCompany(ctx context.Context, a *apiStack) (uint64, error) {
	for {
		if a.snap.Ready() {
			if c := a.snap.Current().Model.MostLive(); c != nil {
				return c.ID, nil
			}
		}
		if a.ready() {
			// Built at the first commit, not a snapshot gap later (an error is retried here).
			_, _ = a.snap.Refresh(ctx, false)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
