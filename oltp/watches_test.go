package oltp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func account(t *testing.T, pool *pgxpool.Pool, plan string) oltp.NewAccount {
	t.Helper()
	a, err := oltp.CreateAccount(context.Background(), pool, plan, plan+"-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@example.com")
	require.NoError(t, err)
	return a
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func newWatch(a oltp.NewAccount, endpointID int64) oltp.NewWatch {
	company := int64(42)
	return oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, Allowance: 3, EndpointID: endpointID, CompanyID: &company,
		EventTypes: []string{"opened", "reposted", "closed"}, MaxFiresPerHour: 20}
}

func TestConcurrentWatchCreationsNeverPassTheAllowance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "free")
	e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/w", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)

	const n = 10
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, _, errs[i] = oltp.CreateWatch(ctx, pool, box, newWatch(a, e.ID))
		}()
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, err := range errs {
		var ae *oltp.AllowanceError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &ae):
			refused++
			require.EqualValues(t, 3, ae.Limit)
			require.EqualValues(t, 3, ae.Used)
		default:
			require.NoError(t, err)
		}
	}
	require.Equal(t, 3, ok)
	require.Equal(t, n-3, refused)
	live, err := oltp.LiveWatches(ctx, pool, a.CustomerID)
	require.NoError(t, err)
	require.EqualValues(t, 3, live)
	var rows int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM watches WHERE account_id = $1", a.AccountID).Scan(&rows))
	require.Equal(t, 3, rows, "a refused creation leaves nothing behind")
}

func TestInlineEndpointIsRolledBackWithARefusedWatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "free")
	w := newWatch(a, 0)
	w.Allowance = 0
	w.Inline = &oltp.InlineEndpoint{URL: "https://hooks.example.com/inline", Secret: oltp.EndpointSecret{Secret: secretA}}
	_, _, _, err := oltp.CreateWatch(ctx, pool, box, w)
	var ae *oltp.AllowanceError
	require.True(t, errors.As(err, &ae))
	list, err := oltp.ListEndpoints(ctx, pool, a.CustomerID)
	require.NoError(t, err)
	require.Empty(t, list, "the inline endpoint is not left behind")

	w.Allowance = 3
	_, ep, created, err := oltp.CreateWatch(ctx, pool, box, w)
	require.NoError(t, err)
	require.True(t, created)
	_, ep2, created, err := oltp.CreateWatch(ctx, pool, box, w)
	require.NoError(t, err)
	require.False(t, created, "the same url is reused")
	require.Equal(t, ep.ID, ep2.ID)
}

func TestListWatchesCountsFiresAndCancelFreesTheSlot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a, other := account(t, pool, "free"), account(t, pool, "free")
	e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/l", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	w1, _, _, err := oltp.CreateWatch(ctx, pool, box, newWatch(a, e.ID))
	require.NoError(t, err)
	cw := newWatch(a, e.ID)
	cw.CompanyID = nil
	cw.Criteria = json.RawMessage(`{"req": {"q": "engineer"}}`)
	w2, _, _, err := oltp.CreateWatch(ctx, pool, box, cw)
	require.NoError(t, err)

	now := time.Now().UTC().Truncate(time.Second)
	for _, ago := range []time.Duration{time.Minute, 30 * time.Minute, 2 * time.Hour, 3 * 24 * time.Hour, 20 * 24 * time.Hour, 40 * 24 * time.Hour} {
		require.NoError(t, oltp.RecordWatchFire(ctx, pool, w1.ID, now.Add(-ago), 7))
	}
	list, err := oltp.ListWatches(ctx, pool, a.CustomerID, now)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, w2.ID, list[0].ID, "newest first")
	require.Nil(t, list[0].CompanyID)
	require.JSONEq(t, `{"req": {"q": "engineer"}}`, string(list[0].Criteria))
	require.Zero(t, list[0].FiresLast30d)
	require.Nil(t, list[0].LastFiredAt)
	got := list[1]
	require.EqualValues(t, 42, *got.CompanyID)
	require.Nil(t, got.Criteria)
	require.EqualValues(t, 2, got.FiresLastHour)
	require.EqualValues(t, 4, got.FiresLast7d)
	require.EqualValues(t, 5, got.FiresLast30d)
	require.True(t, now.Add(-time.Minute).Equal(*got.LastFiredAt))

	// The same fires in the spans of an accelerated dev clock (world hours in wall time).
	scaled, err := oltp.ListWatchesIn(ctx, pool, a.CustomerID, now, oltp.FireWindows{Hour: 10 * time.Minute, Week: time.Hour, Month: 4 * 24 * time.Hour})
	require.NoError(t, err)
	require.EqualValues(t, 1, scaled[1].FiresLastHour)
	require.EqualValues(t, 2, scaled[1].FiresLast7d)
	require.EqualValues(t, 4, scaled[1].FiresLast30d)

	others, err := oltp.ListWatches(ctx, pool, other.CustomerID, now)
	require.NoError(t, err)
	require.Empty(t, others)

	require.ErrorIs(t, oltp.CancelWatch(ctx, pool, other.CustomerID, w1.ID), oltp.ErrNotFound)
	require.ErrorIs(t, oltp.CancelWatch(ctx, pool, a.CustomerID, 999999), oltp.ErrNotFound)
	require.NoError(t, oltp.CancelWatch(ctx, pool, a.CustomerID, w1.ID))
	require.NoError(t, oltp.CancelWatch(ctx, pool, a.CustomerID, w1.ID), "again: a no-op")
	list, err = oltp.ListWatches(ctx, pool, a.CustomerID, now)
	require.NoError(t, err)
	require.Len(t, list, 1)
	live, err := oltp.PushCounts{Pool: pool}.LiveWatches(ctx, a.CustomerID)
	require.NoError(t, err)
	require.EqualValues(t, 1, live)
}
