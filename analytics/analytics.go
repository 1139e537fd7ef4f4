// Package analytics owns the ClickHouse side of the service: the connection, the embedded numbered
// migrations, the tables the crawl writes and the reads query (companies, the event ledger,
// board sightings, ATS history, cycles), their row types (Event, Company, ReqBoard,
// VendorSighting, Cycle), and every statement run against them: the crawl's cycle write and
// commit (WriteCycle, ledger.go), the reads that rebuild the crawl's state (crawlstate.go), the
// gaps between a region's committed cycles (Gaps, gaps.go), and the reads behind the API and its
// read models.
//
// SQL here must run on ClickHouse 18.16 (Debian) and on current releases: every INSERT names its
// columns; no LowCardinality, DateTime64, window functions or toStartOfWeek. It must not touch
// Postgres or HTTP, and it does not decide what the crawl writes: that is package pipeline's.
package analytics

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/internal/migrate"
)

//go:embed migrations/*.sql
var migrationsFS embed.FS

// Options says where ClickHouse is.
type Options struct {
	Addr      string // host:port of the native protocol
	Database  string
	User      string
	Password  string
	OnCluster string // cluster name for ON CLUSTER DDL; "" on a single server
}

// Open connects to the server (lazily) and returns a connection to opts.Database.
// Use EnsureDatabase first when the database may not exist.
func Open(opts Options) (driver.Conn, error) {
	return open(opts, opts.Database)
}

func open(opts Options, db string) (driver.Conn, error) {
	if opts.User == "" {
		opts.User = "default"
	}
	conn, err := clickhouse.Open(&clickhouse.Options{
		Addr:             []string{opts.Addr},
		Auth:             clickhouse.Auth{Database: db, Username: opts.User, Password: opts.Password},
		DialTimeout:      5 * time.Second,
		MaxOpenConns:     16,
		MaxIdleConns:     8,
		ConnMaxLifetime:  time.Hour,
		ReadTimeout:      5 * time.Minute,
		Compression:      &clickhouse.Compression{Method: clickhouse.CompressionLZ4},
		BlockBufferSize:  10,
		ConnOpenStrategy: clickhouse.ConnOpenInOrder,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot open ClickHouse at %s (flag --clickhouse-addr, env HS_CLICKHOUSE_ADDR): %w", opts.Addr, err)
	}
	return conn, nil
}

// EnsureDatabase creates opts.Database when it does not exist.
func EnsureDatabase(ctx context.Context, opts Options) error {
	conn, err := open(opts, "default")
	if err != nil {
		return err
	}
	defer conn.Close()
	q := "CREATE DATABASE IF NOT EXISTS " + quoteIdent(opts.Database) + onCluster(opts.OnCluster)
	if err := conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("cannot create ClickHouse database %s at %s: %w", opts.Database, opts.Addr, err)
	}
	return nil
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "") + "`" }

func onCluster(c string) string {
	if c == "" {
		return ""
	}
	return " ON CLUSTER " + quoteIdent(c)
}

// Migrate applies every embedded migration not yet recorded in schema_migrations. ClickHouse has
// no transactions, so each statement is written to be idempotent (IF NOT EXISTS) and the
// migration is recorded only after all its statements succeeded: a failed one is retried whole
// on the next run and is never marked applied. `{ON_CLUSTER}` in a migration expands to the
// cluster clause (empty on one server).
func Migrate(ctx context.Context, conn driver.Conn, opts Options, log *slog.Logger) error {
	ms, err := migrate.Load(migrationsFS, "migrations")
	if err != nil {
		return err
	}
	if err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations`+onCluster(opts.OnCluster)+` (
		version UInt32, name String, applied_at DateTime) ENGINE = ReplacingMergeTree() ORDER BY version`); err != nil {
		return fmt.Errorf("cannot create ClickHouse schema_migrations: %w", err)
	}
	applied, err := AppliedVersions(ctx, conn)
	if err != nil {
		return err
	}
	done := map[int]bool{}
	for _, v := range applied {
		done[v] = true
	}
	for _, m := range ms {
		if done[m.Version] {
			continue
		}
		sql := strings.ReplaceAll(m.SQL, "{ON_CLUSTER}", onCluster(opts.OnCluster))
		for i, stmt := range migrate.Statements(sql) {
			if err := conn.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("clickhouse migration %s failed at statement %d (not marked applied; fix it and rerun): %w", m.Name, i+1, err)
			}
		}
		if err := recordMigration(ctx, conn, m); err != nil {
			return err
		}
		if log != nil {
			log.Info("clickhouse migration applied", "file", m.Name)
		}
	}
	return nil
}

// AppliedVersions lists the recorded migration versions, ascending.
func AppliedVersions(ctx context.Context, conn driver.Conn) ([]int, error) {
	rows, err := conn.Query(ctx, "SELECT DISTINCT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, fmt.Errorf("cannot read ClickHouse schema_migrations: %w", err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, int(v))
	}
	return out, rows.Err()
}

// recordMigration inserts the bookkeeping row. Inserts go through a batch: ClickHouse 18.16 does
// not answer a parameterised INSERT sent as a plain query over the native protocol.
func recordMigration(ctx context.Context, conn driver.Conn, m migrate.Migration) error {
	b, err := conn.PrepareBatch(ctx, "INSERT INTO schema_migrations (version, name, applied_at)")
	if err != nil {
		return fmt.Errorf("cannot record clickhouse migration %s: %w", m.Name, err)
	}
	if err := b.Append(uint32(m.Version), m.Name, time.Now().UTC()); err != nil {
		return fmt.Errorf("cannot record clickhouse migration %s: %w", m.Name, err)
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("cannot record clickhouse migration %s: %w", m.Name, err)
	}
	return nil
}
