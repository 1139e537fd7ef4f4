package analytics_test

import (
	"context"
	"testing"

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
	require.NoError(t, conn.Exec(ctx, "DROP TABLE schema_migrations"))

	require.NoError(t, analytics.Migrate(ctx, conn, opts, nil))
	got, err := analytics.AppliedVersions(ctx, conn)
	require.NoError(t, err)
	require.Equal(t, want, got)
	var n uint64
	require.NoError(t, conn.QueryRow(ctx, `SELECT count() FROM system.columns WHERE database = ? AND table = 'events'
		AND name IN ('posted_at', 'close_reason', 'gap_from', 'gap_to')`, opts.Database).Scan(&n))
	require.Equal(t, uint64(4), n)
	require.NoError(t, analytics.CheckSchema(ctx, conn, opts))
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
