package watches_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/watches"
	"github.com/planehq/hiringsignal/api/webhooks"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

// Creating and canceling in a loop wrote a watches row per pair for ever (canceling frees the
// live-watch slot): past the daily watch budget a creation is 409 and writes nothing; an inline
// webhook_url past the endpoint budget likewise.
func TestWatchesPastTheDailyBudgetAreRefused(t *testing.T) {
	t.Parallel()
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	policy := egress.Policy{LookupNetIP: apitest.FakeDNS}
	b := oltp.Budgets{WatchesPerDay: 2, EndpointsPerDay: 1}
	h := apitest.StartServer(t, apitest.Options{DB: "watches", Register: func(srv *api.Server, pool *pgxpool.Pool) {
		webhooks.Register(srv, webhooks.Deps{Pool: pool, Log: apitest.Quiet(), Box: box, Egress: policy, Budgets: b})
		watches.Register(srv, watches.Deps{Pool: pool, Log: apitest.Quiet(), Box: box, Egress: policy, Snapshots: newSnapshot(), Budgets: b})
	}})
	a := h.RoomyAccount(t, "free")
	ep := h.Endpoint(t, a.Key, "https://hooks.example.com/w")
	body := map[string]any{"company_id": acme, "webhook_endpoint_id": ep}
	for range 2 {
		r := h.Post(t, "/v1/watches", a.Key, body)
		require.Equal(t, 201, r.Status, string(r.Body))
		require.Equal(t, 204, h.Do(t, "DELETE", "/v1/watches/"+id(apitest.Object(t, r)), a.Key, nil).Status)
	}
	refused := func(r apitest.Response, what string, limit int) {
		t.Helper()
		h.RequireBudgetRefusal(t, "POST", "/v1/watches", r, api.ReasonCreationBudget, what, limit)
	}
	refused(h.Post(t, "/v1/watches", a.Key, body), oltp.BudgetWatches, 2)
	var n int
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM watches WHERE account_id = $1", a.AccountID).Scan(&n))
	require.Equal(t, 2, n)

	// The endpoint budget (1) was spent on ep: an inline webhook_url of a new url is refused first.
	other := h.RoomyAccount(t, "free")
	h.Endpoint(t, other.Key, "https://hooks.example.com/o")
	refused(h.Post(t, "/v1/watches", other.Key, map[string]any{"company_id": acme, "webhook_url": "https://hooks.example.com/new"}), oltp.BudgetEndpoints, 1)
	r := h.Post(t, "/v1/watches", other.Key, map[string]any{"company_id": acme, "webhook_url": "https://hooks.example.com/o"})
	require.Equal(t, 201, r.Status, "an inline url already registered spends no endpoint: %s", r.Body)
}
