package account_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/search"
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

// by_function counts metered calls by taxonomy id, the value req rows carry and the function
// filter takes; by_function_name counts the same calls by the function's name, the ids of one name
// summed, an id outside the named vocabulary kept as its id; per key as in the totals.
func TestUsageCountsCallsByFunctionIdAndName(t *testing.T) {
	t.Parallel()
	var probe *api.Route
	for _, rt := range search.Routes(search.Deps{}) {
		if rt.Name == "reqs.search" {
			probe = rt
		}
	}
	probe.Handler = func(c *api.Call) (int, error) {
		fn, _ := c.String("q") // the function the call concerned, as a handler reports it
		c.SetFunction(fn)
		return 0, c.JSON(200, map[string]any{})
	}
	h := start(t, probe)
	a := h.Account(t, "growth")
	for _, id := range []string{"fn_7k2q", "fn_7k2q", "fn_b3xw", "fn_s2kv", "fn_z0lg"} { // Engineering x3, Sales, an unnamed legacy id
		require.Equal(t, 200, h.Get(t, "/v1/reqs/search", a.Key, url.Values{"q": {id}}).Status)
	}
	require.NoError(t, h.API.FlushUsage(context.Background()))
	var u struct {
		ByFunction     map[string]int64 `json:"by_function"`
		ByFunctionName map[string]int64 `json:"by_function_name"`
		Keys           []struct {
			ByFunction     map[string]int64 `json:"by_function"`
			ByFunctionName map[string]int64 `json:"by_function_name"`
		} `json:"keys"`
	}
	r := h.Get(t, "/v1/usage", a.Key, nil)
	h.Conforms(t, "GET", "/v1/usage", r)
	r.Decode(t, 200, &u)
	require.Equal(t, map[string]int64{"fn_7k2q": 2, "fn_b3xw": 1, "fn_s2kv": 1, "fn_z0lg": 1}, u.ByFunction)
	require.Equal(t, map[string]int64{"Engineering": 3, "Sales": 1, "fn_z0lg": 1}, u.ByFunctionName)
	require.Len(t, u.Keys, 1)
	require.Equal(t, u.ByFunction, u.Keys[0].ByFunction)
	require.Equal(t, u.ByFunctionName, u.Keys[0].ByFunctionName)
}
