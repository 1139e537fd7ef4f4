package oltp_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// small are budgets of 3 of everything.
var small = oltp.Budgets{KeysPerDay: 3, EndpointsPerDay: 3, WatchesPerDay: 3, QuickstartsPerDay: 3}

// requireBudget requires err to be a refusal of budget what at limit.
func requireBudget(t *testing.T, err error, what string, limit int) {
	t.Helper()
	var be *oltp.BudgetError
	require.True(t, errors.As(err, &be), "want a *BudgetError, got %v", err)
	require.Equal(t, what, be.Budget)
	require.Equal(t, limit, be.Limit)
	require.Greater(t, be.RetryAfter, time.Duration(0))
	require.LessOrEqual(t, be.RetryAfter, oltp.BudgetWindow)
}

func keyAuth(t *testing.T, pool *pgxpool.Pool, key string) oltp.KeyAuth {
	t.Helper()
	k, found, err := oltp.LookupKey(context.Background(), pool, apikey.Hash(key))
	require.NoError(t, err)
	require.True(t, found)
	return k
}

func rows(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), q, args...).Scan(&n))
	return n
}

// Issuing and revoking in a loop wrote a row per pair for ever: the key budget counts revoked
// keys, and rotations spend it too.
func TestKeyBudgetCountsRevokedKeysAndRotations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	a := account(t, pool, "free")
	parent := keyAuth(t, pool, a.Key)
	// CreateAccount's own first key is not a mint of the budget's routes, but it was created
	// today and counts like any other: 2 more fit.
	for range 2 {
		k, err := oltp.IssueKeyWithin(ctx, pool, small, parent, []string{"read"})
		require.NoError(t, err)
		require.NoError(t, oltp.RevokeKey(ctx, pool, a.CustomerID, k.KeyID, "t"))
	}
	_, err := oltp.IssueKeyWithin(ctx, pool, small, parent, []string{"read"})
	requireBudget(t, err, oltp.BudgetKeys, 3)
	_, err = oltp.RotateKeyWithin(ctx, pool, small, a.CustomerID, a.KeyID, nil, oltp.DefaultScopes, "t")
	requireBudget(t, err, oltp.BudgetKeys, 3)
	require.False(t, keyAuth(t, pool, a.Key).Revoked, "a refused rotation revokes nothing")
	require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM api_keys WHERE customer_id = $1", a.CustomerID))

	// Another customer's budget is its own; a larger budget lets the same customer on.
	b := account(t, pool, "free")
	_, err = oltp.IssueKeyWithin(ctx, pool, small, keyAuth(t, pool, b.Key), []string{"read"})
	require.NoError(t, err)
	_, err = oltp.RotateKeyWithin(ctx, pool, oltp.Budgets{KeysPerDay: 4}, a.CustomerID, a.KeyID, nil, oltp.DefaultScopes, "t")
	require.NoError(t, err)

	// Keys older than the window do not count.
	_, err = pool.Exec(ctx, "UPDATE api_keys SET created_at = created_at - interval '25 hours' WHERE customer_id = $1", a.CustomerID)
	require.NoError(t, err)
	_, err = oltp.IssueKeyWithin(ctx, pool, small, parent, []string{"read"})
	require.NoError(t, err)
}

