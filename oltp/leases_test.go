package oltp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// A release that finds the lease connection busy (a claim in flight) does not wait for it: the
// claim's holder ends the locks when it lets the connection go, and only then may another
// dispatcher take the rows.
func TestAReleaseDuringAClaimEndsTheLocksWhenTheClaimIsDone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a, err := oltp.CreateAccount(ctx, pool, "growth", "lease@example.com")
	require.NoError(t, err)
	e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/x", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	var id int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, endpoint_id, event_type, body, status, next_attempt_at)
		VALUES ('lease-test', $1, $2, $3, 'test', '{}', 'pending', now()) RETURNING delivery_id`, a.CustomerID, a.AccountID, e.ID).Scan(&id))

	mine := oltp.NewLeaser(pool, time.Hour)
	defer mine.Close()
	got, err := mine.ClaimDue(ctx, box, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, []string{secretA}, got[0].Secrets)
	other := oltp.NewLeaser(pool, time.Hour)
	defer other.Close()

	letGo := mine.BusyForTest()
	require.NoError(t, mine.Release([]int64{id}), "returns at once: the connection is busy")
	require.Zero(t, mine.Held())
	again, err := other.ClaimDue(ctx, box, 10)
	require.NoError(t, err)
	require.Empty(t, again, "the lock is not ended before the connection is free")
	require.NoError(t, letGo())
	again, err = other.ClaimDue(ctx, box, 10)
	require.NoError(t, err)
	require.Len(t, again, 1, "the holder sent the unlock when it let the connection go")
}
