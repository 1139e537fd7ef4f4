package agent_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/agent"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// rawAnswer is one /mcp answer as a client receives it.
type rawAnswer struct {
	status       int
	contentType  string
	cacheControl []string
	body         string
}

func postMCP(tb testing.TB, srv *apitest.Server, key, body string, headers ...string) rawAnswer {
	tb.Helper()
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod("POST")
	req.SetRequestURI(srv.Base + agent.Path)
	req.Header.Set("X-API-Key", key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	req.SetBodyString(body)
	require.NoError(tb, fasthttp.DoTimeout(req, res, 30*time.Second))
	out := rawAnswer{status: res.StatusCode(), contentType: string(res.Header.ContentType()), body: string(res.Body())}
	for _, v := range res.Header.PeekAll(fasthttp.HeaderCacheControl) {
		out.cacheControl = append(out.cacheControl, string(v))
	}
	return out
}

// A tools/call answered directly (direct.go) is answered exactly as the SDK answers it: the same
// status, Content-Type, Cache-Control and bytes, for results, refusals and bad arguments, on
// every initialize-based protocol revision; and what is not answered directly still is the SDK's.
func TestDirectCallsAnswerAsTheSDK(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	direct := f.srv
	clock := &apitest.Clock{}
	clock.Set(f.snaps.Current().AsOf.Add(time.Hour))
	sdk := apitest.StartServer(t, apitest.Options{DB: "agent",
		Push: &apitest.Push{Egress: egress.Policy{LookupNetIP: fakeDNS}, Snapshots: f.snaps},
		Register: func(s *api.Server, pool *pgxpool.Pool) {
			companies.Register(s, companies.Deps{Snapshots: f.snaps, Pool: pool, Log: apitest.Quiet(), Now: clock.Now})
			search.Register(s, search.Deps{Snapshots: f.snaps, QueueWait: time.Minute})
			events.Register(s, events.Deps{Snapshots: f.snaps, ClickHouse: f.w.CH, Log: apitest.Quiet()})
			agent.RegisterSDKOnly(agent.Deps{API: s})
		}})
	dk, sk := direct.Account(t, "growth").Key, sdk.Account(t, "growth").Key

	const json2 = "application/json, text/event-stream"
	call := func(id any, tool string, args string) string {
		idj, _ := json.Marshal(id)
		params := fmt.Sprintf(`{"name":%q}`, tool)
		if args != "" {
			params = fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}`, idj, params)
	}
	// A company of the world, for the company tools.
	first := postMCP(t, direct, dk, call(1, "find_hiring_companies", `{"limit":1}`), "Accept", json2, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-06-18")
	require.Equal(t, 200, first.status, first.body)
	var found struct {
		Result struct {
			StructuredContent struct {
				Companies []struct {
					CompanyID int64 `json:"company_id"`
				} `json:"companies"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(first.body), &found), first.body)
	require.NotEmpty(t, found.Result.StructuredContent.Companies, first.body)
	id := found.Result.StructuredContent.Companies[0].CompanyID

	type request struct {
		name, body string
		headers    []string
	}
	h := func(version string) []string {
		return []string{"Accept", json2, "Content-Type", "application/json", "MCP-Protocol-Version", version}
	}
	reqs := []request{
		{"brief, concise", call(7, "company_hiring_brief", fmt.Sprintf(`{"company_id":%d}`, id)), h("2025-06-18")},
		{"brief, full", call("abc", "company_hiring_brief", fmt.Sprintf(`{"company_id":%d,"detail":"full"}`, id)), h("2025-11-25")},
		{"is hiring, 2024-11-05", call(8, "company_is_hiring", fmt.Sprintf(`{"company_id":"%d"}`, id)), h("2024-11-05")},
		{"no version header", call(9, "company_open_reqs", fmt.Sprintf(`{"company_id":%d,"limit":2}`, id)), []string{"Accept", json2, "Content-Type", "application/json; charset=utf-8"}},
		{"search", call(10, "find_hiring_companies", `{"q":"engineer","limit":3}`), h("2025-03-26")},
		{"resolve", call(11, "resolve_company", `{"name":"a"}`), h("2025-06-18")},
		{"unknown company", call(12, "company_hiring_brief", `{"company_id":987654321}`), h("2025-06-18")},
		{"route's 422", call(13, "find_hiring_companies", `{"limit":1000}`), h("2025-06-18")},
		{"unknown argument", call(14, "company_is_hiring", fmt.Sprintf(`{"company_id":%d,"colour":"red"}`, id)), h("2025-06-18")},
		{"bad detail", call(15, "company_hiring_brief", fmt.Sprintf(`{"company_id":%d,"detail":"all"}`, id)), h("2025-06-18")},
		{"no arguments", call(16, "company_open_reqs", ""), h("2025-06-18")},
		{"null arguments", call(17, "company_open_reqs", "null"), h("2025-06-18")},
		{"arguments not an object", call(18, "company_open_reqs", "[1]"), h("2025-06-18")},
		{"html in an argument", call(19, "resolve_company", `{"name":"<b>&</b>"}`), h("2025-06-18")},
		// Answered by the SDK on both servers.
		{"unknown tool", call(20, "no_such_tool", `{}`), h("2025-06-18")},
		{"name of another case", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"Name":"company_is_hiring"}}`, h("2025-06-18")},
		{"_meta", `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"resolve_company","arguments":{"name":"a"},"_meta":{"progressToken":1}}}`, h("2025-06-18")},
		{"no event stream accepted", call(23, "resolve_company", `{"name":"a"}`), []string{"Accept", "application/json", "Content-Type", "application/json"}},
		{"text body", call(24, "resolve_company", `{"name":"a"}`), []string{"Accept", json2, "Content-Type", "text/plain"}},
		{"unsupported version", call(25, "resolve_company", `{"name":"a"}`), h("2023-01-01")},
		{"a notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"resolve_company","arguments":{"name":"a"}}}`, h("2025-06-18")},
	}
	before := agent.DirectServed()
	for _, r := range reqs {
		d := postMCP(t, direct, dk, r.body, r.headers...)
		s := postMCP(t, sdk, sk, r.body, r.headers...)
		require.Equal(t, s, d, r.name)
		require.NotContains(t, d.body, `"isError":true,"content":[]`, r.name)
	}
	require.GreaterOrEqual(t, agent.DirectServed()-before, int64(14), "the first 14 requests were answered directly")
	// The bodies differ from one request to the next: the comparison saw results and refusals.
	require.Contains(t, postMCP(t, direct, dk, reqs[0].body, reqs[0].headers...).body, `"is_hiring"`)
	require.Contains(t, postMCP(t, direct, dk, reqs[6].body, reqs[6].headers...).body, `"not_found"`)
	require.True(t, strings.Contains(postMCP(t, direct, dk, reqs[8].body, reqs[8].headers...).body, "invalid_arguments"))
}