// Registering and deleting in a loop wrote a row per pair for ever: the endpoint budget counts
// deleted endpoints; re-registering a live url spends nothing.
func TestEndpointBudgetCountsDeletedEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "free")
	url := "https://hooks.example.com/loop"
	for range 3 {
		e, created, err := oltp.RegisterEndpointWithin(ctx, pool, box, small, a.CustomerID, url, oltp.EndpointSecret{Secret: secretA})
		require.NoError(t, err)
		require.True(t, created)
		require.NoError(t, oltp.DeleteEndpoint(ctx, pool, a.CustomerID, e.ID))
	}
	_, _, err := oltp.RegisterEndpointWithin(ctx, pool, box, small, a.CustomerID, url, oltp.EndpointSecret{Secret: secretA})
	requireBudget(t, err, oltp.BudgetEndpoints, 3)
	require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1", a.CustomerID))

	// A live registration is found again past the budget.
	_, _, err = oltp.RegisterEndpointWithin(ctx, pool, box, oltp.Budgets{EndpointsPerDay: 4}, a.CustomerID, url, oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	_, created, err := oltp.RegisterEndpointWithin(ctx, pool, box, small, a.CustomerID, url, oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	require.False(t, created)

	// An inline endpoint of a watch spends the same budget.
	w := newWatch(a, 0)
	w.Budgets = oltp.Budgets{EndpointsPerDay: 4}
	w.Inline = &oltp.InlineEndpoint{URL: "https://hooks.example.com/inline", Secret: oltp.EndpointSecret{Secret: secretA}}
	_, _, _, err = oltp.CreateWatch(ctx, pool, box, w)
	requireBudget(t, err, oltp.BudgetEndpoints, 4)
}

// Creating and canceling in a loop wrote a row per pair for ever: the live-watch allowance frees
// a slot on cancel, the watch budget does not.
func TestWatchBudgetCountsCanceledWatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "free")
	e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/w", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	nw := newWatch(a, e.ID)
	nw.Allowance = 1
	nw.Budgets = small
	for range 3 {
		w, _, _, err := oltp.CreateWatch(ctx, pool, box, nw)
		require.NoError(t, err)
		require.NoError(t, oltp.CancelWatch(ctx, pool, a.CustomerID, w.ID))
	}
	_, _, _, err = oltp.CreateWatch(ctx, pool, box, nw)
	requireBudget(t, err, oltp.BudgetWatches, 3)
	require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM watches WHERE account_id = $1", a.AccountID))
}

// A quickstart of a new url spends the quickstart budget; one set up again after its watch was
// canceled spends the watch budget; calling again while it is live spends nothing.
func TestQuickstartBudgets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "free")
	qs := func(url string, b oltp.Budgets) (oltp.QuickstartResult, error) {
		w := newWatch(a, 0)
		w.Allowance, w.Budgets = 10, b
		w.Inline = &oltp.InlineEndpoint{URL: url, Secret: oltp.EndpointSecret{Secret: secretA}}
		return oltp.Quickstart(ctx, pool, box, w)
	}
	b := oltp.Budgets{QuickstartsPerDay: 2, WatchesPerDay: 3}
	for i := range 2 {
		_, err := qs(fmt.Sprintf("https://hooks.example.com/q%d", i), b)
		require.NoError(t, err)
	}
	_, err := qs("https://hooks.example.com/q2", b)
	requireBudget(t, err, oltp.BudgetQuickstarts, 2)
	require.Equal(t, 2, rows(t, pool, "SELECT count(*) FROM quickstarts WHERE customer_id = $1", a.CustomerID))

	r, err := qs("https://hooks.example.com/q0", b)
	require.NoError(t, err, "a url quickstarted before spends no quickstart")
	require.False(t, r.WatchCreated)
	require.NoError(t, oltp.CancelWatch(ctx, pool, a.CustomerID, r.Watch.ID))
	r, err = qs("https://hooks.example.com/q0", b)
	require.NoError(t, err)
	require.True(t, r.WatchCreated, "set up again: the third watch")
	require.NoError(t, oltp.CancelWatch(ctx, pool, a.CustomerID, r.Watch.ID))
	_, err = qs("https://hooks.example.com/q0", b)
	requireBudget(t, err, oltp.BudgetWatches, 3)
	require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM watches WHERE account_id = $1", a.AccountID))
}

