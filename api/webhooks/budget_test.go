package webhooks_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/webhooks"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

// Registering and deleting in a loop wrote a webhook_endpoints row per pair for ever: past the
// daily endpoint budget a new endpoint is 409 and nothing is written; a live url is still found.
func TestEndpointsPastTheDailyBudgetAreRefused(t *testing.T) {
	t.Parallel()
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	h := apitest.StartServer(t, apitest.Options{DB: "webhooks", Register: func(srv *api.Server, pool *pgxpool.Pool) {
		webhooks.Register(srv, webhooks.Deps{Pool: pool, Log: apitest.Quiet(), Box: box, Egress: egress.Policy{LookupNetIP: apitest.FakeDNS},
			Budgets: oltp.Budgets{EndpointsPerDay: 2}})
	}})
	a := h.Account(t, "free")
	hook, live := `{"url":"https://hooks.example.com/loop"}`, `{"url":"https://hooks.example.com/live"}`
	r := h.Post(t, "/v1/webhooks", a.Key, hook)
	require.Equal(t, 201, r.Status, string(r.Body))
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/webhooks/"+itoa(idOf(t, apitest.Object(t, r))), a.Key, nil).Status)
	require.Equal(t, 201, h.Post(t, "/v1/webhooks", a.Key, live).Status)
	r = h.Post(t, "/v1/webhooks", a.Key, hook)
	h.RequireBudgetRefusal(t, "POST", "/v1/webhooks", r, api.ReasonCreationBudget, oltp.BudgetEndpoints, 2)
	var n int
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1", a.CustomerID).Scan(&n))
	require.Equal(t, 2, n)
	require.Equal(t, 200, h.Post(t, "/v1/webhooks", a.Key, live).Status, "re-registering a live url creates nothing")

	// Another customer has its own budget.
	b := h.Account(t, "free")
	require.Equal(t, 201, h.Post(t, "/v1/webhooks", b.Key, hook).Status)
	require.Equal(t, 200, h.Post(t, "/v1/webhooks", b.Key, hook).Status)
}
