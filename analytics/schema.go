package analytics

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/ClickHouse/clickhouse-go/v2/lib/proto"

	"github.com/planehq/hiringsignal/internal/migrate"
)

// The schema: embedded numbered migrations, applied by Migrate and recorded in
// schema_migrations. One migration set serves both layouts (docs/deployment.md):
//
//   - a single server (Options.OnCluster ""), the default: plain MergeTree-family engines, DDL
//     without ON CLUSTER;
//   - a replicated cluster (Options.OnCluster names it): one shard of N replicas, every
//     MergeTree-family table Replicated with its replica path in ZooKeeper, so each replica
//     holds every row.
//
// A migration spells the two places that differ as placeholders:
//
//   - `{ON_CLUSTER}` after the table of a CREATE (and of CREATE DATABASE) is the ON CLUSTER
//     clause in cluster mode, so every replica creates it. In an ALTER it is always empty: the
//     ALTER runs on the local replicated table, and ZooKeeper carries it to the other replicas.
//     (ALTER ... ON CLUSTER is what 18.16 refuses with Code 371 for a table that is not
//     replicated, "shard #1 is replicated according to its cluster definition": a shard with
//     internal_replication runs a distributed ALTER on one replica only, which would change one
//     copy of a plain table. Of a replicated table it works, but it waits for every host, a
//     stopped one included, for distributed_ddl_task_timeout.)
//   - `ENGINE = {REPLICATED}ReplacingMergeTree(version)` is the engine as written on a single
//     server and, in cluster mode, ReplicatedReplacingMergeTree(
//     '/clickhouse/tables/{shard}/{database}/<table>', '{replica}', version): the {shard} and
//     {replica} macros come from each server's config, {database} is the database's name.
//
// ClickHouse has no transactions, so every statement must be safe to run twice: CREATE ... IF
// NOT EXISTS, and ADD COLUMN clauses, which 18.16 cannot say IF NOT EXISTS of, are dropped by
// Migrate when system.columns already lists the column. A migration is recorded only after
// all its statements succeeded, so a failed one reruns whole.
//
// The record is one truth for every replica and instance: schema_migrations is itself a
// replicated table in cluster mode, written with the write quorum and read with
// select_sequential_consistency (a replica that lacks a quorum-written row refuses the read
// instead of answering an older schema). Migrations run once per deploy (`hiringsignal
// migrate`); in cluster mode serve and crawl only check the schema (CheckSchema).

//go:embed migrations/*.sql
var migrationsFS embed.FS

// replicaPath is the ZooKeeper path of a replicated table, before its name.
const replicaPath = "/clickhouse/tables/{shard}/{database}/"

