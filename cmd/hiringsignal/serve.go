package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/api/agent"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/connector"
	"github.com/planehq/hiringsignal/api/deliveries"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/onboarding"
	"github.com/planehq/hiringsignal/api/outcomes"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/api/watches"
	"github.com/planehq/hiringsignal/api/webhooks"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/leader"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/notifier"
	"github.com/planehq/hiringsignal/read/snapshot"
	"github.com/planehq/hiringsignal/sim"
)

type serveFlags struct {
	listen            *string
	demoKey           *string
	webhookSecretKeys *string // see webhookSecretBox
	meteringDir       *string
	meteringQueue     *int
	meteringSync      *time.Duration
	keyMaxInFlight    *int
	baseURL           *string
	siteURL           *string
	trustForwardedFor *bool
	trustedProxies    *string
	refresh           *time.Duration
	fullRebuilds      *bool
	searchSlots       *int
	searchQueueWait   *time.Duration
	leaseTTL          *time.Duration
	limits            *limitFlags

	proxies []netip.Prefix // --trusted-proxies, parsed by check
}

// check refuses what the flags cannot mean before anything starts, and parses what addAPI reads.
func (sf *serveFlags) check() error {
	if *sf.trustForwardedFor {
		return errors.New("cannot start with --trust-forwarded-for: it trusted X-Forwarded-For from every peer, so any client could pick its address; " +
			"name the proxies in front of the API instead with --trusted-proxies (env HS_TRUSTED_PROXIES), e.g. --trusted-proxies 10.0.0.0/8")
	}
	p, err := api.ParseTrustedProxies(*sf.trustedProxies)
	if err != nil {
		return fmt.Errorf("%w (--trusted-proxies, env HS_TRUSTED_PROXIES)", err)
	}
	sf.proxies = p
	return nil
}

func addServeFlags(fs *flagenv.Set) *serveFlags {
	return &serveFlags{
		listen:            fs.String("listen", "127.0.0.1:8080", "address the API listens on"),
		webhookSecretKeys: addWebhookKeyFlag(fs),
		demoKey:           fs.String("demo-key", api.PublicDemoKey, "the shared public demo key (hsk_ format; bills nothing, per-IP limit); empty disables it and revokes the one installed before"),
		meteringDir:       fs.String("metering-dir", "", "write-ahead log of metering for this instance (default <run-dir>/metering; one per instance)"),
		meteringQueue:     fs.Int("metering-queue", 8192, "with --metering-fsync-interval 0: metered calls waiting for the metering disk writer before calls block"),
		meteringSync:      fs.Duration("metering-fsync-interval", 20*time.Millisecond, "a metered call answers once its usage record is written to the metering log (survives a crash of the process); the log is fsynced within this interval (bounds what a machine crash can lose). 0 fsyncs before every answer"),
		keyMaxInFlight:    fs.Int("key-max-inflight", 256, "calls of one key in flight on this instance before 429 key_throttled"),
		baseURL:           fs.String("base-url", "", "public base URL of the API, for links in answers (default: none, links are relative such as /v1/pricing#upgrade; never taken from a request's Host)"),
		siteURL:           fs.String("site-url", "", "site with /upgrade, /purchase and /signup pages (default: links into /v1/pricing)"),
		trustForwardedFor: fs.Bool("trust-forwarded-for", false, "no longer accepted: it trusted X-Forwarded-For from any peer; name the proxies with --trusted-proxies"),
		trustedProxies:    fs.String("trusted-proxies", "", "CIDRs or addresses of the proxies in front of the API, comma-separated (e.g. 10.0.0.0/8): only a connection from one of them has its client address read from X-Forwarded-For (per-address limits, the demo key's caps), and their connections are not capped by --max-conns-per-ip; every other peer is the client, whatever it sends. Empty: no proxy"),
		refresh:           fs.Duration("read-refresh", 5*time.Second, "how often the read model and search index check for a newly committed cycle"),
		fullRebuilds:      fs.Bool("read-full-rebuilds", false, "rebuild the read model and search index from the whole ledger on every commit, instead of applying the companies each commit touched to the current ones"),
		searchSlots:       fs.Int("search-slots", 0, "searches (reqs/search, reqs/qualified, jobs/search) running at once on this instance; 0: 2 x GOMAXPROCS. Refusals are counted in hs_search_gate_rejections_total"),
		searchQueueWait:   fs.Duration("search-queue-wait", 250*time.Millisecond, "how long a search waits for a slot before answering 503 with Retry-After"),
		leaseTTL:          fs.Duration("lease-ttl", leader.DefaultTTL, "lease of the notifier and of the janitor's shared sweeps, which one instance at a time runs: renewed every third of it; an instance that dies is replaced within 4/3 of it, one that stops cleanly within a third"),
		limits:            addLimitFlags(fs),
	}
}

