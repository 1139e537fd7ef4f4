package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/agent"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/connector"
	feed "github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/onboarding"
	"github.com/planehq/hiringsignal/api/outcomes"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// sweepCall is one call of the sweep: route names the operation it exercises.
type sweepCall struct {
	route, method, path string
	body                any
	key                 string // "" sends none
	headers             []string
}

// Every route of the server serve assembles answers a valid call with a status its operation
// documents and a body its schema describes, read strictly (apitest.Server.Conforms: every
// required member present, no undeclared member anywhere); so do its error answers (no key, an
// unknown key, a missing id, a bad parameter). The sweep must reach every registered route with
// a 2xx: a route added without a call here fails it.
func TestEveryRouteAnswersItsDocumentStrictly(t *testing.T) {
	t.Parallel()
	srv, snaps, w := sweepServer(t)

	// A covered company with live reqs, one of its reqs, and a function it hires for.
	m := snaps.Current().Model
	var co uint64
	var reqKey string
	for id := range w.Companies {
		if w.Covered[id] && len(w.Live[id]) > 0 && m.Company(id) != nil && (co == 0 || id < co) {
			co = id
		}
	}
	require.NotZero(t, co)
	company := m.Company(co)
	require.NotEmpty(t, company.Live)
	reqKey, function := company.Live[0].Key, company.Live[0].Function()
	require.NotEmpty(t, function)

	a := srv.RoomyAccount(t, "enterprise")
	paused := srv.RoomyAccount(t, "growth")
	key := a.Key
	cpath := func(seg string) string { return fmt.Sprintf("/v1/companies/%d/%s", co, seg) }
	hook := "https://hooks.example.com/sweep"

	reached := map[string]bool{}
	// HS_SWEEP_DIR names a directory to write the document (openapi.json) and every answer to
	// (answers.jsonl, one JSON line each: method, the document's path, status, body), for
	// scripts/openapi-check.sh, which checks them with outside validators.
	var answers []map[string]any
	// call makes c, requires a documented status (2xx when ok) and a strictly conforming body,
	// and returns the decoded object (nil for no body or a non-object).
	call := func(c sweepCall, ok bool) (int, map[string]any) {
		t.Helper()
		rt := routeNamed(t, srv, c.route)
		r := srv.Do(t, c.method, c.path, c.key, c.body, c.headers...)
		if ok {
			require.Less(t, r.Status, 300, "%s %s answered %d: %s", c.method, c.path, r.Status, r.Body)
			reached[c.route] = true
		}
		if !strings.HasPrefix(r.Header["Content-Type"], "application/json") && (rt.Path == "/metrics" || strings.HasPrefix(rt.Path, api.DocsPath)) {
			// Text and the reference's HTML, scripts and styles: no JSON schema to read.
		} else {
			srv.Conforms(t, c.method, rt.Path, r)
			answers = append(answers, map[string]any{"method": strings.ToLower(c.method), "path": rt.Path, "status": r.Status, "body": json.RawMessage(r.Body)})
		}
		var obj map[string]any
		_ = json.Unmarshal(r.Body, &obj)
		return r.Status, obj
	}
	get := func(name, path string) map[string]any {
		_, o := call(sweepCall{route: name, method: "GET", path: path, key: key}, true)
		return o
	}
	post := func(name, path string, body any) map[string]any {
		_, o := call(sweepCall{route: name, method: "POST", path: path, key: key, body: body}, true)
		return o
	}
	del := func(name, path string) {
		call(sweepCall{route: name, method: "DELETE", path: path, key: key}, true)
	}
	id := func(o map[string]any, k string) int64 {
		t.Helper()
		v, ok := o[k].(float64)
		require.True(t, ok, "%s in %v", k, o)
		return int64(v)
	}

	for _, p := range []string{"/healthz", "/readyz", "/openapi.json", "/metrics", api.DocsPath} {
		get(routeAt(t, srv, p), p)
	}
	get("docs_asset", api.DocsPath+"/swagger-ui.css")
	get("whoami", "/v1/whoami")
	get("keys.list", "/v1/keys")
	minted := post("keys.issue", "/v1/keys", map[string]any{"scopes": []string{"read"}})
	rotated := post("keys.rotate", fmt.Sprintf("/v1/keys/%d/rotate", id(minted, "key_id")), map[string]any{})
	del("keys.revoke", fmt.Sprintf("/v1/keys/%d", id(rotated, "key_id")))
	get("pricing", "/v1/pricing")
	get("compliance", "/v1/compliance")
	get("changelog", "/v1/changelog")

	for _, seg := range []string{"is-hiring", "open-reqs?limit=1", "enrichment", "hiring-pulse", "first-hire", "repost-pain", "ats-migrations", "pre-action-brief", "intent"} {
		name := "companies." + strings.ReplaceAll(strings.SplitN(seg, "?", 2)[0], "-", "_")
		get(name, cpath(seg))
	}
	crawling := get("companies.hiring_pulse", cpath("hiring-pulse?max_age=0")) // 202 crawling
	require.Equal(t, "crawling", crawling["status"])
	get("crawl_jobs.get", fmt.Sprintf("/v1/crawl-jobs/%d", id(crawling, "job_id")))
	get("companies.resolve", "/v1/companies/resolve?domain="+url.QueryEscape(company.Domain))

	get("reqs.search", "/v1/reqs/search?limit=2&matched_reqs=2&include=momentum")
	get("reqs.search", "/v1/reqs/search?limit=100") // the last page: no next_cursor
	post("reqs.qualified", "/v1/reqs/qualified", map[string]any{"criteria": map[string]any{"req": map[string]any{"function": function}}, "include_pulse": true, "limit": 2})
	post("reqs.qualified", "/v1/reqs/qualified", map[string]any{"limit": 1})
	get("jobs.search", "/v1/jobs/search?limit=2")
	get("jobs.search", "/v1/jobs/search?limit=100&q=engineer&sort=relevance")
	get("jobs.role", fmt.Sprintf("/v1/jobs/role?company_id=%d&req_key=%s", co, url.QueryEscape(reqKey)))
	get("markets.role_demand", "/v1/markets/role-demand?role="+url.QueryEscape(function))
	// The technographics: a company's technologies (a page with more after it), the companies of
	// a technology that company's reqs name, and the vocabulary.
	techs := get("companies.technologies", cpath("technologies?limit=1"))
	require.NotEmpty(t, techs["technologies"], "the sweep's company names a technology")
	slug := techs["technologies"].([]any)[0].(map[string]any)["slug"].(string)
	get("companies.technologies", cpath("technologies?limit=100"))
	get("technologies.companies", "/v1/technologies/"+slug+"/companies?limit=1")
	get("technologies.companies", "/v1/technologies/"+slug+"/companies?limit=100&since=2000-01-01T00:00:00Z&live_only=true")
	get("technologies.list", "/v1/technologies")
	get("events.list", "/v1/events?since=0&limit=5")

	ep := post("webhooks.register", "/v1/webhooks", map[string]any{"url": hook})
	epID := id(ep, "id")
	post("webhooks.register", "/v1/webhooks", map[string]any{"url": hook}) // again: 200, no secret
	get("webhooks.list", "/v1/webhooks")
	post("webhooks.rotate_secret", fmt.Sprintf("/v1/webhooks/%d/rotate-secret", epID), map[string]any{})
	test := post("webhooks.test", fmt.Sprintf("/v1/webhooks/%d/test", epID), nil)
	watch := post("watches.create", "/v1/watches", map[string]any{"company_id": co, "webhook_endpoint_id": epID})
	post("watches.create", "/v1/watches", map[string]any{"q": "engineer", "webhook_url": "https://other.example.com/sweep"})
	get("watches.list", "/v1/watches")
	get("deliveries.list", "/v1/webhook-deliveries")
	get("deliveries.get", fmt.Sprintf("/v1/webhook-deliveries/%d", id(test, "delivery_id")))
	// Nothing sends the test delivery here: it is pending, so a replay is refused (409, documented).
	call(sweepCall{route: "deliveries.replay", method: "POST", path: fmt.Sprintf("/v1/webhook-deliveries/%d/replay", id(test, "delivery_id")), key: key}, false)
	reached["deliveries.replay"] = true
	del("watches.cancel", fmt.Sprintf("/v1/watches/%d", id(watch, "watch_id")))
	post("companies.outcomes", cpath("outcomes"), map[string]any{"outcome": "won", "external_id": "deal-1"})
	post("companies.outcomes", cpath("outcomes"), map[string]any{"outcome": "won", "external_id": "deal-1"}) // the same label again: 200
	get("attribution", "/v1/attribution")
	post("connector.enrich", "/v1/connector/enrich", map[string]any{"domain": company.Domain, "row_id": "r1"})
	post("connector.enrich", "/v1/connector/enrich", map[string]any{"domain": "nobody.example"}) // a miss
	post("connector.enrich_batch", "/v1/connector/enrich/batch", map[string]any{"rows": []any{map[string]any{"domain": company.Domain}, map[string]any{"name": "Nobody Inc"}}})
	post("migration_import", "/v1/migration-import", map[string]any{"companies": []any{map[string]any{"domain": company.Domain}, map[string]any{"domain": "nobody.example"}}})
	get("coverage_requests.list", "/v1/coverage-requests")
	post("quickstart", "/v1/quickstart", map[string]any{"webhook_url": hook + "/quick"})
	get("onboarding", "/v1/onboarding?domain="+url.QueryEscape(company.Domain)+"&webhook_url="+url.QueryEscape(hook+"/quick"))
	get("usage", "/v1/usage")
	get("usage.dashboard", "/v1/usage/dashboard")
	del("webhooks.delete", fmt.Sprintf("/v1/webhooks/%d", epID))
	call(sweepCall{route: "account.pause", method: "POST", path: "/v1/account/pause", key: paused.Key}, true)
	call(sweepCall{route: "account.resume", method: "POST", path: "/v1/account/resume", key: paused.Key}, true)
	get("account.overflow", "/v1/account/overflow")
	call(sweepCall{route: "account.overflow.set", method: "PUT", path: "/v1/account/overflow", key: paused.Key, body: map[string]any{"overflow": "queue"}}, true)
	call(sweepCall{route: "account.overflow.set", method: "PUT", path: "/v1/account/overflow", key: srv.RoomyAccount(t, "free").Key, body: map[string]any{"overflow": "queue"}}, false)
	call(sweepCall{route: "mcp", method: "POST", path: agent.Path, key: key, headers: []string{"Accept", "application/json, text/event-stream"},
		body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`}, true)

	defer func() {
		if dir := os.Getenv("HS_SWEEP_DIR"); dir != "" {
			var b []byte
			for _, a := range answers {
				if len(a["body"].(json.RawMessage)) == 0 {
					a["body"] = nil
				}
				line, err := json.Marshal(a)
				require.NoError(t, err)
				b = append(append(b, line...), '\n')
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, "answers.jsonl"), b, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "openapi.json"), srv.Get(t, "/openapi.json", "", nil).Body, 0o644))
		}
	}()
	for _, rt := range srv.API.Routes() {
		require.True(t, reached[rt.Name], "the sweep makes no valid call of %s %s: add one", rt.Method, rt.Path)
	}

	// The error answers of every /v1 route: without a key, with an unknown one, for a missing id
	// and with an out-of-range limit.
	for _, rt := range srv.API.Routes() {
		if !strings.HasPrefix(rt.Path, "/v1/") {
			continue
		}
		path := rt.Path
		for _, p := range []string{"{company_id}", "{key_id}", "{watch_id}", "{delivery_id}", "{job_id}", "{id}"} {
			path = strings.ReplaceAll(path, p, "999999")
		}
		path = strings.ReplaceAll(path, "{slug}", "no-such-technology")
		var body any
		if rt.Body != nil {
			body = "{}"
		}
		for _, k := range []string{"", "hsk_unknown", key} {
			call(sweepCall{route: rt.Name, method: rt.Method, path: path, key: k, body: body}, false)
		}
		call(sweepCall{route: rt.Name, method: rt.Method, path: path + "?limit=0", key: key, body: body}, false)
	}
}

// crawled is a crawled world and its read snapshot.
type crawled struct {
	w     *readmodeltest.World
	snaps *snapshot.Service
}

// sweepWorld is the small world the sweep servers serve, crawled once per test binary: the
// servers read it only (nothing they serve writes to ClickHouse or rebuilds the snapshot), each
// from a Postgres schema of its own.
var sweepWorld = apitest.NewShared("sweep", func(tb testing.TB) crawled {
	w := readmodeltest.Crawl(tb, readmodeltest.Config{Seed: 11, Companies: 40, First: 100, Last: 100 + 24*12, Step: 24})
	snaps := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(tb, err)
	return crawled{w: w, snaps: snaps}
})

// sweepServer is the server serve assembles (every handler package, the push routes, /mcp) over
// the sweep world, on a fresh schema.
func sweepServer(t *testing.T) (*apitest.Server, *snapshot.Service, *readmodeltest.World) {
	t.Helper()
	cw := sweepWorld.Get(t)
	w, snaps := cw.w, cw.snaps
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	policy := egress.Policy{LookupNetIP: apitest.FakeDNS}
	srv := apitest.StartServer(t, apitest.Options{DB: "api_sweep", Push: &apitest.Push{Box: box, Egress: policy, Snapshots: snaps},
		Register: func(s *api.Server, pool *pgxpool.Pool) {
			q := apitest.Quiet()
			companies.Register(s, companies.Deps{Snapshots: snaps, Pool: pool, Log: q, ColdAfter: -1})
			search.Register(s, search.Deps{Snapshots: snaps, Log: q, QueueWait: time.Minute})
			feed.Register(s, feed.Deps{Snapshots: snaps, ClickHouse: w.CH, Log: q})
			outcomes.Register(s, outcomes.Deps{Pool: pool, Log: q, Snapshots: snaps})
			connector.Register(s, connector.Deps{Snapshots: snaps, Pool: pool, Log: q})
			onboarding.Register(s, onboarding.Deps{Pool: pool, Log: q, Box: box, Egress: policy, Snapshots: snaps})
			agent.Register(agent.Deps{API: s, Log: q})
		}})
	return srv, snaps, w
}

// routeNamed is the registered route called name; routeAt the one serving path.
func routeNamed(t *testing.T, srv *apitest.Server, name string) api.Route {
	t.Helper()
	for _, rt := range srv.API.Routes() {
		if rt.Name == name {
			return rt
		}
	}
	require.Failf(t, "no route", "no route named %q", name)
	return api.Route{}
}

func routeAt(t *testing.T, srv *apitest.Server, path string) string {
	t.Helper()
	for _, rt := range srv.API.Routes() {
		if rt.Path == path {
			return rt.Name
		}
	}
	require.Failf(t, "no route", "no route serves %s", path)
	return ""
}
