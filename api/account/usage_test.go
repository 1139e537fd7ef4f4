package account_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

var usageRoutes = []string{"/v1/usage", "/v1/usage/dashboard"}

// TestUsageRoutesNeedTheReadScope: a key without the read scope is refused 403
// insufficient_scope on /v1/usage and /v1/usage/dashboard; a key with it reads them.
func TestUsageRoutesNeedTheReadScope(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.Account(t, "growth")
	r := h.Do(t, "POST", "/v1/keys", a.Key, `{"scopes":["write"]}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	writeOnly := object(t, r)["key"].(string)
	for _, path := range usageRoutes {
		r := h.Do(t, "GET", path, writeOnly, "")
		require.Equal(t, 403, r.Status, "%s: %s", path, r.Body)
		d := object(t, r)["detail"].(map[string]any)
		require.Equal(t, api.ReasonInsufficientScope, d["reason"])
		require.Equal(t, api.ScopeRead, d["required_scope"])
		require.Equal(t, 200, h.Do(t, "GET", path, a.Key, "").Status, path)
	}
}

// TestUsageRoutesRefuseTheDemoKey: the shared public demo key bills nothing and has no usage to
// read; it must not drive a metering flush per call either. Both usage routes answer it 403.
func TestUsageRoutesRefuseTheDemoKey(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, path := range usageRoutes {
		r := h.Do(t, "GET", path, api.PublicDemoKey, "")
		require.Equal(t, 403, r.Status, "%s: %s", path, r.Body)
		d := object(t, r)["detail"].(map[string]any)
		require.Equal(t, api.ReasonInsufficientScope, d["reason"])
		require.Equal(t, path, d["endpoint"])
		require.Contains(t, d["message"], "demo key")
	}
}
