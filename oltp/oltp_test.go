package oltp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func TestMigrateTwiceIsANoOp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp") // migrated once
	before, err := oltp.AppliedVersions(ctx, pool)
	require.NoError(t, err)
	require.NotEmpty(t, before)
	require.NoError(t, oltp.Migrate(ctx, pool, nil))
	after, err := oltp.AppliedVersions(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, before, after)
}

func TestCreateAccountStoresOnlyTheKeyHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	acct, err := oltp.CreateAccount(ctx, pool, "starter", "ops@example.com")
	require.NoError(t, err)
	require.Equal(t, "tier_2", acct.Tier)
	require.True(t, apikey.WellFormed(acct.Key))

	var hash []byte
	var display string
	require.NoError(t, pool.QueryRow(ctx, "SELECT key_hash, display FROM api_keys WHERE key_id = $1", acct.KeyID).Scan(&hash, &display))
	require.Equal(t, apikey.Hash(acct.Key), hash)
	require.NotContains(t, display, acct.Key[8:], "the display prefix must not reveal the key")

	// No column of any table holds the key itself.
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM api_keys k JOIN accounts a USING (account_id) JOIN customers c ON c.customer_id = a.customer_id
		WHERE position($1 in k::text) > 0 OR position($1 in a::text) > 0 OR position($1 in c::text) > 0`, acct.Key).Scan(&n))
	require.Zero(t, n)
}

func TestCreateAccountRejectsUnknownPlan(t *testing.T) {
	t.Parallel()
	pool := storetest.Postgres(t, "oltp")
	_, err := oltp.CreateAccount(context.Background(), pool, "platinum", "x@example.com")
	require.ErrorContains(t, err, "unknown plan")
}

func TestFailedMigrationIsNotMarkedApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	err := oltp.ApplyForTest(ctx, pool, 9999, "9999_broken.sql", "CREATE TABLE half_applied (x int); SELECT no_such_column FROM half_applied;")
	require.ErrorContains(t, err, "9999_broken.sql")
	var exists bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = 9999)").Scan(&exists))
	require.False(t, exists)
	require.NoError(t, pool.QueryRow(ctx, "SELECT to_regclass('half_applied') IS NOT NULL").Scan(&exists))
	require.False(t, exists, "nothing of a failed migration may remain")
}
