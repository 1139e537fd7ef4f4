package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/oltp"
)

var errHelp = errors.New("help shown")

func parse(fs *flagenv.Set, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return err
	}
	return nil
}

// storeFlags are the flags every command that talks to the stores shares.
type storeFlags struct {
	postgresURL, clickhouseAddr, clickhouseDB, clickhouseUser, clickhousePassword, onCluster *string
	insertQuorum                                                                             *int
}

func addStoreFlags(fs *flagenv.Set) *storeFlags {
	def := devstack.Stack{PostgresPort: devstack.DefaultPostgresPort, ClickHousePort: devstack.DefaultClickHousePort}
	// HS_CLICKHOUSE_CLUSTER names the local test cluster's addresses (make test-cluster).
	fs.EnvName("clickhouse-cluster", "HS_CLICKHOUSE_CLUSTER_NAME")
	return &storeFlags{
		postgresURL: fs.String("postgres-url", def.PostgresURL(), "Postgres URL (default: the private instance that make run starts)"),
		clickhouseAddr: fs.String("clickhouse-addr", def.ClickHouseAddr(),
			"ClickHouse native-protocol host:port (default: the private instance); in cluster mode every replica, comma-separated: connections go to the first that answers"),
		clickhouseDB:       fs.String("clickhouse-database", devstack.Database, "ClickHouse database"),
		clickhouseUser:     fs.String("clickhouse-user", "default", "ClickHouse user"),
		clickhousePassword: fs.String("clickhouse-password", "", "ClickHouse password"),
		onCluster: fs.String("clickhouse-cluster", "",
			"ClickHouse cluster (remote_servers) of a replicated deployment, one shard of N replicas: tables Replicated, DDL ON CLUSTER, quorum writes; "+
				"migrations then run only in `hiringsignal migrate` (empty on one server; docs/deployment.md)"),
		insertQuorum: fs.Int("clickhouse-insert-quorum", 0,
			"replicas that must hold each block of a crawl cycle before it is acknowledged (0: a majority of the replicas in cluster mode, none on one server; 1: none)"),
	}
}

func (f *storeFlags) chOptions() analytics.Options {
	return analytics.Options{Addr: *f.clickhouseAddr, Database: *f.clickhouseDB, User: *f.clickhouseUser, Password: *f.clickhousePassword,
		OnCluster: *f.onCluster, InsertQuorum: *f.insertQuorum}
}

type stores struct {
	pg *pgxpool.Pool
	ch driver.Conn
}

func (s *stores) Close() {
	if s.ch != nil {
		s.ch.Close()
	}
	if s.pg != nil {
		s.pg.Close()
	}
}

// open opens both stores lazily (no connection is made yet).
func (f *storeFlags) open(ctx context.Context) (*stores, error) {
	pg, err := oltp.Open(ctx, *f.postgresURL)
	if err != nil {
		return nil, err
	}
	ch, err := analytics.Open(f.chOptions())
	if err != nil {
		pg.Close()
		return nil, err
	}
	return &stores{pg: pg, ch: ch}, nil
}

// migrateAll applies both stores' migrations once (`hiringsignal migrate`).
func (f *storeFlags) migrateAll(ctx context.Context, s *stores, log *slog.Logger) error {
	if err := oltp.Migrate(ctx, s.pg, log); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := analytics.EnsureDatabase(ctx, f.chOptions()); err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	if err := analytics.Migrate(ctx, s.ch, f.chOptions(), log); err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	return nil
}

// prepareStores readies the stores for serve and crawl: migrateAll on one ClickHouse server; in
// cluster mode, where `hiringsignal migrate` migrates ClickHouse once per deploy, Postgres'
// migrations and a check that ClickHouse's schema is this binary's.
func (f *storeFlags) prepareStores(ctx context.Context, s *stores, log *slog.Logger) error {
	if *f.onCluster == "" {
		return f.migrateAll(ctx, s, log)
	}
	if err := oltp.Migrate(ctx, s.pg, log); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := analytics.CheckSchema(ctx, s.ch, f.chOptions()); err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	return nil
}

// migrateWithRetry retries prepareStores with backoff until it succeeds or ctx ends, logging which
// store failed and why.
func (f *storeFlags) migrateWithRetry(ctx context.Context, s *stores, log *slog.Logger) error {
	backoff := 500 * time.Millisecond
	for {
		err := f.prepareStores(ctx, s, log)
		if err == nil {
			return nil
		}
		log.Warn("stores not ready; retrying", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		if backoff < 10*time.Second {
			backoff *= 2
		}
	}
}

type stackFlags struct {
	dir                      *string
	pgPort, chPort, chHTTPPt *int
}

func addStackFlags(fs *flagenv.Set) *stackFlags {
	return &stackFlags{
		dir:      fs.String("run-dir", devstack.DefaultRunDir(), "directory holding the private stores' data (default: .run of the checkout holding the working directory, else of the one holding this binary)"),
		pgPort:   fs.Int("pg-port", devstack.DefaultPostgresPort, "port of the private Postgres"),
		chPort:   fs.Int("clickhouse-port", devstack.DefaultClickHousePort, "native port of the private ClickHouse"),
		chHTTPPt: fs.Int("clickhouse-http-port", devstack.DefaultClickHouseHTTP, "HTTP port of the private ClickHouse"),
	}
}

func (f *stackFlags) stack(log *slog.Logger) *devstack.Stack {
	return &devstack.Stack{Dir: *f.dir, PostgresPort: *f.pgPort, ClickHousePort: *f.chPort, ClickHouseHTTP: *f.chHTTPPt, Log: log}
}

func runStores(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("stores", "Start (up), stop (down) or probe (status) the private Postgres and ClickHouse whose data lives under --run-dir. "+
		"A server answering on a port is reused only when its data directory is this run directory's; anything else on a port is refused with the flag to change. "+
		"down stops only this run directory's servers; status starts nothing and says whose each port is.")
	sf := addStackFlags(fs)
	// The action comes first (`stores up --pg-port 5544`); flags after it must still count, and
	// Go's flag parsing stops at the first non-flag argument.
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if action == "" {
		action = fs.Arg(0)
	}
	st := sf.stack(log)
	switch action {
	case "up":
		if _, err := st.Up(ctx); err != nil {
			return err
		}
		fmt.Printf("HS_POSTGRES_URL=%s\nHS_CLICKHOUSE_ADDR=%s\n", st.PostgresURL(), st.ClickHouseAddr())
		return nil
	case "down":
		return st.Down(ctx, devstack.Started{Postgres: true, ClickHouse: true})
	case "status":
		stores, err := st.Status(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("run dir    %s\n", st.Dir)
		for _, s := range stores {
			fmt.Println(s)
		}
		return nil
	}
	return fmt.Errorf("say `stores up`, `stores down` or `stores status`")
}

func runMigrate(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("migrate", "Apply every embedded Postgres and ClickHouse migration not yet applied. Safe to run twice. "+
		"With --clickhouse-cluster, run it once per deploy, before serve and crawl (which then only check the schema), with every replica up.")
	f := addStoreFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	s, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := f.migrateAll(ctx, s, log); err != nil {
		return err
	}
	log.Info("migrations applied")
	return nil
}
