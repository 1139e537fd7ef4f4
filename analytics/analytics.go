// Package analytics owns the ClickHouse side of the service: the connection, the embedded numbered
// migrations and their two layouts (one server, or one shard of N replicas with every table
// Replicated: schema.go), the tables the crawl writes and the reads query (companies, the event
// ledger with each req's posting facts, the reqs' cleaned descriptions, board sightings, ATS
// history, cycles), their row types (Event, Facts, Description, Company, ReqBoard,
// VendorSighting, Cycle), and every statement run against them: the crawl's cycle write and
// commit (WriteCycle, ledger.go, quorum writes in cluster mode: quorum.go), the reads that
// rebuild the crawl's state (crawlstate.go), the gaps between a region's committed cycles (Gaps,
// gaps.go), the facts backfill's paging and event rewrite (backfill.go), and the reads behind the
// API and its read models, which serve a watermark only once
// the replica that answers holds every event below it (presence.go: a read snapshot counts only
// the events above the bound the same replica proved before), among them those of a commit
// applied to a read snapshot, which read the commit's events and the touched reqs at the
// positions the snapshot carries, not the ledger (deltareads.go, commitreads.go).
//
// SQL here must run on ClickHouse 18.16 (Debian) and on current releases: every INSERT names its
// columns; no LowCardinality, DateTime64, window functions or toStartOfWeek. It must not touch
// Postgres or HTTP, and it does not decide what the crawl writes: that is package pipeline's.
package analytics

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Options says where ClickHouse is and how it is laid out.
type Options struct {
	// Addr is host:port of the native protocol, or several, comma-separated (the replicas of a
	// cluster): connections go to the first that answers, the next only when it does not
	// (docs/deployment.md, "Failover").
	Addr     string
	Database string
	User     string
	Password string
	// OnCluster names the cluster (remote_servers) of a replicated deployment: one shard of N
	// replicas, every table Replicated (schema.go). "" on a single server.
	OnCluster string
	// InsertQuorum is how many replicas must hold each block of a cycle's write before it is
	// acknowledged (insert_quorum): 0 is a majority of the replicas in cluster mode (both, at
	// two) and none on a single server; 1 is none.
	InsertQuorum int
}

// Addrs are the addresses of Addr, in order.
func (o Options) Addrs() []string {
	var out []string
	for _, a := range strings.Split(o.Addr, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// conn is the connection Open returns: the driver's, with the options it was opened with, which
// the writes that depend on the layout read (insertQuorum), and the quorum last read.
type conn struct {
	driver.Conn
	opts Options

	mu       sync.Mutex
	quorum   int
	quorumAt time.Time
}

// optionsOf is the options ch was opened with (zero for a connection Open did not make: a
// single server's behaviour).
func optionsOf(ch driver.Conn) Options {
	if c, ok := ch.(*conn); ok {
		return c.opts
	}
	return Options{}
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
	addrs := opts.Addrs()
	if len(addrs) == 0 {
		return nil, fmt.Errorf("cannot open ClickHouse: no address (flag --clickhouse-addr, env HS_CLICKHOUSE_ADDR: host:port, or several comma-separated)")
	}
	ch, err := clickhouse.Open(&clickhouse.Options{
		Addr:            addrs,
		Auth:            clickhouse.Auth{Database: db, Username: opts.User, Password: opts.Password},
		DialTimeout:     5 * time.Second,
		MaxOpenConns:    16,
		MaxIdleConns:    8,
		ConnMaxLifetime: time.Hour,
		ReadTimeout:     5 * time.Minute,
		Compression:     &clickhouse.Compression{Method: clickhouse.CompressionLZ4},
		BlockBufferSize: 10,
		// In order: every connection goes to the first address that answers, so an instance
		// reads one replica (the next only while the first does not answer).
		ConnOpenStrategy: clickhouse.ConnOpenInOrder,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot open ClickHouse at %s (flag --clickhouse-addr, env HS_CLICKHOUSE_ADDR): %w", opts.Addr, err)
	}
	return &conn{Conn: ch, opts: opts}, nil
}

// EnsureDatabase creates opts.Database when it does not exist (on every replica of the cluster,
// in cluster mode).
func EnsureDatabase(ctx context.Context, opts Options) error {
	conn, err := open(opts, "default")
	if err != nil {
		return err
	}
	defer conn.Close()
	q := "CREATE DATABASE IF NOT EXISTS " + quoteIdent(opts.Database) + onCluster(opts.OnCluster)
	if opts.OnCluster != "" {
		ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"distributed_ddl_task_timeout": ddlTimeout}))
	}
	if err := conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("cannot create ClickHouse database %s at %s: %w", opts.Database, opts.Addr, ddlHint(err))
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