// apiStack is the API process's parts: the server, the read side that follows the ledger and
// the notifier that turns its commits into webhook deliveries.
type apiStack struct {
	srv      *api.Server
	stores   *stores
	snap     *snapshot.Service // the company read model and the search index, of one watermark
	ready    func() bool       // the migrations are applied
	notifier *leader.Elector   // runs the notifier while this instance holds its lease
	janitor  *leader.Elector   // runs the shared sweeps while this instance holds their lease
}

// addAPI adds the API's parts to g, after the stores s and the process's Postgres listener
// (the key cache hears of key and account changes through it): the read side, which migrates with
// retries (a store that is down at start delays readiness, /readyz 503, instead of stopping the
// process) and then builds and follows the company read model and the search index; and the
// server, which listens at once. Stopping in reverse stops the server (in-flight calls finish)
// before the read side, and the read side never starts after its Stop.
//
// push is what the webhook and watch routes need: the box sealing webhook secrets and the URL
// policy (production in serve, dev's allows http and loopback).
//
// Several instances may serve one Postgres: each runs the API, the read side and (addDispatcher)
// a dispatcher, while the notifier and the janitor's shared sweeps run on one instance at a time,
// the one holding their lease (oltp.RoleNotifier, oltp.RoleJanitor; package internal/leader),
// competed for once the migrations are applied.
func addAPI(g *lifecycle.Group, log *slog.Logger, f *storeFlags, s *stores, listener *pglisten.Listener, sf *serveFlags, set *metrics.Set, push pushDeps) *apiStack {
	var snap *snapshot.Service
	var notify *notifier.Notifier
	leases := leaderDeps{pool: s.pg, instance: instanceID(), ttl: *sf.leaseTTL, log: log, set: set}
	var notifyLease *leader.Elector
	built := snapshotMetrics(set, func() *snapshot.Snapshot { return snap.Current() })
	snap = snapshot.New(snapshot.Config{ClickHouse: s.ch, Log: log, Poll: *sf.refresh, MinGap: push.snapshotGap(),
		Policy: snapshot.Policy{Full: *sf.fullRebuilds},
		OnBuild: func(took time.Duration, err error) {
			built(took, err)
			notify.Wake() // a commit: the notifier matches its events at once
		}})
	notify = notifier.New(notifier.Config{Pool: s.pg, ClickHouse: s.ch, Snapshots: snap, Nudge: snap.Nudge, Log: log, Metrics: set,
		FireWindow: fireWindows(push.clock).Hour, // world hours under dev's accelerated clock; fires recorded at wall time
		Fence:      func() (oltp.Fence, bool) { return fence(oltp.RoleNotifier, notifyLease)() }})
	notifyLease = leases.elector(oltp.RoleNotifier, notify)
	meteringDir := *sf.meteringDir
	if meteringDir == "" {
		meteringDir = filepath.Join(runDirDefault(), "metering")
	}
	var migrated atomic.Bool
	srv := api.New(api.Config{
		Listen:            *sf.listen,
		Log:               log,
		Pool:              s.pg,
		Listener:          listener,
		DemoKey:           *sf.demoKey,
		MeteringDir:       meteringDir,
		MeteringQueue:     *sf.meteringQueue,
		MeteringSyncEvery: *sf.meteringSync,
		KeyMaxInFlight:    *sf.keyMaxInFlight,
		BaseURL:           *sf.baseURL,
		SiteURL:           *sf.siteURL,
		TrustedProxies:    sf.proxies,
		Instance:          leases.instance,
		StoreTimeout:      *sf.limits.storeTimeout,
		IPMaxInFlight:     *sf.limits.ipMaxInFlight,
		MaxConns:          *sf.limits.maxConns,
		MaxConnsPerIP:     *sf.limits.maxConnsPerIP,
		ReadHeaderTimeout: *sf.limits.readHeaderTimeout,
		ReadBodyTimeout:   *sf.limits.readBodyTimeout,
		BodyBytesInFlight: *sf.limits.bodyBytesInFlight,
		MaxHeaderBytes:    *sf.limits.maxHeaderBytes,
		ProtocolPerMinute: *sf.limits.protocolPerMinute,
		Metrics:           set,
		History:           push.history(snap),
		Checks: []api.Check{
			{Name: "postgres", Ping: s.pg.Ping},
			{Name: "clickhouse", Ping: s.ch.Ping},
			{Name: "migrations", Ping: func(context.Context) error {
				if !migrated.Load() {
					return errNotMigrated
				}
				return nil
			}},
			{Name: "read model", Ping: func(context.Context) error {
				if !snap.Ready() {
					return errNotBuilt
				}
				return nil
			}},
		},
	})
	account.Register(srv, account.Deps{Pool: s.pg, Log: log})
	// Company ages (coldness, max_age) and the on-demand crawl floor run on the world's clock, and
	// the watch fire counters count world hours (wall time spans scaled by it). Billing, quotas
	// and rate limits stay on the wall clock.
	companies.Register(srv, companies.Deps{Snapshots: snap, Pool: s.pg, Log: log, Now: push.readNow(snap), CrawlFloor: push.clock.Wall(oltp.CrawlFloor)})
	saturated := set.NewCounter("hs_search_gate_rejections_total")
	search.Register(srv, search.Deps{Snapshots: snap, Log: log, MaxInFlight: *sf.searchSlots, QueueWait: *sf.searchQueueWait,
		OnSaturated: saturated.Inc})
	wd := webhooks.Deps{Pool: s.pg, Log: log, Box: push.box, Egress: push.egress}
	if push.mail != nil {
		wd.Email, wd.DigestHour = true, push.mail.hour
	}
	webhooks.Register(srv, wd)
	watches.Register(srv, watches.Deps{Pool: s.pg, Log: log, Box: push.box, Egress: push.egress, Snapshots: snap, FireWindows: fireWindows(push.clock)})
	events.Register(srv, events.Deps{Snapshots: snap, ClickHouse: s.ch, Log: log})
	deliveries.Register(srv, deliveries.Deps{Pool: s.pg, Log: log})
	outcomes.Register(srv, outcomes.Deps{Pool: s.pg, Log: log, Snapshots: snap})
	connector.Register(srv, connector.Deps{Snapshots: snap, Pool: s.pg, Log: log})
	onboarding.Register(srv, onboarding.Deps{Pool: s.pg, Log: log, Box: push.box, Egress: push.egress, Snapshots: snap})
	// The agent interface (/mcp) runs the routes above in-process: registered last.
	agent.Register(agent.Deps{API: srv, Log: log})
	readSide := &lifecycle.Loop{Run: func(ctx context.Context) {
		if err := f.migrateWithRetry(ctx, s, log); err != nil {
			return // stopped before the stores were ready
		}
		if err := srv.StoresReady(ctx); err != nil {
			log.Error("cannot finish API setup (demo key, schema changelog)", "err", err)
		}
		migrated.Store(true)
		log.Info("stores ready")
		if err := snap.Start(ctx); err != nil {
			log.Error("cannot start the read snapshot", "err", err)
		}
		defer func() { _ = snap.Stop(context.Background()) }()
		<-ctx.Done()
	}}
	g.Add("read side", readSide)
	g.Add("api", srv)
	janitor := leases.elector(oltp.RoleJanitor, srv.Janitor())
	g.Add("janitor lease", afterMigrations(log, janitor, migrated.Load))
	// The notifier writes deliveries of the commits the read side learns of, on the instance
	// holding its lease; it stops first.
	g.Add("notifier lease", afterMigrations(log, notifyLease, migrated.Load))
	return &apiStack{srv: srv, stores: s, snap: snap, ready: migrated.Load, notifier: notifyLease, janitor: janitor}
}

