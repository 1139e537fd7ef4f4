package oltp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func TestNotifierPositionIsSetOnceAndGuardsItsBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	_, err := oltp.NotifierPosition(ctx, pool)
	require.ErrorIs(t, err, oltp.ErrNotFound)
	pos, err := oltp.InitNotifierPosition(ctx, pool, 40)
	require.NoError(t, err)
	require.EqualValues(t, 40, pos)
	pos, err = oltp.InitNotifierPosition(ctx, pool, 90)
	require.NoError(t, err)
	require.EqualValues(t, 40, pos, "a later start keeps the position")

	_, err = oltp.BeginNotifierBatch(ctx, pool, 39)
	require.True(t, errors.Is(err, oltp.ErrPositionMoved))
	b, err := oltp.BeginNotifierBatch(ctx, pool, 40)
	require.NoError(t, err)
	require.NoError(t, b.Commit(ctx, 55))
	pos, err = oltp.NotifierPosition(ctx, pool)
	require.NoError(t, err)
	require.EqualValues(t, 55, pos)
	b, err = oltp.BeginNotifierBatch(ctx, pool, 55)
	require.NoError(t, err)
	b.Rollback(ctx)
	pos, err = oltp.NotifierPosition(ctx, pool)
	require.NoError(t, err)
	require.EqualValues(t, 55, pos, "a rolled back batch moves nothing")
}

func TestNotifierBatchWritesEachDeliveryOnceWithItsFiresAndReadsTheMonth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "starter")
	e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/n", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	w, _, _, err := oltp.CreateWatch(ctx, pool, box, newWatch(a, e.ID))
	require.NoError(t, err)
	month := time.Date(time.Now().UTC().Year(), time.Now().UTC().Month(), 1, 0, 0, 0, 0, time.UTC)
	_, err = pool.Exec(ctx, "INSERT INTO usage_monthly (account_id, month, calls, units) VALUES ($1, $2, 3, 17)", a.AccountID, month)
	require.NoError(t, err)
	_, err = oltp.InitNotifierPosition(ctx, pool, 0)
	require.NoError(t, err)

	write := func(from, to uint64, seqs ...uint64) []oltp.InsertedDelivery {
		b, err := oltp.BeginNotifierBatch(ctx, pool, from)
		require.NoError(t, err)
		ids, err := b.NextDeliveryIDs(ctx, len(seqs))
		require.NoError(t, err)
		var ds []oltp.NewDelivery
		for i, s := range seqs {
			status := "pending"
			if s%2 == 0 {
				status = "rate_limited"
			}
			ds = append(ds, oltp.NewDelivery{ID: ids[i], IdempotencyKey: "k" + itoa(int64(s)), CustomerID: a.CustomerID, AccountID: a.AccountID,
				EndpointID: e.ID, WatchID: w.ID, EventSeq: s, EventType: "opened", Body: []byte(`{}`), Status: status})
		}
		got, err := b.Insert(ctx, ds, time.Now())
		require.NoError(t, err)
		require.NoError(t, b.Commit(ctx, to))
		return got
	}
	require.Len(t, write(0, 4, 1, 2, 3, 4), 4)
	require.Len(t, write(4, 6, 3, 4, 5, 6), 2, "rows already written are skipped")

	b, err := oltp.BeginNotifierBatch(ctx, pool, 6)
	require.NoError(t, err)
	defer b.Rollback(ctx)
	fires, err := b.FiresSince(ctx, []int64{w.ID}, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	require.EqualValues(t, 3, fires[w.ID], "one fire per pending row written (1, 3, 5)")
	st, err := b.AccountStates(ctx, []int64{a.AccountID}, month)
	require.NoError(t, err)
	require.Equal(t, oltp.AccountDeliveryState{Tier: "tier_2", Overflow: "stop", HardCap: st[a.AccountID].HardCap, MonthUnits: 17, Admitted: 3, Unsent: 3}, st[a.AccountID])
	require.NotNil(t, st[a.AccountID].HardCap)
	var due int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL").Scan(&due))
	require.Equal(t, 3, due, "blocked rows are never due")
}
