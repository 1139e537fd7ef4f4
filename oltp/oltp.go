// Package oltp owns the Postgres side of the service: the connection pool, the embedded numbered
// migrations, the account records (customers, accounts, API keys, usage, rate windows and the
// instances' spend holds, spendholds.go,
// idempotency keys, the demo key), the push records (webhook endpoints, whose secrets it stores
// only as sealed by the caller's SecretSealer, watches and their fires, deliveries with their
// attempts, replays and billing, the notifier's position and the dispatcher's leases; the
// leases of the roles one instance at a time holds, with their fencing tokens, leader.go; the
// account events that warn of an allowance, each delivered to the customer's endpoints, and
// what happens past the delivered-changes wall, accountevents.go), the usage a bill is computed
// from (accountevents.go), on-demand
// crawl jobs, the source registry (the companies and sources the crawl reads, registry.go; the
// crawl workers' reads and each source's health, crawlreads.go: failures in a row, cooldown and
// the suspect status, never retirement; the shared request turns per host, hostturns.go; the
// crawl's commit lock, crawllock.go, and its ledger head with the commit in flight, ledgerhead.go; the discovery queue, each domain's last answer and how a run
// lands in the registry, discovery.go), outcome labels and their votes, attribution, coverage
// requests (with their status, joined from the registry and the discovery queue) and quickstarts.
//
// Creating rows that are not billed is bounded twice: by what may be live (MaxActiveKeys,
// MaxLiveEndpoints, the live-watch allowance) and by daily creation budgets that count retired rows
// too (Budgets, budget.go), each checked under a lock that serializes the customer's creations of
// that kind. PruneRetired deletes retired rows past their retention for a periodic job.
//
// Every query that reads customer data takes the caller's customer_id and filters on it; another
// customer's id answers exactly like a missing one. It must not touch ClickHouse or HTTP.
package oltp

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/migrate"
)

//go:embed migrations/*.sql
var migrationsFS embed.FS

// StatementTimeout is the statement_timeout of every session of a pool from Open, unless the
// URL sets one (...?statement_timeout=10s): a statement running longer is cancelled by Postgres
// itself, a backstop for a caller whose own deadline does not reach the server. Migrate lifts it
// on its own session (a migration may rewrite a large table, or wait for another instance's).
const StatementTimeout = "30s"

// Open returns a pool for url. It does not connect until first use, so a store that is down at
// start does not stop the caller; Ping tells whether it answers. Sessions get StatementTimeout.
// url may name a primary and its standbys: every connection goes to the one that takes writes,
// and the pool follows a promotion (failover.go).
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the Postgres URL (flag --postgres-url, env HS_POSTGRES_URL): %w", err)
	}
	if err := configureHosts(cfg); err != nil {
		return nil, err
	}
	reset := &resetOnFailover{}
	cfg.ConnConfig.Tracer = reset
	if cfg.MaxConns < 8 {
		cfg.MaxConns = 8
	}
	if _, set := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !set {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = StatementTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot create the Postgres pool: %w", err)
	}
	reset.pool.Store(pool)
	return pool, nil
}

// MigrationsDigest is a digest of the embedded migrations (names and statements): two schemas
// migrated by binaries with the same digest hold the same tables.
func MigrationsDigest() (string, error) {
	ms, err := migrate.Load(migrationsFS, "migrations")
	if err != nil {
		return "", err
	}
	h := fnv.New64a()
	for _, m := range ms {
		fmt.Fprintf(h, "%s\x00%s\x00", m.Name, m.SQL)
	}
	return fmt.Sprintf("%016x", h.Sum64()), nil
}

// Migrate applies every embedded migration not yet applied, each in its own transaction together
// with its bookkeeping row, so a failed migration leaves nothing marked as applied. Concurrent
// callers on one schema serialise on the schema's advisory lock; callers on other schemas of the
// database (the tests' schemas, one per test) do not wait for them. Safe to run any number of
// times.
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	ms, err := migrate.Load(migrationsFS, "migrations")
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("cannot connect to Postgres to migrate: %w", err)
	}
	defer conn.Release()
	h := fnv.New64a()
	h.Write([]byte("hiringsignal-migrations"))
	lockID := int64(h.Sum64() >> 1)
	// Waiting for another instance's migrations may take longer than the statement_timeout.
	if _, err := conn.Exec(ctx, "SET statement_timeout = 0"); err != nil {
		return fmt.Errorf("cannot prepare the migration session: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "RESET statement_timeout") //nolint:errcheck
	// Advisory locks are the database's: the schema's lock is keyed by its name. Earlier releases
	// took one database-wide lock exclusively; it is held shared here, so an instance of an earlier
	// release and one of this release still wait for each other, while instances of this release
	// on other schemas do not.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock_shared($1)", lockID); err != nil {
		return fmt.Errorf("cannot take the migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock_shared($1)", lockID) //nolint:errcheck
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext('hiringsignal-migrations:' || coalesce(current_schema(), '')))"); err != nil {
		return fmt.Errorf("cannot take the schema's migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext('hiringsignal-migrations:' || coalesce(current_schema(), '')))") //nolint:errcheck
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("cannot create schema_migrations: %w", err)
	}
	for _, m := range ms {
		var one int
		err := conn.QueryRow(ctx, "SELECT 1 FROM schema_migrations WHERE version = $1", m.Version).Scan(&one)
		if err == nil {
			continue
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("cannot read schema_migrations: %w", err)
		}
		if err := applyOne(ctx, conn.Conn(), m); err != nil {
			return err
		}
		if log != nil {
			log.Info("postgres migration applied", "file", m.Name)
		}
	}
	return nil
}

func applyOne(ctx context.Context, conn *pgx.Conn, m migrate.Migration) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("cannot begin migration %s: %w", m.Name, err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, m.SQL); err != nil {
		return fmt.Errorf("postgres migration %s failed (nothing of it was applied): %w", m.Name, err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
		return fmt.Errorf("cannot record migration %s: %w", m.Name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("cannot commit migration %s: %w", m.Name, err)
	}
	return nil
}

// AppliedVersions lists the applied migration versions, ascending.
func AppliedVersions(ctx context.Context, pool *pgxpool.Pool) ([]int, error) {
	rows, err := pool.Query(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, fmt.Errorf("cannot list applied migrations: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}
