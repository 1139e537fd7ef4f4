package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/readmodel"
	"github.com/planehq/hiringsignal/searchindex"
)

type serveFlags struct {
	listen            *string
	demoKey           *string
	meteringDir       *string
	meteringQueue     *int
	meteringSync      *time.Duration
	keyMaxInFlight    *int
	baseURL           *string
	siteURL           *string
	trustForwardedFor *bool
	refresh           *time.Duration
}

func addServeFlags(fs *flagenv.Set) *serveFlags {
	return &serveFlags{
		listen:            fs.String("listen", "127.0.0.1:8080", "address the API listens on"),
		demoKey:           fs.String("demo-key", api.PublicDemoKey, "the shared public demo key (hsk_ format; bills nothing, per-IP limit); empty disables it"),
		meteringDir:       fs.String("metering-dir", "", "write-ahead log of metering for this instance (default <run-dir>/metering; one per instance)"),
		meteringQueue:     fs.Int("metering-queue", 8192, "with --metering-fsync-interval 0: metered calls waiting for the metering disk writer before calls block"),
		meteringSync:      fs.Duration("metering-fsync-interval", 20*time.Millisecond, "a metered call answers once its usage record is written to the metering log (survives a crash of the process); the log is fsynced within this interval (bounds what a machine crash can lose). 0 fsyncs before every answer"),
		keyMaxInFlight:    fs.Int("key-max-inflight", 256, "calls of one key in flight on this instance before 429 key_throttled"),
		baseURL:           fs.String("base-url", "", "public base URL of the API (default: http:// + the request's Host)"),
		siteURL:           fs.String("site-url", "", "site with /upgrade, /purchase and /signup pages (default: links into /v1/pricing)"),
		trustForwardedFor: fs.Bool("trust-forwarded-for", false, "take the client IP from X-Forwarded-For (only behind a trusted proxy)"),
		refresh:           fs.Duration("read-refresh", 5*time.Second, "how often the read model and search index check for a newly committed cycle"),
	}
}

// apiStack is the API process's long-running parts, stopped in reverse order of start.
type apiStack struct {
	srv    *api.Server
	stores *stores
	models *readmodel.Store
	index  *searchindex.Service
}

// Stop stops accepting calls, lets in-flight ones finish, stops the read models, closes the stores.
func (a *apiStack) Stop(ctx context.Context) error {
	err := a.srv.Stop(ctx)
	_ = a.index.Stop(ctx)
	a.models.Stop()
	a.stores.Close()
	return err
}

// startAPI opens the stores, starts the API and migrates in the background with retries, so a
// store that is down at start delays readiness (/readyz 503) instead of stopping the process.
// Once migrated, the company read model and the search index build and follow the ledger.
func startAPI(ctx context.Context, log *slog.Logger, f *storeFlags, sf *serveFlags) (*apiStack, error) {
	s, err := f.open(ctx)
	if err != nil {
		return nil, err
	}
	models := readmodel.NewStore(s.ch, log, *sf.refresh)
	index := searchindex.New(searchindex.Config{ClickHouse: s.ch, Log: log, Poll: *sf.refresh})
	meteringDir := *sf.meteringDir
	if meteringDir == "" {
		meteringDir = filepath.Join(runDirDefault(), "metering")
	}
	migrated := make(chan struct{})
	srv := api.New(api.Config{
		Listen:            *sf.listen,
		Log:               log,
		Pool:              s.pg,
		ClickHouse:        s.ch,
		DemoKey:           *sf.demoKey,
		MeteringDir:       meteringDir,
		MeteringQueue:     *sf.meteringQueue,
		MeteringSyncEvery: *sf.meteringSync,
		KeyMaxInFlight:    *sf.keyMaxInFlight,
		BaseURL:           *sf.baseURL,
		SiteURL:           *sf.siteURL,
		TrustForwardedFor: *sf.trustForwardedFor,
		Checks: []api.Check{
			{Name: "postgres", Ping: s.pg.Ping},
			{Name: "clickhouse", Ping: s.ch.Ping},
			{Name: "migrations", Ping: func(context.Context) error {
				select {
				case <-migrated:
					return nil
				default:
					return errNotMigrated
				}
			}},
			{Name: "read model", Ping: func(context.Context) error {
				if !models.Ready() || index.Current() == nil {
					return errNotBuilt
				}
				return nil
			}},
		},
	})
	companies.Register(srv, companies.Deps{Models: models, Pool: s.pg, Log: log})
	search.Register(srv, search.Deps{Index: index, Log: log,
		Pulses: search.PulsesFunc(func(id uint64) (readmodel.Pulse, bool) { return models.Current().Pulse(id) })})
	if err := srv.Start(); err != nil {
		s.Close()
		return nil, err
	}
	go func() {
		if err := f.migrateWithRetry(ctx, s, log); err == nil {
			if err := srv.StoresReady(ctx); err != nil {
				log.Error("cannot finish API setup (demo key, schema changelog)", "err", err)
			}
			close(migrated)
			log.Info("stores ready")
			models.Start(ctx)
			if err := index.Start(ctx); err != nil {
				log.Error("cannot start the search index", "err", err)
			}
		}
	}()
	return &apiStack{srv: srv, stores: s, models: models, index: index}, nil
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
	if err := parse(fs, args); err != nil {
		return err
	}
	a, err := startAPI(ctx, log, f, sf)
	if err != nil {
		return err
	}
	<-ctx.Done()
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return a.Stop(sctx)
}
