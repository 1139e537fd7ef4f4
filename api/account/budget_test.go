package account_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

// Issuing and revoking (or rotating) in a loop wrote an api_keys row per call for ever: past the
// daily key budget both are 409 and write nothing.
func TestKeysPastTheDailyBudgetAreRefused(t *testing.T) {
	t.Parallel()
	h := apitest.StartServer(t, apitest.Options{DB: "account", NoAccount: true, Register: func(srv *api.Server, pool *pgxpool.Pool) {
		account.Register(srv, account.Deps{Pool: pool, Log: apitest.Quiet(), Budgets: oltp.Budgets{KeysPerDay: 3}})
	}})
	a := h.Account(t, "free") // its first key was created today: 2 more fit
	for range 2 {
		r := h.Do(t, "POST", "/v1/keys", a.Key, `{"scopes":["read"]}`)
		require.Equal(t, 201, r.Status, string(r.Body))
		require.Equal(t, 204, h.Do(t, "DELETE", "/v1/keys/"+itoa(int64(object(t, r)["key_id"].(float64))), a.Key, "").Status)
	}
	r := h.Do(t, "POST", "/v1/keys", a.Key, `{"scopes":["read"]}`)
	h.RequireBudgetRefusal(t, "POST", "/v1/keys", r, api.ReasonCreationBudget, oltp.BudgetKeys, 3)
	r = h.Do(t, "POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", a.Key, `{}`)
	h.RequireBudgetRefusal(t, "POST", "/v1/keys/{key_id}/rotate", r, api.ReasonCreationBudget, oltp.BudgetKeys, 3)
	require.Equal(t, 200, h.Do(t, "GET", "/v1/whoami", a.Key, "").Status, "a refused rotation revokes nothing")
	var n int
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM api_keys WHERE customer_id = $1", a.CustomerID).Scan(&n))
	require.Equal(t, 3, n)
}

// GET /v1/keys answered every key in one list, growing without end: it pages.
func TestKeysListPages(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.Account(t, "growth")
	ids := []int64{a.KeyID}
	for range 4 {
		r := h.Do(t, "POST", "/v1/keys", a.Key, `{"scopes":["read"]}`)
		require.Equal(t, 201, r.Status, string(r.Body))
		ids = append(ids, int64(object(t, r)["key_id"].(float64)))
	}
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/keys/"+itoa(ids[1]), a.Key, "").Status)

	page := func(q url.Values) map[string]any {
		t.Helper()
		r := h.Get(t, "/v1/keys", a.Key, q)
		h.Conforms(t, "GET", "/v1/keys", r)
		require.Equal(t, 200, r.Status, string(r.Body))
		return object(t, r)
	}
	idsOf := func(p map[string]any) []int64 {
		out := []int64{}
		for _, k := range p["keys"].([]any) {
			out = append(out, int64(k.(map[string]any)["key_id"].(float64)))
		}
		return out
	}
	all := page(nil)
	require.Equal(t, ids, idsOf(all), "the default page holds every key of a customer with few")
	require.Equal(t, false, all["has_more"])
	require.Nil(t, all["next_cursor"])

	var got []int64
	q := url.Values{"limit": {"2"}}
	for i := 0; ; i++ {
		require.Less(t, i, 3)
		p := page(q)
		got = append(got, idsOf(p)...)
		if p["has_more"] == false {
			require.Nil(t, p["next_cursor"])
			break
		}
		q.Set("cursor", itoa(int64(p["next_cursor"].(float64))))
	}
	require.Equal(t, ids, got)

	require.Equal(t, []int64{ids[0], ids[2], ids[3], ids[4]}, idsOf(page(url.Values{"status": {"active"}})))
	require.Equal(t, []int64{ids[1]}, idsOf(page(url.Values{"status": {"revoked"}})))

	for _, bad := range []url.Values{{"limit": {"0"}}, {"limit": {itoa(account.KeysPageMax + 1)}}, {"status": {"expired"}}, {"cursor": {"0"}}} {
		r := h.Get(t, "/v1/keys", a.Key, bad)
		h.Conforms(t, "GET", "/v1/keys", r)
		require.Equal(t, 422, r.Status, "%v: %s", bad, r.Body)
	}
}
