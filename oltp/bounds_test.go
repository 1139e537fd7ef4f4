package oltp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// Every pooled connection has a statement_timeout (oltp.StatementTimeout unless the URL sets
// one): without one a stuck query held its connection forever.
func TestPoolSessionsHaveAStatementTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	var v string
	require.NoError(t, pool.QueryRow(ctx, "SHOW statement_timeout").Scan(&v))
	require.Equal(t, oltp.StatementTimeout, v)
	// Migrating lifts it on its own session only.
	require.NoError(t, oltp.Migrate(ctx, pool, nil))
	for range 4 {
		require.NoError(t, pool.QueryRow(ctx, "SHOW statement_timeout").Scan(&v))
		require.Equal(t, oltp.StatementTimeout, v)
	}
	// A URL that sets one keeps it.
	p2, err := oltp.Open(ctx, storetest.PostgresURL(t, "oltp")+"&statement_timeout=7s")
	require.NoError(t, err)
	defer p2.Close()
	require.NoError(t, p2.QueryRow(ctx, "SHOW statement_timeout").Scan(&v))
	require.Equal(t, "7s", v)
}

// Kept idempotent answers are bounded per answer and per customer, and expiring them
// gives the bytes back.
func TestIdempotencyStoreKeepsBoundedBytesPerCustomer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	b := oltp.IdempotencyBounds{Body: 100, Customer: 250}
	me := oltp.Claimant{ID: "test-instance"}
	complete := func(cus, key string, size int) bool {
		t.Helper()
		c, err := oltp.ClaimIdempotency(ctx, pool, me, cus, key, []byte("h"))
		require.NoError(t, err)
		require.Equal(t, oltp.ClaimNew, c.State)
		kept, err := oltp.CompleteIdempotency(ctx, pool, me, cus, key, oltp.StoredResponse{Status: 200, ContentType: "application/json", Body: make([]byte, size)}, b)
		require.NoError(t, err)
		return kept
	}
	claim := func(cus, key string) int {
		t.Helper()
		c, err := oltp.ClaimIdempotency(ctx, pool, me, cus, key, []byte("h"))
		require.NoError(t, err)
		return c.State
	}
	require.False(t, complete("c1", "too-big", 101), "larger than the per-answer bound")
	require.Equal(t, oltp.ClaimServed, claim("c1", "too-big"))
	require.True(t, complete("c1", "a", 100))
	require.True(t, complete("c1", "b", 100))
	require.False(t, complete("c1", "c", 100), "past the customer's bound")
	require.True(t, complete("c1", "d", 50), "what still fits")
	require.True(t, complete("c2", "a", 100), "another customer's budget")
	require.Equal(t, oltp.ClaimDone, claim("c1", "a"))
	require.Equal(t, oltp.ClaimServed, claim("c1", "c"))

	budget := func(cus string) (n int64) {
		_ = pool.QueryRow(ctx, "SELECT bytes FROM idempotency_budget WHERE customer_id = $1", cus).Scan(&n)
		return n
	}
	require.EqualValues(t, 250, budget("c1"))
	_, err := pool.Exec(ctx, "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE customer_id = 'c1' AND idem_key IN ('a', 'c')")
	require.NoError(t, err)
	require.NoError(t, oltp.ExpireIdempotency(ctx, pool))
	require.EqualValues(t, 150, budget("c1"))
	require.True(t, complete("c1", "e", 100), "expired answers free their bytes")
	// The same key after its 24 h is claimed afresh, and its bytes given back first.
	_, err = pool.Exec(ctx, "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE customer_id = 'c1' AND idem_key = 'b'")
	require.NoError(t, err)
	require.Equal(t, oltp.ClaimNew, claim("c1", "b"))
	require.EqualValues(t, 150, budget("c1"))
}

// Disabling the demo key revokes the installed one.
func TestRevokeDemoKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	n, err := oltp.RevokeDemoKeys(ctx, pool)
	require.NoError(t, err)
	require.Zero(t, n)
	_, err = oltp.UpsertDemoKey(ctx, pool, []byte("0123456789abcdef0123456789abcdef"), "hsk_demo")
	require.NoError(t, err)
	n, err = oltp.RevokeDemoKeys(ctx, pool)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	var live int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM api_keys WHERE is_demo AND revoked_at IS NULL").Scan(&live))
	require.Zero(t, live)
}
