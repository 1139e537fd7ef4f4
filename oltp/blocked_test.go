package oltp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// blockedRows writes n blocked watch deliveries of a (no body, never due; event_seq from, from+1,
// ...) created age ago, as the notifier writes them past a watch's limits.
func blockedRows(t *testing.T, pool *pgxpool.Pool, a oltp.NewAccount, endpoint, watch int64, n int, age time.Duration, from int) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, endpoint_id, watch_id, event_seq,
			event_type, status, created_at)
		SELECT 'blocked-' || $3::bigint || '-' || i, $1, $2, $4, $3::bigint, i, 'opened', CASE WHEN i % 2 = 0 THEN 'rate_limited' ELSE 'wall_blocked' END,
			now() - make_interval(secs => $7)
		FROM generate_series($5::bigint, $5::bigint + $6 - 1) i`, a.CustomerID, a.AccountID, watch, endpoint, from, n, age.Seconds())
	require.NoError(t, err)
}

// freeWatch is a Free account's watch on an endpoint of its own, on a fresh schema.
func freeWatch(t *testing.T) (context.Context, *pgxpool.Pool, oltp.NewAccount, oltp.Endpoint, oltp.Watch) {
	t.Helper()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "free")
	e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/all", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	w, _, _, err := oltp.CreateWatch(ctx, pool, box, newWatch(a, e.ID))
	require.NoError(t, err)
	return ctx, pool, a, e, w
}

// A watch matching everything writes one blocked row per event past its limits. The wall's
// admission count, run in every notifier batch for each account with a match, read them all (the
// month's index held them): past enough of them every batch outlived its deadline and delivery
// stopped for every customer until the month turned. It reads an index of the admitted rows
// only.
func TestTheAdmissionCountReadsNoBlockedRows(t *testing.T) {
	t.Parallel()
	ctx, pool, a, e, w := freeWatch(t)
	blockedRows(t, pool, a, e.ID, w.ID, 20_000, time.Minute, 1)
	_, err := pool.Exec(ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, endpoint_id, watch_id, event_seq, event_type, body, status, next_attempt_at)
		SELECT 'admitted-' || i, $1, $2, $3, $4, i, 'opened', '{}', 'pending', now() FROM generate_series(100001, 100005) i`, a.CustomerID, a.AccountID, e.ID, w.ID)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, "ANALYZE webhook_deliveries")
	require.NoError(t, err)

	month := oltp.MonthStart(time.Now())
	rows, err := pool.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF) "+oltp.AccountStatesQueryForTest, []int64{a.AccountID}, month)
	require.NoError(t, err)
	var plan []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan = append(plan, line)
	}
	require.NoError(t, rows.Err())
	text := strings.Join(plan, "\n")
	require.Contains(t, text, "webhook_deliveries_account_admitted_idx", text)
	for _, line := range plan {
		// A node that read the blocked rows either scanned them all or filtered them out.
		require.NotContains(t, line, "Seq Scan on webhook_deliveries", text)
		require.NotContains(t, line, "Rows Removed by Filter: 20000", text)
	}

	_, err = oltp.InitNotifierPosition(ctx, pool, 0)
	require.NoError(t, err)
	b, err := oltp.BeginNotifierBatch(ctx, pool, 0)
	require.NoError(t, err)
	defer b.Rollback(ctx)
	st, err := b.AccountStates(ctx, []int64{a.AccountID}, month)
	require.NoError(t, err)
	require.EqualValues(t, 5, st[a.AccountID].Admitted)
	require.EqualValues(t, 5, st[a.AccountID].Unsent)
}

// Blocked deliveries are kept BlockedDeliveryRetention, then deleted oldest first, at most
// MaxPrunedPerRun a run; nothing else is.
func TestPruneRetiredDeletesBlockedDeliveriesPastRetention(t *testing.T) {
	t.Parallel()
	ctx, pool, a, e, w := freeWatch(t)
	old := oltp.BlockedDeliveryRetention + time.Hour
	blockedRows(t, pool, a, e.ID, w.ID, oltp.MaxPrunedPerRun+10, old, 1)
	blockedRows(t, pool, a, e.ID, w.ID, 7, oltp.BlockedDeliveryRetention-time.Hour, 200_001)
	// An old delivery that was sent stays.
	_, err := pool.Exec(ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, endpoint_id, watch_id, event_seq, event_type, body, status, created_at)
		VALUES ('sent-old', $1, $2, $3, $4, 300001, 'opened', '{}', 'delivered', now() - interval '100 days')`, a.CustomerID, a.AccountID, e.ID, w.ID)
	require.NoError(t, err)
	count := func() int {
		return rows(t, pool, "SELECT count(*) FROM webhook_deliveries WHERE account_id = $1", a.AccountID)
	}
	require.Equal(t, oltp.MaxPrunedPerRun+18, count())

	p, err := oltp.PruneRetired(ctx, pool, time.Now())
	require.NoError(t, err)
	require.EqualValues(t, oltp.MaxPrunedPerRun, p.BlockedDeliveries, "one run is bounded")
	p, err = oltp.PruneRetired(ctx, pool, time.Now())
	require.NoError(t, err)
	require.EqualValues(t, 10, p.BlockedDeliveries, "the next run takes the rest")
	require.Equal(t, 8, count(), "the recent blocked rows and the sent one stay")
	require.Equal(t, 1, rows(t, pool, "SELECT count(*) FROM webhook_deliveries WHERE account_id = $1 AND status = 'delivered'", a.AccountID))
}
