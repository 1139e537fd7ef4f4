package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/planehq/hiringsignal/devstack"
	"github.com/planehq/hiringsignal/internal/flagenv"
)

func runDev(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("dev", "Bring the whole stack up: private Postgres and ClickHouse under --run-dir (unless HS_POSTGRES_URL / HS_CLICKHOUSE_ADDR point elsewhere), migrations, the API. Ctrl-C stops what it started.")
	f := addStoreFlags(fs)
	sf := addServeFlags(fs)
	kf := addStackFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	st := kf.stack(log)
	var started devstack.Started
	if os.Getenv("HS_POSTGRES_URL") == "" || os.Getenv("HS_CLICKHOUSE_ADDR") == "" {
		var err error
		started, err = st.Up(ctx)
		if err != nil {
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
	srv, s, err := startAPI(ctx, log, f, sf)
	if err != nil {
		return err
	}
	defer s.Close()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = srv.Stop(sctx)
	}()
	base := "http://" + srv.Addr()
	fmt.Printf("\nhiringsignal is up.\n  base URL:  %s/v1\n  health:    %s/healthz\n  readiness: %s/readyz\n\nCtrl-C stops everything this command started.\n\n", base, base, base)
	<-ctx.Done()
	log.Info("shutting down")
	return nil
}
