package account_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeysIssueListRevokeRotate(t *testing.T) {
	h := start(t)
	a := h.Account(t, "starter")

	r := h.Do(t, "POST", "/v1/keys", a.Key, `{}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	k := object(t, r)
	require.Equal(t, "tier_2", k["tier"])
	require.Equal(t, []any{"read", "write", "keys"}, k["scopes"])
	require.EqualValues(t, a.KeyID, k["parent_key_id"])
	newKey := k["key"].(string)
	w := object(t, h.Do(t, "GET", "/v1/whoami", newKey, ""))
	require.Equal(t, a.CustomerID, w["customer_id"])
	require.EqualValues(t, a.AccountID, w["account_id"])

	r = h.Do(t, "POST", "/v1/keys", a.Key, `{"tier":"tier_3"}`)
	require.Equal(t, 422, r.Status)
	d := object(t, r)["detail"].([]any)[0].(map[string]any)
	require.Equal(t, []any{"body", "tier"}, d["loc"])
	require.Equal(t, "extra_forbidden", d["type"])
	require.Contains(t, d, "ctx")
	require.Contains(t, d, "input")

	list := object(t, h.Do(t, "GET", "/v1/keys", a.Key, ""))["keys"].([]any)
	require.Len(t, list, 2)
	for _, it := range list {
		m := it.(map[string]any)
		require.NotContains(t, m, "key", "the key itself is never listed")
		require.Contains(t, m, "last_used_at")
		require.Contains(t, m, "revoked_at")
	}

	newID := itoa(int64(k["key_id"].(float64)))
	r = h.Do(t, "DELETE", "/v1/keys/"+newID, a.Key, "")
	require.Equal(t, 204, r.Status)
	require.Empty(t, r.Body)
	require.Equal(t, 403, h.Do(t, "GET", "/v1/whoami", newKey, "").Status)

	// Rotating a revoked key is 404; rotating needs a JSON body.
	r = h.Do(t, "POST", "/v1/keys/"+newID+"/rotate", a.Key, `{}`)
	require.Equal(t, 404, r.Status)
	r = h.Do(t, "POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", a.Key, "")
	require.Equal(t, 422, r.Status)
	require.Equal(t, "missing", object(t, r)["detail"].([]any)[0].(map[string]any)["type"])

	r = h.Do(t, "POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", a.Key, `{}`)
	require.Equal(t, 201, r.Status)
	rot := object(t, r)
	require.Equal(t, "tier_2", rot["tier"])
	require.Equal(t, 403, h.Do(t, "GET", "/v1/whoami", a.Key, "").Status, "the rotated key is revoked at once")
	require.Equal(t, 200, h.Do(t, "GET", "/v1/whoami", rot["key"].(string), "").Status)
}

// Every key route that takes an id answers another customer's id exactly like a missing one.
func TestCrossTenantIDsAnswerLikeMissingOnes(t *testing.T) {
	h := start(t)
	me := h.Account(t, "growth")
	other := h.Account(t, "growth")
	missing := "999999"
	foreign := itoa(other.KeyID)
	cases := []struct{ method, path, body string }{
		{"DELETE", "/v1/keys/%s", ""},
		{"POST", "/v1/keys/%s/rotate", "{}"},
	}
	for _, c := range cases {
		a := h.Do(t, c.method, fmt.Sprintf(c.path, missing), me.Key, c.body)
		b := h.Do(t, c.method, fmt.Sprintf(c.path, foreign), me.Key, c.body)
		require.Equal(t, a.Status, b.Status, c.path)
		require.Equal(t, string(a.Body), string(b.Body), c.path)
		require.NotEqual(t, 200, a.Status)
		require.NotEqual(t, 204, a.Status)
	}
	// The foreign key still works for its owner.
	require.Equal(t, 200, h.Do(t, "GET", "/v1/whoami", other.Key, "").Status)
}