// pushDeps are the webhook secret box, the webhook URL policy, the world's clock of a command
// (nil: the wall clock; dev's --cycle-every) and whether its history is complete (nil: always;
// dev backfills behind the serving API).
type pushDeps struct {
	box      *secretbox.Box
	egress   egress.Policy
	mail     *mailDeps // the email digest's relay; nil: no email endpoints
	clock    *sim.Clock
	complete func() bool
}

// history is the api.History of every /v1 answer: complete or not, the committed cycles the
// read snapshot answers from, and the most recent gap in them.
func (p pushDeps) history(snap *snapshot.Service) func() api.History {
	return func() api.History {
		cur := snap.Current()
		h := api.History{Complete: p.complete == nil || p.complete(), From: cur.Model.Since, Through: cur.AsOf}
		if g, ok := cur.LatestGap(); ok {
			h.GapFrom, h.GapTo = g.From, g.To
		}
		return h
	}
}

// snapshotGap is the least time between two polled rebuilds of the read snapshot: backfillGap
// while the history is being committed (nil: none).
func (p pushDeps) snapshotGap() func() time.Duration {
	if p.complete == nil {
		return nil
	}
	return func() time.Duration {
		if p.complete() {
			return 0
		}
		return backfillGap
	}
}

// backfillGap spaces the read snapshot's rebuilds while dev backfills: a build of the growing
// 2,000-company ledger takes seconds, and rebuilding after every commit took about as much CPU as
// the backfill itself. Answers lag the backfill by at most this (X-History-Through says how far).
const backfillGap = 30 * time.Second

