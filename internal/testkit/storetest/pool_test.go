package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/oltp"
)

func schemaOf(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var s string
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT current_schema()").Scan(&s))
	return s
}

// A schema handed out again reads as a freshly migrated one: no rows a test before left, its
// identities restarted, every migration applied.
func TestAKeptSchemaIsHandedOutEmpty(t *testing.T) {
	ctx := context.Background()
	var first string
	var firstID int64
	t.Run("fills", func(t *testing.T) {
		pool := Postgres(t, "storetest_pool_empty")
		first = schemaOf(t, pool)
		require.True(t, strings.HasPrefix(first, "p_"), first)
		a, err := oltp.CreateAccount(ctx, pool, "growth", "fills@example.com")
		require.NoError(t, err)
		firstID = a.AccountID
	})
	t.Run("reads", func(t *testing.T) {
		pool := Postgres(t, "storetest_pool_empty")
		// Taken again (this package database serves no other test): emptied.
		require.Equal(t, first, schemaOf(t, pool), "the schema given back is taken again")
		var n int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM accounts").Scan(&n))
		require.Zero(t, n)
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM api_keys").Scan(&n))
		require.Zero(t, n)
		a, err := oltp.CreateAccount(ctx, pool, "growth", "fills@example.com")
		require.NoError(t, err, "a unique email of the test before is gone")
		require.Equal(t, firstID, a.AccountID, "identities restart")
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n))
		require.Positive(t, n, "the migrations stay recorded")
	})
}

// Schemas held at once are distinct ones.
func TestSchemasHeldAtOnceAreDistinct(t *testing.T) {
	names := map[string]bool{}
	for range 3 {
		s := schemaOf(t, Postgres(t, "storetest_pool_apart"))
		require.False(t, names[s], "schema %s handed out twice at once", s)
		names[s] = true
	}
}

// A test that changed the structure of its schema (renamed a table, disabled a trigger) leaves a
// schema that is dropped, not handed out again.
func TestASchemaATestChangedIsNotHandedOutAgain(t *testing.T) {
	ctx := context.Background()
	for _, change := range []string{
		"ALTER TABLE accounts RENAME TO accounts_away",
		"ALTER TABLE outcome_labels DISABLE TRIGGER outcome_votes_insert",
		"DELETE FROM schema_migrations WHERE version = 1",
	} {
		var changed string
		t.Run("changes", func(t *testing.T) {
			pool := Postgres(t, "storetest_pool_changed")
			changed = schemaOf(t, pool)
			_, err := pool.Exec(ctx, change)
			require.NoError(t, err)
		})
		t.Run("takes", func(t *testing.T) {
			pool := Postgres(t, "storetest_pool_changed")
			require.NotEqual(t, changed, schemaOf(t, pool), "after %q", change)
			_, err := oltp.CreateAccount(ctx, pool, "growth", "intact@example.com")
			require.NoError(t, err, "after %q the schema handed out is whole", change)
			var enabled string
			require.NoError(t, pool.QueryRow(ctx, "SELECT tgenabled FROM pg_trigger WHERE tgname = 'outcome_votes_insert' AND tgrelid = 'outcome_labels'::regclass").Scan(&enabled))
			require.Equal(t, "O", enabled)
		})
	}
}
