package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

func TestMigrateTwiceIsANoOpAndTablesExist(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, opts := storetest.ClickHouse(t, "analytics")
	before, err := analytics.AppliedVersions(ctx, conn)
	require.NoError(t, err)
	require.NotEmpty(t, before)
	require.NoError(t, analytics.Migrate(ctx, conn, opts, nil))
	after, err := analytics.AppliedVersions(ctx, conn)
	require.NoError(t, err)
	require.Equal(t, before, after)

	for _, table := range []string{"events", "cycles", "companies", "req_boards", "ats_history"} {
		var n uint64
		require.NoError(t, conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = ? AND name = ?", opts.Database, table).Scan(&n))
		require.Equal(t, uint64(1), n, table)
	}
}

// TestMigrateRerunsEveryStatementSafely: with its record lost (a run that stopped after its
// statements, before recording them), every migration runs again: the tables exist, and of an
// ALTER only the ADD COLUMN clauses whose column is missing run (18.16 has no ADD COLUMN IF NOT
// EXISTS).
func TestMigrateRerunsEveryStatementSafely(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, opts := storetest.ClickHouse(t, "analytics")
	want, err := analytics.AppliedVersions(ctx, conn)
	require.NoError(t, err)
	require.NoError(t, conn.Exec(ctx, "ALTER TABLE events DROP COLUMN gap_to"))
	require.NoError(t, conn.Exec(ctx, "ALTER TABLE cycles DROP COLUMN sources_carried"))
	require.NoError(t, conn.Exec(ctx, "DROP TABLE schema_migrations"))

	require.NoError(t, analytics.Migrate(ctx, conn, opts, nil))
	got, err := analytics.AppliedVersions(ctx, conn)
	require.NoError(t, err)
	require.Equal(t, want, got)
	var n uint64
	require.NoError(t, conn.QueryRow(ctx, `SELECT count() FROM system.columns WHERE database = ? AND table = 'events'
		AND name IN ('posted_at', 'close_reason', 'gap_from', 'gap_to')`, opts.Database).Scan(&n))
	require.Equal(t, uint64(4), n)
	require.NoError(t, conn.QueryRow(ctx, `SELECT count() FROM system.columns WHERE database = ? AND table = 'cycles'
		AND name = 'sources_carried'`, opts.Database).Scan(&n))
	require.Equal(t, uint64(1), n)
	require.NoError(t, analytics.CheckSchema(ctx, conn, opts))
}

// TestTheCyclesRowKeepsWhatTheCycleCounted: the cycles row an operator judges a crawl window by
// holds the sources carried to the next window (a chain of pages read in part) apart from the
// failed ones, beside the pages and postings read; a row written before migration 0006 reads 0
// carried.
func TestTheCyclesRowKeepsWhatTheCycleCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, _ := storetest.ClickHouse(t, "analytics")
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	c := analytics.Cycle{Region: "dach", Tick: 40, CycleTime: at, StartedAt: at, SourcesTotal: 5, SourcesOK: 2, SourcesFailed: 1,
		SourcesCarried: 2, Pages: 26, Postings: 24, SeqFrom: 1, SeqTo: 0}
	require.NoError(t, analytics.WriteCycle(ctx, conn, &analytics.CycleWrite{Cycle: c}, 1000))
	// A row as a binary before migration 0006 wrote it: sources_carried not named.
	old, err := conn.PrepareBatch(ctx, `INSERT INTO cycles (region, tick, cycle_time, started_at, finished_at, sources_total, sources_ok,
		sources_failed, pages, postings, malformed, unresolved, reqs_live, events, seq_from, seq_to)`)
	require.NoError(t, err)
	before := at.Add(-3 * time.Hour)
	require.NoError(t, old.Append("dach", uint32(39), before, before, before, uint32(5), uint32(4), uint32(1), uint32(3), uint64(3),
		uint64(0), uint64(0), uint64(0), uint64(0), uint64(1), uint64(0)))
	require.NoError(t, old.Send())
	type row struct {
		Tick                              uint32
		Total, OK, Failed, Carried, Pages uint32
		Postings                          uint64
	}
	rows, err := conn.Query(ctx, `SELECT tick, sources_total, sources_ok, sources_failed, sources_carried, pages, postings
		FROM cycles FINAL WHERE region = 'dach' ORDER BY tick`)
	require.NoError(t, err)
	defer rows.Close()
	var got []row
	for rows.Next() {
		var r row
		require.NoError(t, rows.Scan(&r.Tick, &r.Total, &r.OK, &r.Failed, &r.Carried, &r.Pages, &r.Postings))
		got = append(got, r)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []row{{39, 5, 4, 1, 0, 3, 3}, {40, 5, 2, 1, 2, 26, 24}}, got)
}

// TestCheckSchemaSaysWhatToRun: serve and crawl in cluster mode only check the schema; an
// unmigrated database, and a single server's tables named as a cluster's, are refused with what
// to do.
func TestCheckSchemaSaysWhatToRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := storetest.ClickHouseOptions(t, "analytics")
	conn, err := analytics.Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	require.ErrorContains(t, analytics.CheckSchema(ctx, conn, opts), "hiringsignal migrate")
	require.NoError(t, analytics.Migrate(ctx, conn, opts, nil))
	require.NoError(t, analytics.CheckSchema(ctx, conn, opts))
	opts.OnCluster = "hs"
	require.ErrorContains(t, analytics.CheckSchema(ctx, conn, opts), "needs every table replicated")
}
