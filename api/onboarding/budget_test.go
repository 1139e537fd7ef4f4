package onboarding_test

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/onboarding"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

// A quickstart of a new webhook_url, and one set up again after its watch was canceled, wrote a
// row each for ever: past the quickstart budget (new urls) and the watch budget (set up again)
// the quickstart is 409 and writes nothing.
func TestQuickstartsPastTheDailyBudgetsAreRefused(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	policy := egress.Policy{LookupNetIP: apitest.FakeDNS}
	b := oltp.Budgets{QuickstartsPerDay: 2, WatchesPerDay: 3}
	srv := apitest.StartServer(t, apitest.Options{DB: "onboarding", Push: &apitest.Push{Box: box, Egress: policy, Snapshots: f.snaps},
		Register: func(s *api.Server, pool *pgxpool.Pool) {
			onboarding.Register(s, onboarding.Deps{Pool: pool, Log: apitest.Quiet(), Box: box, Egress: policy, Snapshots: f.snaps, Budgets: b})
		}})
	acct := srv.RoomyAccount(t, "growth")
	qs := func(hook string) apitest.Response {
		return srv.Post(t, "/v1/quickstart", acct.Key, map[string]any{"webhook_url": "https://hooks.example.com/" + hook})
	}
	refused := func(r apitest.Response, what string, limit int) {
		t.Helper()
		srv.RequireBudgetRefusal(t, "POST", "/v1/quickstart", r, api.ReasonCreationBudget, what, limit)
	}
	var first quickstart
	qs("a").Decode(t, 200, &first)
	require.Equal(t, 200, qs("b").Status)
	refused(qs("c"), oltp.BudgetQuickstarts, 2)
	require.Equal(t, 2, count(t, srv.Pool, "SELECT count(*) FROM quickstarts WHERE customer_id = $1", acct.CustomerID))
	require.Equal(t, 2, count(t, srv.Pool, "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1", acct.CustomerID))

	var again quickstart
	qs("a").Decode(t, 200, &again)
	require.False(t, again.Created, "a url quickstarted before spends nothing")
	require.Equal(t, 204, srv.Do(t, "DELETE", "/v1/watches/"+itoa(first.Watch.WatchID), acct.Key, nil).Status)
	var third quickstart
	qs("a").Decode(t, 200, &third)
	require.True(t, third.Created, "set up again: the third watch of the day")
	require.Equal(t, 204, srv.Do(t, "DELETE", "/v1/watches/"+itoa(third.Watch.WatchID), acct.Key, nil).Status)
	refused(qs("a"), oltp.BudgetWatches, 3)
	require.Equal(t, 3, count(t, srv.Pool, "SELECT count(*) FROM watches WHERE customer_id = $1", acct.CustomerID))
}