// readNow is the "now" of the company reads' ages (coldness, max_age): the world's clock, or,
// while the history is still being committed, the latest committed cycle the answers are as of
// (X-History-Through): a company read by that cycle is as fresh as the answer says, where on the
// world's clock every company would be days cold and answer 202 until the backfill ends.
func (p pushDeps) readNow(snap *snapshot.Service) func() time.Time {
	if p.complete == nil {
		return p.clock.Now
	}
	return func() time.Time {
		if !p.complete() {
			if asOf := snap.Current().AsOf; !asOf.IsZero() {
				return asOf
			}
		}
		return p.clock.Now()
	}
}

// fireWindows are an hour, 7 days and 30 days of the world's clock in wall time (fires are
// recorded at wall time): the spans of the watch fire counters and of the notifier's fire window.
func fireWindows(clock *sim.Clock) oltp.FireWindows {
	w := oltp.RealFireWindows
	return oltp.FireWindows{Hour: clock.Wall(w.Hour), Week: clock.Wall(w.Week), Month: clock.Wall(w.Month)}
}

// runDirDefault is where per-instance files live when --metering-dir is not given: HS_RUN_DIR
// (the dev stack's --run-dir) or .run.
func runDirDefault() string {
	if d := os.Getenv("HS_RUN_DIR"); d != "" {
		return d
	}
	return ".run"
}

type notMigrated struct{}

func (notMigrated) Error() string { return "migrations not applied yet" }

var errNotMigrated error = notMigrated{}

type notBuilt struct{}

func (notBuilt) Error() string { return "company read model or search index not built yet" }

var errNotBuilt error = notBuilt{}

func runServe(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("serve", "Run the HTTP API.")
	f := addStoreFlags(fs)
	sf := addServeFlags(fs)
	df := addDispatchFlags(fs)
	allowPrivate := fs.Bool("allow-private-egress", false, "let webhook endpoints be http:// URLs and loopback or private addresses (a receiver on this machine: tests, a one-machine trial); off, they are refused when registered and at every delivery")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := sf.check(); err != nil {
		return err
	}
	// Refused before anything starts: without keys no webhook secret could be kept.
	box, err := webhookSecretBox(*sf.webhookSecretKeys, false, runDirDefault())
	if err != nil {
		return err
	}
	mail, err := df.mail()
	if err != nil {
		return err
	}
	s, err := f.open(ctx)
	if err != nil {
		return err
	}
	var g lifecycle.Group
	g.Add("stores", storesPart{s})
	set := metrics.NewSet()
	listener := addListener(&g, log, s, set)
	push := pushDeps{box: box, mail: mail, egress: egress.Policy{AllowHTTP: *allowPrivate, AllowPrivate: *allowPrivate}}
	a := addAPI(&g, log, f, s, listener, sf, set, push)
	if err := addDispatcher(ctx, &g, log, f, df, set, push, listener, a.ready); err != nil {
		s.Close()
		return err
	}
	if err := addDigest(ctx, &g, log, f, set, push, a.ready); err != nil {
		s.Close()
		return err
	}
	return runUntilSignal(ctx, log, &g)
}

// runUntilSignal starts g, waits for ctx (SIGINT/SIGTERM) and stops g in reverse order.
func runUntilSignal(ctx context.Context, log *slog.Logger, g *lifecycle.Group) error {
	if err := g.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	return stopGroup(log, g)
}

// stopGroup stops every started part of g, in reverse, within shutdownTimeout.
func stopGroup(log *slog.Logger, g *lifecycle.Group) error {
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := g.Stop(sctx)
	if err == nil {
		log.Info("stopped")
	}
	return err
}

// shutdownTimeout bounds a graceful stop: in-flight calls, a crawl cycle being cancelled, the
// metering log's last flush and the private stores' shutdown.
const shutdownTimeout = 60 * time.Second
