package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/problem"
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
	t.Parallel()
	h := newHarness(t, unreadySide)
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
	require.Equal(t, len(h.srv.Routes()), n)

	good := h.account("growth")
	paused := h.account("growth")
	require.Equal(t, 200, h.do("POST", "/v1/account/pause", paused.Key, "").status)
	keys := []string{"", "hsk_invalid", good.Key, api.PublicDemoKey, paused.Key}
	bodies := []string{"", "{", `{"webhook_url":"https://x.example","url":"https://x.example","outcome":"won","scopes":["read"]}`}
	for _, rt := range h.srv.Routes() {
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
	t.Parallel()
	h := newHarness(t, func(cfg *api.Config, s *api.Server) {
		cfg.MaxBodyBytes = 1024
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				q, _ := c.String("q")
				return 0, c.JSON(200, map[string]any{"q": q})
			}))
		}
	})
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
	// A route of the spec not built yet is not served: 404 with a JSON detail, key or not.
	r = h.do("GET", "/v1/watches", a.Key, "")
	require.Equal(t, 404, r.status)
	require.Contains(t, r.json(t)["detail"], "no route")
	require.Equal(t, 404, h.do("GET", "/v1/watches", "", "").status)
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
	// The deprecated role is past its sunset (the harness runs on the wall clock): refused with a
	// 422 naming q, the Sunset header an HTTP-date in GMT.
	r = h.do("GET", "/v1/reqs/search?role=engineer", a.Key, "")
	require.Equal(t, 422, r.status)
	item := r.json(t)["detail"].([]any)[0].(map[string]any)
	require.Equal(t, []any{"query", "role"}, item["loc"])
	require.Equal(t, "q", item["ctx"].(map[string]any)["replacement"])
	require.NotEmpty(t, r.header["Deprecation"])
	require.Equal(t, "Mon, 09 Nov 2026 00:00:00 GMT", r.header["Sunset"])
}

// Before its sunset the deprecated role is answered exactly as q.
func TestDeprecatedAliasIsServedBeforeItsSunset(t *testing.T) {
	t.Parallel()
	before := time.Date(2026, 11, 8, 23, 59, 0, 0, time.UTC)
	h := newHarness(t, func(c *api.Config, s *api.Server) {
		c.Now = func() time.Time { return before }
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				q, _ := c.String("q")
				return 0, c.JSON(200, map[string]any{"q": q})
			}))
		}
	})
	a := h.account("growth")
	r := h.do("GET", "/v1/reqs/search?role=engineer", a.Key, "")
	require.Equal(t, 200, r.status)
	require.Equal(t, "engineer", r.json(t)["q"])
	require.Equal(t, "true", r.header["Deprecation"])
	require.Equal(t, "Mon, 09 Nov 2026 00:00:00 GMT", r.header["Sunset"])
}

func TestSchemaChangelogRecordsChangedEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, nil)
	ch := h.do("GET", "/v1/changelog", "", "").json(t)["changes"].([]any)
	require.Len(t, ch, 1, "the first start records the whole contract")
	// Same routes again: nothing new. A handler landing adds one operation.
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

// A start whose document differs outside its operations (an instance's in-flight bounds, in
// x-rate-limits) records no entry: the changelog has no entry without an endpoint changed.
func TestSchemaChangelogHasNoEntryWithoutAChangedEndpoint(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for _, n := range []int{7, 9, 7} {
		startOn(t, h.pool, func(c *api.Config, _ *api.Server) {
			if c != nil {
				c.KeyMaxInFlight, c.IPMaxInFlight = n, n+1
			}
		})
	}
	ch := h.do("GET", "/v1/changelog", "", "").json(t)["changes"].([]any)
	require.Len(t, ch, 1, "only the first start's entry")
	require.NotEmpty(t, ch[0].(map[string]any)["endpoints_changed"])
}

func TestEnsureDevAccountMintsAFreshGrowthKeyEachRun(t *testing.T) {
	t.Parallel()
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

// A query parameter the route does not declare is 422 extra_forbidden naming it, before the
// handler runs (nothing served, nothing billed): a misspelt filter is never dropped in silence to
// answer the unfiltered page. The first item lists what the route takes; every /v1 operation
// documents the 422.
func TestUndeclaredQueryParametersAreRefused(t *testing.T) {
	t.Parallel()
	ran := 0
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) { ran++; return 1, c.JSON(200, map[string]any{}) }))
		}
	})
	a := h.account("growth")
	item := func(r resp, i int) map[string]any {
		t.Helper()
		require.Equal(t, 422, r.status, "%s", r.body)
		return r.json(t)["detail"].([]any)[i].(map[string]any)
	}

	r := h.do("GET", "/v1/reqs/search?q=engineer&industy=software", a.Key, "")
	it := item(r, 0)
	require.Len(t, r.json(t)["detail"], 1)
	require.Equal(t, "extra_forbidden", it["type"])
	require.Equal(t, []any{"query", "industy"}, it["loc"])
	require.Equal(t, "software", it["input"])
	require.Contains(t, it["msg"], `no query parameter "industy"`)
	allowed := it["ctx"].(map[string]any)["allowed"].([]any)
	require.Contains(t, allowed, "industry")
	require.Contains(t, allowed, "q")
	require.Zero(t, ran, "the handler did not run")

	// A route without query parameters says it takes none; a bad value and an unknown name are
	// listed together.
	it = item(h.do("GET", "/v1/whoami?verbose=1", a.Key, ""), 0)
	require.Contains(t, it["msg"], "it takes none")
	require.Empty(t, it["ctx"].(map[string]any)["allowed"])
	r = h.do("GET", "/v1/reqs/search?limit=0&x=1", a.Key, "")
	require.Len(t, r.json(t)["detail"], 2)
	require.Equal(t, []any{"query", "limit"}, item(r, 0)["loc"])
	require.Equal(t, []any{"query", "x"}, item(r, 1)["loc"])

	// Bounded: only the first item lists the parameters, names and values are clipped, and at
	// most MaxFieldErrors items are listed.
	long := strings.Repeat("n", 100)
	it = item(h.do("GET", "/v1/reqs/search?"+long+"="+strings.Repeat("v", 100), a.Key, ""), 0)
	require.Equal(t, []any{"query", long[:64] + "…"}, it["loc"])
	require.Equal(t, strings.Repeat("v", 64)+"…", it["input"])
	r = h.do("GET", "/v1/reqs/search?x=1&x=2&y=3", a.Key, "")
	require.Len(t, r.json(t)["detail"], 2, "one item per name")
	var q strings.Builder
	for i := range 60 {
		fmt.Fprintf(&q, "&p%d=v", i)
	}
	r = h.do("GET", "/v1/reqs/search?q=a"+q.String(), a.Key, "")
	require.Equal(t, 422, r.status, "%s", r.body)
	items := r.json(t)["detail"].([]any)
	require.Len(t, items, problem.MaxFieldErrors)
	require.Equal(t, "too_many_errors", items[len(items)-1].(map[string]any)["type"])
	require.NotContains(t, items[1].(map[string]any)["ctx"], "allowed")
	require.Less(t, len(r.body), 32<<10)
	require.Zero(t, ran)

	require.Equal(t, 200, h.do("GET", "/v1/reqs/search?q=engineer&industry=software", a.Key, "").status)
	require.Equal(t, 1, ran)

	var doc openapiDoc
	require.NoError(t, json.Unmarshal(h.do("GET", "/openapi.json", "", "").body, &doc))
	for path, ops := range doc.Paths {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for method, op := range ops {
			require.Contains(t, op.Responses, "422", "%s %s", method, path)
		}
	}
}