// Concurrent creations each see the others' rows: none of the budgets is passed, whatever the
// interleaving.
func TestCreationBudgetsHoldUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	const n = 12
	race := func(t *testing.T, what string, create func(i int) error) {
		t.Helper()
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = create(i)
			}()
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			requireBudget(t, err, what, 3)
		}
		require.Equal(t, 3, ok, "exactly the budget passes")
	}

	t.Run("keys", func(t *testing.T) {
		// Half the calls issue, half rotate one key each of n/2 keys minted the day before.
		a := account(t, pool, "free")
		parent := keyAuth(t, pool, a.Key)
		var old []int64
		for range n / 2 {
			k, err := oltp.IssueKey(ctx, pool, parent, []string{"read"})
			require.NoError(t, err)
			old = append(old, k.KeyID)
		}
		_, err := pool.Exec(ctx, "UPDATE api_keys SET created_at = created_at - interval '2 days' WHERE customer_id = $1", a.CustomerID)
		require.NoError(t, err)
		race(t, oltp.BudgetKeys, func(i int) error {
			if i%2 == 0 {
				_, err := oltp.RotateKeyWithin(ctx, pool, small, a.CustomerID, old[i/2], nil, oltp.DefaultScopes, "t")
				return err
			}
			_, err := oltp.IssueKeyWithin(ctx, pool, small, parent, []string{"read"})
			return err
		})
		require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM api_keys WHERE customer_id = $1 AND created_at > now() - interval '1 day'", a.CustomerID))
	})
	t.Run("endpoints", func(t *testing.T) {
		a := account(t, pool, "free")
		race(t, oltp.BudgetEndpoints, func(i int) error {
			_, _, err := oltp.RegisterEndpointWithin(ctx, pool, box, small, a.CustomerID, fmt.Sprintf("https://hooks.example.com/c%d", i), oltp.EndpointSecret{Secret: secretA})
			return err
		})
		require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1", a.CustomerID))
	})
	t.Run("watches", func(t *testing.T) {
		a := account(t, pool, "free")
		e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/w", oltp.EndpointSecret{Secret: secretA})
		require.NoError(t, err)
		race(t, oltp.BudgetWatches, func(int) error {
			w := newWatch(a, e.ID)
			w.Allowance, w.Budgets = 100, small
			_, _, _, err := oltp.CreateWatch(ctx, pool, box, w)
			return err
		})
		require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM watches WHERE account_id = $1", a.AccountID))
	})
	t.Run("quickstarts", func(t *testing.T) {
		a := account(t, pool, "free")
		race(t, oltp.BudgetQuickstarts, func(i int) error {
			w := newWatch(a, 0)
			w.Allowance, w.Budgets = 100, oltp.Budgets{QuickstartsPerDay: 3}
			w.Inline = &oltp.InlineEndpoint{URL: fmt.Sprintf("https://hooks.example.com/q%d", i), Secret: oltp.EndpointSecret{Secret: secretA}}
			_, err := oltp.Quickstart(ctx, pool, box, w)
			return err
		})
		require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM quickstarts WHERE customer_id = $1", a.CustomerID))
		require.Equal(t, 3, rows(t, pool, "SELECT count(*) FROM watches WHERE account_id = $1", a.AccountID))
	})
}

// GET /v1/keys pages by key_id and filters by status; the quota reads active keys and the
// revoked ones named.
func TestListKeysPagesAndQuotaKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	a := account(t, pool, "free")
	parent := keyAuth(t, pool, a.Key)
	ids := []int64{a.KeyID}
	for range 4 {
		k, err := oltp.IssueKey(ctx, pool, parent, []string{"read"})
		require.NoError(t, err)
		ids = append(ids, k.KeyID)
	}
	require.NoError(t, oltp.RevokeKey(ctx, pool, a.CustomerID, ids[1], "t"))
	require.NoError(t, oltp.RevokeKey(ctx, pool, a.CustomerID, ids[3], "t"))

	var got []int64
	var after int64
	for pages := 0; ; pages++ {
		require.Less(t, pages, 3)
		page, more, err := oltp.ListKeys(ctx, pool, a.CustomerID, oltp.KeyPage{After: after, Limit: 2})
		require.NoError(t, err)
		require.LessOrEqual(t, len(page), 2)
		for _, k := range page {
			got = append(got, k.KeyID)
		}
		if !more {
			break
		}
		after = page[len(page)-1].KeyID
	}
	require.Equal(t, ids, got)

	keyIDs := func(ks []oltp.Key) []int64 {
		out := []int64{}
		for _, k := range ks {
			out = append(out, k.KeyID)
		}
		return out
	}
	active, more, err := oltp.ListKeys(ctx, pool, a.CustomerID, oltp.KeyPage{Limit: 10, Status: oltp.KeysActive})
	require.NoError(t, err)
	require.False(t, more)
	require.Equal(t, []int64{ids[0], ids[2], ids[4]}, keyIDs(active))
	revoked, _, err := oltp.ListKeys(ctx, pool, a.CustomerID, oltp.KeyPage{Limit: 10, Status: oltp.KeysRevoked})
	require.NoError(t, err)
	require.Equal(t, []int64{ids[1], ids[3]}, keyIDs(revoked))

	q, err := oltp.QuotaKeys(ctx, pool, a.CustomerID, []int64{ids[3]})
	require.NoError(t, err)
	require.Equal(t, []int64{ids[0], ids[2], ids[3], ids[4]}, keyIDs(q))
	other := account(t, pool, "free")
	q, err = oltp.QuotaKeys(ctx, pool, other.CustomerID, []int64{ids[0]})
	require.NoError(t, err)
	require.Equal(t, []int64{other.KeyID}, keyIDs(q), "another customer's id is not read")
}
