package api_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeysIssueListRevokeRotate(t *testing.T) {
	h := newHarness(t, nil)
	a := h.account("starter")

	r := h.do("POST", "/v1/keys", a.Key, `{}`)
	require.Equal(t, 201, r.status, string(r.body))
	k := r.json(t)
	require.Equal(t, "tier_2", k["tier"])
	require.Equal(t, []any{"read", "write", "keys"}, k["scopes"])
	require.EqualValues(t, a.KeyID, k["parent_key_id"])
	newKey := k["key"].(string)
	w := h.do("GET", "/v1/whoami", newKey, "").json(t)
	require.Equal(t, a.CustomerID, w["customer_id"])
	require.EqualValues(t, a.AccountID, w["account_id"])

	r = h.do("POST", "/v1/keys", a.Key, `{"tier":"tier_3"}`)
	require.Equal(t, 422, r.status)
	d := r.json(t)["detail"].([]any)[0].(map[string]any)
	require.Equal(t, []any{"body", "tier"}, d["loc"])
	require.Equal(t, "extra_forbidden", d["type"])
	require.Contains(t, d, "ctx")
	require.Contains(t, d, "input")

	list := h.do("GET", "/v1/keys", a.Key, "").json(t)["keys"].([]any)
	require.Len(t, list, 2)
	for _, it := range list {
		m := it.(map[string]any)
		require.NotContains(t, m, "key", "the key itself is never listed")
		require.Contains(t, m, "last_used_at")
		require.Contains(t, m, "revoked_at")
	}

	newID := itoa(int64(k["key_id"].(float64)))
	r = h.do("DELETE", "/v1/keys/"+newID, a.Key, "")
	require.Equal(t, 204, r.status)
	require.Empty(t, r.body)
	require.Equal(t, 403, h.do("GET", "/v1/whoami", newKey, "").status)

	// Rotating a revoked key is 404; rotating needs a JSON body.
	r = h.do("POST", "/v1/keys/"+newID+"/rotate", a.Key, `{}`)
	require.Equal(t, 404, r.status)
	r = h.do("POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", a.Key, "")
	require.Equal(t, 422, r.status)
	require.Equal(t, "missing", r.json(t)["detail"].([]any)[0].(map[string]any)["type"])

	r = h.do("POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", a.Key, `{}`)
	require.Equal(t, 201, r.status)
	rot := r.json(t)
	require.Equal(t, "tier_2", rot["tier"])
	require.Equal(t, 403, h.do("GET", "/v1/whoami", a.Key, "").status, "the rotated key is revoked at once")
	require.Equal(t, 200, h.do("GET", "/v1/whoami", rot["key"].(string), "").status)
}

// Every route that takes an id answers another customer's id exactly like a missing one.
func TestCrossTenantIDsAnswerLikeMissingOnes(t *testing.T) {
	h := newHarness(t, nil)
	me := h.account("growth")
	other := h.account("growth")
	missing := "999999"
	foreign := itoa(other.KeyID)
	cases := []struct{ method, path, body string }{
		{"DELETE", "/v1/keys/%s", ""},
		{"POST", "/v1/keys/%s/rotate", "{}"},
		{"DELETE", "/v1/watches/%s", ""},
		{"GET", "/v1/webhook-deliveries/%s", ""},
		{"POST", "/v1/webhook-deliveries/%s/replay", "{}"},
		{"GET", "/v1/companies/%s/is-hiring", ""},
		{"GET", "/v1/companies/%s/intent", ""},
		{"POST", "/v1/companies/%s/outcomes", `{"outcome":"won"}`},
	}
	for _, c := range cases {
		a := h.do(c.method, sprintf(c.path, missing), me.Key, c.body)
		b := h.do(c.method, sprintf(c.path, foreign), me.Key, c.body)
		require.Equal(t, a.status, b.status, c.path)
		require.Equal(t, string(a.body), string(b.body), c.path)
		require.NotEqual(t, 200, a.status)
		require.NotEqual(t, 204, a.status)
	}
	// The foreign key still works for its owner.
	require.Equal(t, 200, h.do("GET", "/v1/whoami", other.Key, "").status)
}
