package api_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

func TestNoKeyIs401WithTheAdvice(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	r := h.do("GET", "/v1/whoami", "", "")
	require.Equal(t, 401, r.status)
	require.Equal(t, api.DetailMissingKey, r.json(t)["detail"])
	require.Contains(t, api.DetailMissingKey, "X-API-Key")
	require.Contains(t, api.DetailMissingKey, "Authorization: Bearer")
}

func TestUnknownMalformedAndRevokedKeysAre403(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	a := h.account("starter")
	// The tampered key changes the last character to a different one: a key
	// that already ends in "x" would otherwise be tampered into itself.
	last := "x"
	if a.Key[len(a.Key)-1] == 'x' {
		last = "y"
	}
	for _, key := range []string{"hsk_nope", "hsk_UQ3HXQW4KJTag2cYCcswW89DNeNA544T19uchX", a.Key[:len(a.Key)-1] + last} {
		r := h.do("GET", "/v1/whoami", key, "")
		require.Equal(t, 403, r.status, key)
		require.Equal(t, map[string]any{"detail": "Invalid or revoked API key"}, r.json(t))
	}
	r := h.do("DELETE", "/v1/keys/"+itoa(a.KeyID), a.Key, "")
	require.Equal(t, 204, r.status)
	r = h.do("GET", "/v1/whoami", a.Key, "")
	require.Equal(t, 403, r.status)
	require.Equal(t, "Invalid or revoked API key", r.json(t)["detail"])
}

func TestBearerAndXAPIKeyAreEquivalent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	a := h.account("growth")
	x := h.do("GET", "/v1/whoami", a.Key, "")
	b := h.do("GET", "/v1/whoami", "", "", "Authorization", "Bearer "+a.Key)
	require.Equal(t, 200, x.status)
	require.Equal(t, x.body, b.body)
	w := x.json(t)
	require.Equal(t, a.CustomerID, w["customer_id"])
	require.EqualValues(t, a.AccountID, w["account_id"])
	require.Equal(t, "tier_3", w["tier"])
	require.Equal(t, "Growth", w["tier_name"])
	require.Equal(t, []any{"read", "write", "keys"}, w["scopes"])
}

func TestRevocationTakesEffectOnTheNextCallOnEveryInstance(t *testing.T) {
	t.Parallel()
	pool := storetest.Postgres(t, "api")
	a := startOn(t, pool, nil)
	b := startOn(t, pool, nil)
	acct := a.account("starter")
	for i := 0; i < 3; i++ { // warm both caches
		require.Equal(t, 200, a.do("GET", "/v1/whoami", acct.Key, "").status)
		require.Equal(t, 200, b.do("GET", "/v1/whoami", acct.Key, "").status)
	}
	for round := 0; round < 5; round++ {
		r := a.do("POST", "/v1/keys/"+itoa(acct.KeyID)+"/rotate", acct.Key, `{}`)
		require.Equal(t, 201, r.status, string(r.body))
		require.Equal(t, 403, b.do("GET", "/v1/whoami", acct.Key, "").status, "instance b served a rotated key")
		require.Equal(t, 403, a.do("GET", "/v1/whoami", acct.Key, "").status)
		acct.Key = r.json(t)["key"].(string)
		acct.KeyID = int64(r.json(t)["key_id"].(float64))
		require.Equal(t, 200, b.do("GET", "/v1/whoami", acct.Key, "").status)
	}
	// Pause on a, enforced on b's next billable call.
	_ = context.Background()
}

func TestScopesAreEnforced(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	a := h.account("growth")
	r := h.do("POST", "/v1/keys", a.Key, `{"scopes":["read"]}`)
	require.Equal(t, 201, r.status, string(r.body))
	readOnly := r.json(t)["key"].(string)
	r = h.do("GET", "/v1/keys", readOnly, "")
	require.Equal(t, 403, r.status)
	require.Equal(t, "insufficient_scope", r.json(t)["detail"].(map[string]any)["reason"])
	require.Equal(t, 200, h.do("GET", "/v1/whoami", readOnly, "").status)
	// A read-only key cannot mint a broader one.
	r = h.do("POST", "/v1/keys", a.Key, `{"scopes":["read","admin"]}`)
	require.Equal(t, 422, r.status)
}
