// Package storetest gives tests real, isolated Postgres and ClickHouse databases.
//
// Each test package gets its own Postgres database (hs_test_<pkg>) and each test a migrated schema
// in it that no other test holds meanwhile (kept between tests and emptied when taken: migrating
// one costs more than the test of most); each test gets its own ClickHouse database, migrated and
// dropped when the test ends. So packages and their tests run in parallel and reruns start clean. A schema does not
// isolate what Postgres keeps per database: advisory locks, LISTEN/NOTIFY channels and
// pg_stat_activity are shared by every test of the package (and by any other run of it), so a
// test that depends on them has ids of its own or stays serial. The servers come from
// HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR, defaulting to the private instances `make test` starts;
// the replicated layout's tests (ClickHouseCluster) run only against the cluster
// HS_CLICKHOUSE_CLUSTER names (`make test-cluster` starts one). It must not be imported by
// non-test code.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/oltp"
)

// PostgresServerURL is the server the tests use.
func PostgresServerURL() string {
	if u := os.Getenv("HS_POSTGRES_URL"); u != "" {
		return u
	}
	s := devstack.Stack{PostgresPort: devstack.DefaultPostgresPort}
	return s.PostgresURL()
}

// ClickHouseAddr is the server the tests use.
func ClickHouseAddr() string {
	if a := os.Getenv("HS_CLICKHOUSE_ADDR"); a != "" {
		return a
	}
	s := devstack.Stack{ClickHousePort: devstack.DefaultClickHousePort}
	return s.ClickHouseAddr()
}

func suffix() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > 30 {
		out = out[:30]
	}
	return out
}

// packageDatabase returns the URL of the package's own database pkg (hs_test_<pkg>), created on
// first use.
func packageDatabase(ctx context.Context, t testing.TB, pkg string) *url.URL {
	t.Helper()
	server := PostgresServerURL()
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("cannot reach Postgres at %s: %v\nrun `make test` (it starts the private stores) or set HS_POSTGRES_URL", server, err)
	}
	defer admin.Close(ctx)
	db := "hs_test_" + sanitize(pkg)
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		t.Fatalf("cannot query pg_database: %v", err)
	}
	if !exists {
		// Two tests creating it at once: the loser sees "already exists" or, racing the catalog
		// insert, a unique violation (23505) of pg_database; either way it exists now.
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil && !strings.Contains(err.Error(), "already exists") && !strings.Contains(err.Error(), "23505") {
			t.Fatalf("cannot create test database %s: %v", db, err)
		}
	}
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("bad HS_POSTGRES_URL: %v", err)
	}
	u.Path = "/" + db
	return u
}

// withSchema is u with search_path set to schema.
func withSchema(u *url.URL, schema string) string {
	v := *u
	q := v.Query()
	q.Set("search_path", schema)
	v.RawQuery = q.Encode()
	return v.String()
}

// PostgresURL returns the URL of a fresh, empty (not migrated) schema for this test inside the
// package's own database pkg, for a test of what migrates it. The schema is dropped when the test
// ends.
func PostgresURL(t testing.TB, pkg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	u := packageDatabase(ctx, t, pkg)
	schema := "t_" + sanitize(t.Name()) + "_" + suffix()
	c, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatalf("cannot connect to %s: %v", u.Path, err)
	}
	if _, err := c.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("cannot create schema: %v", err)
	}
	c.Close(ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, u.String())
		if err == nil {
			_, _ = c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			c.Close(ctx)
		}
	})
	return withSchema(u, schema)
}

// Postgres returns a pool on a migrated schema of the package's own database pkg, empty as a
// freshly migrated one reads, that no other test holds while this one runs. Migrated schemas are
// kept between tests and runs (pool.go): a test takes one, emptied, and gives it back when it
// ends, or when its process dies.
func Postgres(t testing.TB, pkg string) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	u := packageDatabase(ctx, t, pkg)
	schema := takeSchema(ctx, t, u)
	pool, err := oltp.Open(ctx, withSchema(u, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// ClickHouseOptions returns options for a fresh, empty ClickHouse database for this test,
// dropped when the test ends. The database exists but is not migrated.
func ClickHouseOptions(t testing.TB, pkg string) analytics.Options {
	t.Helper()
	opts := analytics.Options{Addr: ClickHouseAddr(), Database: "hs_test_" + sanitize(pkg) + "_" + suffix()}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := analytics.EnsureDatabase(ctx, opts); err != nil {
		t.Fatalf("%v\nrun `make test` (it starts the private stores) or set HS_CLICKHOUSE_ADDR", err)
	}
	t.Cleanup(func() {
		conn, err := analytics.Open(analytics.Options{Addr: opts.Addr, Database: "default"})
		if err == nil {
			_ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+opts.Database)
			conn.Close()
		}
	})
	return opts
}

// ClickHouse returns a connection to a fresh, migrated ClickHouse database for this test.
func ClickHouse(t testing.TB, pkg string) (driver.Conn, analytics.Options) {
	t.Helper()
	opts := ClickHouseOptions(t, pkg)
	conn, err := analytics.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := analytics.Migrate(context.Background(), conn, opts, nil); err != nil {
		t.Fatalf("cannot migrate test database: %v", err)
	}
	return conn, opts
}

// ClickHouseCluster returns options for a fresh database on the replicated test cluster, created
// on every replica (not migrated) and dropped when the test ends, and a connection to it through
// each replica, in order. The replicas are HS_CLICKHOUSE_CLUSTER's addresses (comma-separated;
// `hiringsignal cluster up` prints them), the cluster HS_CLICKHOUSE_CLUSTER_NAME's (default
// devstack.ClusterName). Without HS_CLICKHOUSE_CLUSTER the test is skipped.
func ClickHouseCluster(t testing.TB, pkg string) (analytics.Options, []driver.Conn) {
	t.Helper()
	addrs := os.Getenv("HS_CLICKHOUSE_CLUSTER")
	if addrs == "" {
		t.Skip("no replicated ClickHouse: set HS_CLICKHOUSE_CLUSTER to its replicas' addresses (make test-cluster does)")
	}
	name := os.Getenv("HS_CLICKHOUSE_CLUSTER_NAME")
	if name == "" {
		name = devstack.ClusterName
	}
	opts := analytics.Options{Addr: addrs, Database: "hs_test_" + sanitize(pkg) + "_" + suffix(), OnCluster: name}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := analytics.EnsureDatabase(ctx, opts); err != nil {
		t.Fatalf("%v\nrun `make test-cluster` (it starts the local cluster) or fix HS_CLICKHOUSE_CLUSTER", err)
	}
	t.Cleanup(func() {
		admin, err := analytics.Open(analytics.Options{Addr: opts.Addr, Database: "default"})
		if err == nil {
			_ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+opts.Database+" ON CLUSTER "+name)
			admin.Close()
		}
	})
	var conns []driver.Conn
	for _, addr := range opts.Addrs() {
		o := opts
		o.Addr = addr
		conn, err := analytics.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conns = append(conns, conn)
	}
	return opts, conns
}