// migrationsTable is the bookkeeping table, templated as the migrations are.
const migrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations {ON_CLUSTER} (
	version UInt32, name String, applied_at DateTime) ENGINE = {REPLICATED}ReplacingMergeTree() ORDER BY version`

// ddlTimeout bounds how long a cluster DDL waits for every replica (distributed_ddl_task_timeout,
// seconds): a replica that does not answer runs it from the queue when it returns.
const ddlTimeout = 60

// Migrate applies every embedded migration not yet recorded in schema_migrations (see above).
// In cluster mode it first checks that the server knows the cluster as one shard and has the
// {shard} and {replica} macros, and after migrating that every table is replicated; on a
// single server, that none is.
func Migrate(ctx context.Context, conn driver.Conn, opts Options, log *slog.Logger) error {
	ms, err := migrate.Load(migrationsFS, "migrations")
	if err != nil {
		return err
	}
	if opts.OnCluster != "" {
		if err := checkCluster(ctx, conn, opts.OnCluster); err != nil {
			return err
		}
		ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"distributed_ddl_task_timeout": ddlTimeout}))
	}
	stmt, err := expand(migrationsTable, opts.OnCluster)
	if err != nil {
		return err
	}
	if err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("cannot create ClickHouse schema_migrations: %w", ddlHint(err))
	}
	applied, err := AppliedVersions(ctx, conn)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if slices.Contains(applied, m.Version) {
			continue
		}
		for i, raw := range migrate.Statements(m.SQL) {
			stmt, run, err := pendingColumns(ctx, conn, raw)
			if err != nil {
				return fmt.Errorf("clickhouse migration %s, statement %d: %w", m.Name, i+1, err)
			}
			if !run {
				continue // every column it adds is there: an earlier run stopped before recording
			}
			if stmt, err = expand(stmt, opts.OnCluster); err != nil {
				return fmt.Errorf("clickhouse migration %s, statement %d: %w", m.Name, i+1, err)
			}
			if err := conn.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("clickhouse migration %s failed at statement %d (not marked applied; fix it and rerun): %w", m.Name, i+1, ddlHint(err))
			}
		}
		if err := recordMigration(ctx, conn, m); err != nil {
			return err
		}
		if log != nil {
			log.Info("clickhouse migration applied", "file", m.Name, "cluster", opts.OnCluster)
		}
	}
	return checkEngines(ctx, conn, opts.OnCluster)
}

// CheckSchema reports whether every embedded migration is recorded and the tables are laid out
// as opts says, without changing anything: what serve and crawl ask in cluster mode, where
// `hiringsignal migrate` migrates once per deploy. Its error says what to run.
func CheckSchema(ctx context.Context, conn driver.Conn, opts Options) error {
	ms, err := migrate.Load(migrationsFS, "migrations")
	if err != nil {
		return err
	}
	applied, err := AppliedVersions(ctx, conn)
	if err != nil {
		return fmt.Errorf("%w (run `hiringsignal migrate` first)", err)
	}
	var missing []string
	for _, m := range ms {
		if !slices.Contains(applied, m.Version) {
			missing = append(missing, m.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the ClickHouse schema lacks %s: run `hiringsignal migrate` with this binary's version first", strings.Join(missing, ", "))
	}
	return checkEngines(ctx, conn, opts.OnCluster)
}

// AppliedVersions lists the recorded migration versions, ascending. Where the writes are quorum
// writes (cluster mode) the read is sequentially consistent: a replica without a quorum-written
// record refuses it.
func AppliedVersions(ctx context.Context, conn driver.Conn) ([]int, error) {
	q, err := insertQuorum(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("cannot read ClickHouse schema_migrations: %w", err)
	}
	if q >= 2 {
		ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"select_sequential_consistency": 1}))
	}
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

// recordMigration inserts the bookkeeping row, with the write quorum. Inserts go through a batch:
// ClickHouse 18.16 does not answer a parameterised INSERT sent as a plain query over the native
// protocol.
func recordMigration(ctx context.Context, conn driver.Conn, m migrate.Migration) error {
	w, err := newWriter(ctx, conn)
	if err != nil {
		return fmt.Errorf("cannot record clickhouse migration %s: %w", m.Name, err)
	}
	if err := w.insert("INSERT INTO schema_migrations (version, name, applied_at)", func(b driver.Batch) error {
		return b.Append(uint32(m.Version), m.Name, time.Now().UTC())
	}); err != nil {
		return fmt.Errorf("cannot record clickhouse migration %s: %w", m.Name, err)
	}
	return nil
}

var (
	createTableRE = regexp.MustCompile("(?is)^\\s*CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?`?([A-Za-z0-9_]+)`?")
	alterTableRE  = regexp.MustCompile("(?is)^\\s*ALTER\\s+TABLE\\s+`?([A-Za-z0-9_]+)`?\\s*\\{ON_CLUSTER\\}(.*)$")
	engineRE      = regexp.MustCompile(`\{REPLICATED\}([A-Za-z]*MergeTree)\(`)
	addColumnRE   = regexp.MustCompile("(?is)^ADD\\s+COLUMN\\s+`?([A-Za-z0-9_]+)`?\\s")
)

// expand fills a statement's placeholders for cluster ("" on a single server).
func expand(stmt, cluster string) (string, error) {
	if alterTableRE.MatchString(stmt) {
		// The local replicated table's ALTER replicates through ZooKeeper (see above).
		return strings.Replace(stmt, "{ON_CLUSTER}", "", 1), nil
	}
	stmt = strings.ReplaceAll(stmt, "{ON_CLUSTER}", onCluster(cluster))
	for {
		loc := engineRE.FindStringSubmatchIndex(stmt)
		if loc == nil {
			break
		}
		engine := stmt[loc[2]:loc[3]]
		end := closingParen(stmt, loc[1])
		if end < 0 {
			return "", fmt.Errorf("the engine %s has no closing parenthesis", engine)
		}
		args := strings.TrimSpace(stmt[loc[1]:end])
		repl := engine + "(" + args + ")"
		if cluster != "" {
			m := createTableRE.FindStringSubmatch(stmt)
			if m == nil {
				return "", fmt.Errorf("{REPLICATED} belongs in a CREATE TABLE: it names the table's replica path")
			}
			zk := "'" + replicaPath + m[1] + "', '{replica}'"
			if args != "" {
				zk += ", " + args
			}
			repl = "Replicated" + engine + "(" + zk + ")"
		}
		stmt = stmt[:loc[0]] + repl + stmt[end+1:]
	}
	if strings.Contains(stmt, "{REPLICATED}") || strings.Contains(stmt, "{ON_CLUSTER}") {
		return "", fmt.Errorf("a placeholder is left unexpanded in %q: {REPLICATED} goes right before a MergeTree-family engine", stmt)
	}
	return stmt, nil
}

// closingParen is the index of the parenthesis closing the one opened just before from, or -1.
func closingParen(s string, from int) int {
	depth, quoted := 1, false
	for i := from; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' && (i == 0 || s[i-1] != '\\'):
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTopLevel splits s at the commas outside parentheses and quotes.
func splitTopLevel(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' && (i == 0 || s[i-1] != '\\'):
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// pendingColumns makes an ALTER TABLE's ADD COLUMN clauses idempotent (18.16 has no ADD COLUMN
// IF NOT EXISTS): it drops the clauses whose column system.columns already lists, and says
// whether anything is left to run. Any other statement is returned as is.
func pendingColumns(ctx context.Context, conn driver.Conn, stmt string) (string, bool, error) {
	m := alterTableRE.FindStringSubmatch(stmt)
	if m == nil {
		return stmt, true, nil
	}
	table, clauses := m[1], splitTopLevel(m[2])
	rows, err := conn.Query(ctx, "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = ?", table)
	if err != nil {
		return "", false, fmt.Errorf("cannot read the columns of %s: %w", table, err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return "", false, err
		}
		have[name] = true
	}
	if err := rows.Err(); err != nil {
		return "", false, fmt.Errorf("cannot read the columns of %s: %w", table, err)
	}
	var keep []string
	for _, c := range clauses {
		if a := addColumnRE.FindStringSubmatch(c); a != nil && have[a[1]] {
			continue
		}
		keep = append(keep, c)
	}
	if len(keep) == 0 {
		return "", false, nil
	}
	return "ALTER TABLE " + table + " {ON_CLUSTER}\n    " + strings.Join(keep, ",\n    "), true, nil
}

// checkCluster refuses a cluster this layout does not serve: the server must know it, as one
// shard (every replica a full copy; a second shard would need Distributed tables and GLOBAL IN
// in the reads), and have the {shard} and {replica} macros the replica paths use.
func checkCluster(ctx context.Context, conn driver.Conn, cluster string) error {
	var shards, replicas uint64
	if err := conn.QueryRow(ctx, "SELECT uniqExact(shard_num), count() FROM system.clusters WHERE cluster = ?", cluster).
		Scan(&shards, &replicas); err != nil {
		return fmt.Errorf("cannot read ClickHouse's clusters: %w", err)
	}
	switch {
	case replicas == 0:
		return fmt.Errorf("ClickHouse knows no cluster %q (remote_servers in its config): pass the cluster's name as --clickhouse-cluster, or nothing on a single server", cluster)
	case shards != 1:
		return fmt.Errorf("cluster %q has %d shards: hiringsignal runs on one shard of N replicas (docs/deployment.md)", cluster, shards)
	}
	rows, err := conn.Query(ctx, "SELECT macro FROM system.macros")
	if err != nil {
		return fmt.Errorf("cannot read ClickHouse's macros: %w", err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		have[name] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cannot read ClickHouse's macros: %w", err)
	}
	for _, name := range []string{"shard", "replica"} {
		if !have[name] {
			return fmt.Errorf("ClickHouse has no {%s} macro (<macros> in its config): every replica of cluster %q needs <shard> (the same on all) and <replica> (its own)", name, cluster)
		}
	}
	return nil
}

// checkEngines refuses a database whose MergeTree-family tables are not laid out as cluster
// says: all replicated in cluster mode, none on a single server (a table created before the
// switch keeps its engine; docs/deployment.md says how to move its rows).
func checkEngines(ctx context.Context, conn driver.Conn, cluster string) error {
	rows, err := conn.Query(ctx, `SELECT name, engine FROM system.tables
		WHERE database = currentDatabase() AND engine LIKE '%MergeTree' ORDER BY name`)
	if err != nil {
		return fmt.Errorf("cannot read the tables' engines: %w", err)
	}
	defer rows.Close()
	var wrong []string
	for rows.Next() {
		var name, engine string
		if err := rows.Scan(&name, &engine); err != nil {
			return err
		}
		if strings.HasPrefix(engine, "Replicated") != (cluster != "") {
			wrong = append(wrong, name+" ("+engine+")")
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cannot read the tables' engines: %w", err)
	}
	switch {
	case len(wrong) == 0:
		return nil
	case cluster != "":
		return fmt.Errorf("cluster mode (%s) needs every table replicated, and %s is not: it was created on a single server; move its rows into a replicated table (docs/deployment.md, \"From one server to a cluster\")",
			cluster, strings.Join(wrong, ", "))
	}
	return fmt.Errorf("%s is replicated, so this database belongs to a cluster: pass its name as --clickhouse-cluster (env HS_CLICKHOUSE_CLUSTER_NAME)", strings.Join(wrong, ", "))
}

// ClickHouse error codes the schema and the quorum writes handle.
const (
	codeTimeout             = 159 // a distributed DDL not finished on every host in time
	codeTooFewLiveReplicas  = 285 // fewer replicas alive than the quorum
	codeUnsatisfiedQuorum   = 286 // the previous quorum write has not reached its quorum yet
	codeUnknownInsertStatus = 319 // the quorum timed out: the block may land later
	codeAlterUnfinished     = 341 // a replicated ALTER not yet run by an inactive replica
)

// exceptionCode is the server's error code of err, 0 when err is not a server exception.
func exceptionCode(err error) int32 {
	var exc *proto.Exception
	if errors.As(err, &exc) {
		return exc.Code
	}
	return 0
}

// ddlHint adds what to do to a DDL error that means a replica is not there.
func ddlHint(err error) error {
	switch exceptionCode(err) {
	case codeTimeout, codeAlterUnfinished:
		return fmt.Errorf("%w (a replica did not answer: it runs the change from ZooKeeper's queue when it returns; rerun `hiringsignal migrate` once every replica is up, every statement is safe to run twice)", err)
	}
	return err
}
