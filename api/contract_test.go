package api_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
)

type openapiDoc struct {
	OpenAPI string                                 `json:"openapi"`
	Info    struct{ Version string }               `json:"info"`
	Paths   map[string]map[string]openapiOperation `json:"paths"`
}

type openapiOperation struct {
	Responses map[string]any `json:"responses"`
}

// Every registered route is in the document, and every status the sweep provokes on it is
// documented for that operation.
func TestEveryRouteAndStatusIsInTheOpenAPIDocument(t *testing.T) {
	h := newHarness(t, nil)
	var doc openapiDoc
	r := h.do("GET", "/openapi.json", "", "")
	require.Equal(t, 200, r.status)
	require.NoError(t, json.Unmarshal(r.body, &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.Equal(t, "0.1.0", doc.Info.Version)

	registered := h.srv.Router().List()
	n := 0
	for method, paths := range registered {
		for _, p := range paths {
			op, ok := doc.Paths[p][strings.ToLower(method)]
			require.True(t, ok, "%s %s is registered but not documented", method, p)
			_ = op
			n++
		}
	}
	require.Greater(t, n, 40)

	good := h.account("growth")
	paused := h.account("growth")
	require.Equal(t, 200, h.do("POST", "/v1/account/pause", paused.Key, "").status)
	keys := []string{"", "hsk_invalid", good.Key, api.PublicDemoKey, paused.Key}
	bodies := []string{"", "{", `{"webhook_url":"https://x.example","url":"https://x.example","outcome":"won","scopes":["read"]}`}
	for _, rt := range api.Contract() {
		path := rt.Path
		for _, id := range []string{"{company_id}", "{key_id}", "{watch_id}", "{delivery_id}"} {
			path = strings.ReplaceAll(path, id, "12345")
		}
		for _, key := range keys {
			for _, body := range bodies {
				if rt.Body == nil && body != "" {
					continue
				}
				for _, q := range []string{"", "?limit=0&window=0&since=x&company_id=x"} {
					res := h.do(rt.Method, path+q, key, body)
					_, documented := doc.Paths[rt.Path][strings.ToLower(rt.Method)].Responses[strconv.Itoa(res.status)]
					require.True(t, documented, "%s %s answered %d (%s), not in the document", rt.Method, rt.Path, res.status, res.body)
					if rt.Name == "keys.revoke" && res.status == 204 {
						good = h.account("growth")
						keys[2] = good.Key
					}
				}
			}
		}
	}
}

func TestErrorsAreJSONInTheSpecShape(t *testing.T) {
	h := newHarness(t, func(cfg *api.Config, _ *api.Server) { cfg.MaxBodyBytes = 1024 })
	a := h.account("growth")
	r := h.do("GET", "/v1/nope", a.Key, "")
	require.Equal(t, 404, r.status)
	require.Contains(t, r.json(t), "detail")
	r = h.do("PUT", "/v1/whoami", a.Key, "")
	require.Equal(t, 405, r.status)
	require.Contains(t, r.json(t), "detail")
	r = h.do("POST", "/v1/keys", a.Key, `{"scopes": [`)
	require.Equal(t, 422, r.status)
	d := r.json(t)["detail"].([]any)[0].(map[string]any)
	require.Equal(t, "json_invalid", d["type"])
	require.Equal(t, "body", d["loc"].([]any)[0])
	r = h.do("POST", "/v1/keys", a.Key, `{"scopes":"`+strings.Repeat("x", 8<<10)+`"}`)
	require.Equal(t, 413, r.status)
	require.Contains(t, r.json(t), "detail")
	// A stub answers 501 with a JSON detail, through the same chain.
	r = h.do("GET", "/v1/watches", a.Key, "")
	require.Equal(t, 501, r.status)
	require.Contains(t, r.json(t)["detail"], "not built yet")
	require.Equal(t, 401, h.do("GET", "/v1/watches", "", "").status)
	// Query validation: out of range, repeated single value, enum, q with role.
	for _, q := range []string{"limit=101", "limit=0", "since=2026-01-01&since=2026-01-02", "source_type=rss", "headcount_band=9", "q=a&role=b", "cursor=x"} {
		r = h.do("GET", "/v1/reqs/search?"+q, a.Key, "")
		require.Equal(t, 422, r.status, q)
		for _, it := range r.json(t)["detail"].([]any) {
			m := it.(map[string]any)
			for _, f := range []string{"type", "loc", "msg", "input", "ctx"} {
				require.Contains(t, m, f)
			}
			require.Equal(t, "query", m["loc"].([]any)[0])
		}
	}
	// The deprecated role is answered as q, with Deprecation and Sunset headers (reads issue).
	r = h.do("GET", "/v1/reqs/search?role=engineer", a.Key, "")
	require.Equal(t, 501, r.status)
	require.NotEmpty(t, r.header["Deprecation"])
	require.Contains(t, r.header["Sunset"], "2026")
}

func TestPricingIsTheSpecPriceList(t *testing.T) {
	h := newHarness(t, nil)
	p := h.do("GET", "/v1/pricing", "", "").json(t)
	tiers := p["tiers"].([]any)
	require.Len(t, tiers, 5)
	want := []struct {
		name, id          any
		amount            any
		sellable          bool
		quota, hard, soft any
		bundle            any
	}{
		{"Free", "tier_0", 0.0, false, 100.0, 10000.0, 8000.0, map[string]any{"watches": 3.0, "fires": 50.0, "credits": 0.0}},
		{"Trial", "tier_1", 0.01, false, 10000.0, 10000.0, 8000.0, nil},
		{"Starter", "tier_2", 49.0, true, 50000.0, 25000.0, 20000.0, map[string]any{"watches": 5.0, "fires": 250.0, "credits": 1000.0}},
		{"Growth", "tier_3", 199.0, true, 200000.0, 100000.0, 80000.0, map[string]any{"watches": 25.0, "fires": 1500.0, "credits": 5000.0}},
		{"Enterprise", nil, nil, false, nil, nil, nil, nil},
	}
	for i, w := range want {
		tr := tiers[i].(map[string]any)
		require.Equal(t, w.name, tr["name"])
		require.Equal(t, w.id, tr["tier_id"])
		require.Equal(t, w.amount, tr["monthly_amount"])
		require.Equal(t, w.sellable, tr["sellable"])
		require.Equal(t, w.quota, tr["daily_quota"])
		require.Equal(t, w.hard, tr["default_hard_cap_units"])
		require.Equal(t, w.soft, tr["default_soft_cap_units"])
		require.Equal(t, w.bundle, tr["bundle"])
		require.Equal(t, "usd", tr["currency"])
	}
	require.NotContains(t, tiers[0].(map[string]any)["gated_endpoints"], "hiring-pulse")
	require.Contains(t, tiers[1].(map[string]any)["gated_endpoints"], "hiring-pulse")
	require.Equal(t, map[string]any{"amount_per_weighted_unit": 0.1, "currency": "usd", "weighted_unit": "sourced company row", "weight": 1.0}, p["source_price"])
	require.Equal(t, map[string]any{"window_seconds": 60.0, "per_key_by_tier": map[string]any{"tier_0": 20.0, "tier_1": 100.0, "tier_2": 500.0, "tier_3": 2000.0},
		"keyless_per_ip": 60.0}, p["rate_limits"])
	c := p["compliance"].(map[string]any)
	require.True(t, strings.HasSuffix(c["statement_url"].(string), "/v1/compliance"))
}

func TestSchemaChangelogRecordsChangedEndpoints(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	ch := h.do("GET", "/v1/changelog", "", "").json(t)["changes"].([]any)
	require.Len(t, ch, 1, "the first start records the whole contract")
	// Same contract again: nothing new. A handler landing changes one operation (501 goes away).
	startOn(t, h.pool, nil)
	startOn(t, h.pool, withSearch(1))
	ch = h.do("GET", "/v1/changelog", "", "").json(t)["changes"].([]any)
	require.Len(t, ch, 2)
	last := ch[0].(map[string]any)
	require.Equal(t, []any{"GET /v1/reqs/search"}, last["endpoints_changed"])
	require.NotEmpty(t, last["recorded_at"])
	require.NotEmpty(t, last["id"])
	_ = ctx
	_ = oltp.DemoCustomerID
}

func TestDashboard(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, withSearch(1))
	free := h.account("free")
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, h.pool, free.AccountID, &big))
	for i := 0; i < 80; i++ {
		require.Equal(t, 200, h.do("GET", "/v1/reqs/search", free.Key, "").status)
	}
	d := h.do("GET", "/v1/usage/dashboard", free.Key, "").json(t)
	k := d["keys"].([]any)[0].(map[string]any)
	require.EqualValues(t, 80, k["used"])
	require.Equal(t, "amber", k["status"])
	require.Equal(t, true, d["expansion_nudge_triggered"])
	require.Nil(t, d["upgrade_prompt"])
	require.Equal(t, map[string]any{"changes_allowance": 50.0, "changes_used": 0.0, "changes_wall_reached": false, "watches_allowance": 3.0, "watches_used": 0.0}, d["free_tier"])
	require.Equal(t, map[string]any{"wall_blocked": 0.0, "cap_blocked": 0.0}, d["blocked_deliveries"])
	for i := 0; i < 20; i++ {
		h.do("GET", "/v1/reqs/search", free.Key, "")
	}
	d = h.do("GET", "/v1/usage/dashboard", free.Key, "").json(t)
	require.Equal(t, "red", d["keys"].([]any)[0].(map[string]any)["status"])
	require.Equal(t, "quota_exceeded", d["upgrade_prompt"].(map[string]any)["reason"])

	g := h.account("growth")
	d = h.do("GET", "/v1/usage/dashboard", g.Key, "").json(t)
	require.Nil(t, d["free_tier"])
	require.Equal(t, "green", d["keys"].([]any)[0].(map[string]any)["status"])
	require.Equal(t, "ok", d["spend_cap"].(map[string]any)["status"])
}

func TestEnsureDevAccountMintsAFreshGrowthKeyEachRun(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	k1, err := oltp.EnsureDevAccount(ctx, h.pool)
	require.NoError(t, err)
	k2, err := oltp.EnsureDevAccount(ctx, h.pool)
	require.NoError(t, err)
	require.NotEqual(t, k1, k2)
	require.Equal(t, 403, h.do("GET", "/v1/whoami", k1, "").status, "the previous dev key is revoked")
	w := h.do("GET", "/v1/whoami", k2, "").json(t)
	require.Equal(t, "tier_3", w["tier"])
	require.Equal(t, oltp.DevCustomerID, w["customer_id"])
}
