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
