package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/flagenv"
)

type serveFlags struct {
	listen *string
}

func addServeFlags(fs *flagenv.Set) *serveFlags {
	return &serveFlags{listen: fs.String("listen", "127.0.0.1:8080", "address the API listens on")}
}

// startAPI opens the stores, starts the API and migrates in the background with retries, so a
// store that is down at start delays readiness (/readyz 503) instead of stopping the process.
func startAPI(ctx context.Context, log *slog.Logger, f *storeFlags, sf *serveFlags) (*api.Server, *stores, error) {
	s, err := f.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	migrated := make(chan struct{})
	srv := api.New(api.Config{
		Listen: *sf.listen,
		Log:    log,
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
		},
	})
	if err := srv.Start(); err != nil {
		s.Close()
		return nil, nil, err
	}
	go func() {
		if err := f.migrateWithRetry(ctx, s, log); err == nil {
			close(migrated)
			log.Info("stores ready")
		}
	}()
	return srv, s, nil
}

type notMigrated struct{}

func (notMigrated) Error() string { return "migrations not applied yet" }

var errNotMigrated error = notMigrated{}

func runServe(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("serve", "Run the HTTP API.")
	f := addStoreFlags(fs)
	sf := addServeFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	srv, s, err := startAPI(ctx, log, f, sf)
	if err != nil {
		return err
	}
	<-ctx.Done()
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err = srv.Stop(sctx)
	s.Close()
	return err
}
