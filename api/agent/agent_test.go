package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/agent"
	"github.com/planehq/hiringsignal/oltp"
)

// Both the stateless revision and the initialize-based ones list every curated tool, annotated,
// and listing bills nothing.
func TestToolsListOnEveryProtocolRevision(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")
	var want []string
	for _, tl := range agent.Tools() {
		want = append(want, tl.Name)
	}
	require.GreaterOrEqual(t, len(want), 8)
	require.LessOrEqual(t, len(want), 13) // the catalogue's bytes bound it (TestToolsListFitsItsBound)
	for _, v := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		s := connect(t, f.srv, a.Key, v)
		res, err := s.ListTools(context.Background(), nil)
		require.NoError(t, err, "revision %q", v)
		var got []string
		for _, tl := range res.Tools {
			got = append(got, tl.Name)
			require.NotEmpty(t, tl.Description)
			require.Contains(t, tl.Description, "Cost:", "%s states its cost", tl.Name)
			require.NotNil(t, tl.Annotations)
			def := agent.Tools()[slices.IndexFunc(agent.Tools(), func(x agent.Tool) bool { return x.Name == tl.Name })]
			require.Equal(t, def.ReadOnly, tl.Annotations.ReadOnlyHint, tl.Name)
		}
		require.ElementsMatch(t, want, got, "revision %q", v)
	}
	u := readUsage(t, f.srv, a.Key)
	require.Zero(t, u.Calls, "tools/list and the protocol calls are not billed")
}

// Every tool's input schema states each argument as /openapi.json states the route's parameter
// or body field, made compact by agent.ArgSchema (nothing an agent needs to make a valid call is
// left out).
func TestToolSchemasAgreeWithTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct {
				Name        string         `json:"name"`
				In          string         `json:"in"`
				Required    bool           `json:"required"`
				Schema      map[string]any `json:"schema"`
				Description string         `json:"description"`
			} `json:"parameters"`
			RequestBody *struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]map[string]any `json:"properties"`
						Required   []string                  `json:"required"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	f.srv.Get(t, "/openapi.json", "", nil).Decode(t, 200, &doc)
	a := f.srv.Account(t, "growth")
	res, err := connect(t, f.srv, a.Key, "").ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Contains(t, doc.Paths, agent.Path, "/mcp is documented")
	for _, tl := range res.Tools {
		def := agent.Tools()[slices.IndexFunc(agent.Tools(), func(x agent.Tool) bool { return x.Name == tl.Name })]
		var in struct {
			Properties           map[string]map[string]any `json:"properties"`
			Required             []string                  `json:"required"`
			AdditionalProperties bool                      `json:"additionalProperties"`
		}
		b, _ := json.Marshal(tl.InputSchema)
		require.NoError(t, json.Unmarshal(b, &in))
		require.False(t, in.AdditionalProperties, tl.Name)
		found := false
		for _, ops := range doc.Paths {
			for _, op := range ops {
				if op.OperationID != def.Route {
					continue
				}
				found = true
				var required []string
				for name, got := range in.Properties {
					if name == "detail" {
						continue
					}
					var want map[string]any
					for _, p := range op.Parameters {
						if p.Name == name {
							want = p.Schema
							if p.Description != "" {
								want["description"] = p.Description
							}
							if p.Required {
								required = append(required, name)
							}
						}
					}
					if op.RequestBody != nil && want == nil {
						body := op.RequestBody.Content["application/json"].Schema
						want = body.Properties[name]
						if slices.Contains(body.Required, name) {
							required = append(required, name)
						}
					}
					require.NotNil(t, want, "%s.%s is not in the document's %s", tl.Name, name, def.Route)
					// The document adds the demo key's page bound to limit's description.
					if name == "limit" {
						delete(want, "description")
						delete(got, "description")
					}
					// The tool states the document's schema compactly: the same types, enums,
					// formats, value bounds and defaults, without length and item-count bounds,
					// a one-or-many field as its array, and a note of the tool's for description.
					want = agent.ArgSchema(def, name, want)
					if name == "limit" {
						delete(want, "description")
					}
					require.Equal(t, want, got, "%s.%s", tl.Name, name)
				}
				require.ElementsMatch(t, required, in.Required, tl.Name)
			}
		}
		require.True(t, found, "%s runs %s, which the document lacks", tl.Name, def.Route)
	}
}

// Every tool answers on a crawled world, paged with a cursor where it pages, and /v1/usage shows
// what the tools spent under by_channel.mcp, billed exactly as the routes bill.
func TestEveryToolOnACrawledWorld(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")
	s := connect(t, f.srv, a.Key, "")
	metered := 0

	// find_hiring_companies, two pages.
	p1 := ok(t, s, "find_hiring_companies", map[string]any{"limit": 3})
	metered++
	cos := p1["companies"].([]any)
	require.Len(t, cos, 3)
	rows := int64(len(cos))
	first := cos[0].(map[string]any)
	id := int64(first["company_id"].(float64))
	domain, _ := first["company_domain"].(string)
	require.NotEmpty(t, domain)
	require.NotNil(t, p1["next_cursor"])
	p2 := ok(t, s, "find_hiring_companies", map[string]any{"limit": 3, "cursor": p1["next_cursor"]})
	metered++
	rows += int64(len(p2["companies"].([]any)))
	require.Greater(t, p2["companies"].([]any)[0].(map[string]any)["company_id"].(float64), p1["next_cursor"].(float64))

	// resolve_company finds it by domain (not metered).
	r := ok(t, s, "resolve_company", map[string]any{"domain": domain})
	require.Equal(t, float64(id), r["companies"].([]any)[0].(map[string]any)["company_id"])

	// The brief, is-hiring and open reqs of that company.
	brief := ok(t, s, "company_hiring_brief", map[string]any{"company_id": id})
	metered++
	require.Contains(t, brief, "is_hiring")
	require.Contains(t, brief, "pulse")
	require.Equal(t, brief["pulse"].(map[string]any)["is_hiring"], brief["is_hiring"])
	hiring := ok(t, s, "company_is_hiring", map[string]any{"company_id": id})
	metered++
	require.Equal(t, brief["is_hiring"], hiring["is_hiring"])
	open := ok(t, s, "company_open_reqs", map[string]any{"company_id": id, "limit": 2})
	metered++
	require.NotEmpty(t, open["reqs"])
	require.LessOrEqual(t, len(open["reqs"].([]any)), 2)
	if open["has_more"] == true { // the next page continues after the first, never repeating it
		open2 := ok(t, s, "company_open_reqs", map[string]any{"company_id": id, "limit": 2, "cursor": open["next_cursor"]})
		metered++
		require.NotEmpty(t, open2["reqs"])
		first := open["reqs"].([]any)[0].(map[string]any)["req_key"]
		for _, r := range open2["reqs"].([]any) {
			require.NotEqual(t, first, r.(map[string]any)["req_key"])
		}
	}

	// search_roles, two pages, and the demand for the first row's function.
	j1 := ok(t, s, "search_roles", map[string]any{"limit": 4, "sort": "recency"})
	metered++
	jobs := j1["jobs"].([]any)
	require.Len(t, jobs, 4)
	rows += 4
	j2 := ok(t, s, "search_roles", map[string]any{"limit": 4, "sort": "recency", "cursor": j1["next_cursor"]})
	metered++
	rows += int64(len(j2["jobs"].([]any)))
	require.NotEqual(t, jobs[0].(map[string]any)["req_key"], j2["jobs"].([]any)[0].(map[string]any)["req_key"])
	var function string
	for _, j := range jobs {
		if fn, ok := j.(map[string]any)["function_name"].(string); ok && function == "" {
			function = fn
		}
	}
	require.NotEmpty(t, function)
	demand := ok(t, s, "role_demand", map[string]any{"role": function})
	metered++
	require.NotEmpty(t, demand["series"])

	// The change feed: a page, then the next from its cursor.
	e1 := ok(t, s, "change_feed", map[string]any{"limit": 5})
	metered++
	evs := e1["events"].([]any)
	require.Len(t, evs, 5)
	e2 := ok(t, s, "change_feed", map[string]any{"limit": 5, "since": e1["next_cursor"]})
	metered++
	require.Greater(t, e2["events"].([]any)[0].(map[string]any)["event_seq"].(float64), evs[4].(map[string]any)["event_seq"].(float64))
	changes := int64(len(evs) + len(e2["events"].([]any)))

	// A watch: created (one watch unit), listed, canceled.
	w := ok(t, s, "create_watch", map[string]any{"company_id": id, "webhook_url": "https://hooks.example.com/agent"})
	metered++
	watchID := w["watch_id"]
	require.NotNil(t, watchID)
	listed := ok(t, s, "list_watches", nil)
	require.Len(t, listed["watches"].([]any), 1)
	ok(t, s, "cancel_watch", map[string]any{"watch_id": watchID})
	require.Empty(t, ok(t, s, "list_watches", nil)["watches"])

	u := readUsage(t, f.srv, a.Key)
	require.EqualValues(t, metered, u.Calls)
	require.EqualValues(t, metered, u.ByChannel["mcp"])
	require.Zero(t, u.ByChannel["rest"])
	require.Equal(t, rows, u.SourceRows, "one source_row per row a search tool returned")
	require.Equal(t, changes, u.Changes, "one change per event returned")
	require.EqualValues(t, 1, u.Watches)

	// A REST call lands beside them under rest.
	f.srv.Get(t, "/v1/companies/"+itoa(id)+"/is-hiring", a.Key, nil).Decode(t, 200, &map[string]any{})
	u = readUsage(t, f.srv, a.Key)
	require.EqualValues(t, 1, u.ByChannel["rest"])
	require.EqualValues(t, metered, u.ByChannel["mcp"])
}

// Full detail answers every field, concise a few; both stay well under MaxResultBytes.
func TestDetailConciseAndFull(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	s := connect(t, f.srv, f.srv.Account(t, "growth").Key, "")
	for _, detail := range []string{"concise", "full"} {
		r, m := call(t, s, "find_hiring_companies", map[string]any{"limit": 100, "detail": detail})
		require.False(t, r.IsError)
		b, _ := json.Marshal(m)
		require.LessOrEqual(t, len(b), agent.MaxResultBytes+1024, detail)
		row := m["companies"].([]any)[0].(map[string]any)
		_, hasMomentum := row["pulse"].(map[string]any)["momentum"]
		require.Equal(t, detail == "full" && m["note"] == nil, hasMomentum, "%s: momentum only in full", detail)
		if detail == "concise" {
			require.Nil(t, m["note"], "a page of 100 companies fits concise")
		}
	}
}

// A bad argument or an unknown company is a tool error saying what to change, billed nothing.
func TestBadArgumentsAndUnknownCompanyAreToolErrors(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")
	s := connect(t, f.srv, a.Key, "2025-06-18")
	cases := []struct {
		tool    string
		args    map[string]any
		reason  string
		mention string
	}{
		{"find_hiring_companies", map[string]any{"limit": 0}, "invalid_arguments", "limit"},
		{"find_hiring_companies", map[string]any{"colour": "red"}, "invalid_arguments", "colour"},
		{"company_open_reqs", map[string]any{}, "invalid_arguments", "company_id"},
		{"search_roles", map[string]any{"detail": "everything"}, "invalid_arguments", "detail"},
		{"role_demand", map[string]any{"role": "astronaut-wrangler"}, "invalid_arguments", "role"},
		{"company_hiring_brief", map[string]any{"company_id": 987654321}, "not_found", "resolve_company"},
	}
	for _, c := range cases {
		r, m := call(t, s, c.tool, c.args)
		require.True(t, r.IsError, "%s %v", c.tool, c.args)
		require.Equal(t, c.reason, m["reason"], "%s %v", c.tool, c.args)
		require.Contains(t, r.Content[0].(*mcp.TextContent).Text, c.mention)
	}
	require.Zero(t, readUsage(t, f.srv, a.Key).Calls)
}

// No key is 401 and a revoked key 403, before any tool runs, on the SDK client and on the wire.
func TestMCPAuthenticatesAsREST(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(key string) (int, string, http.Header) {
		req, err := http.NewRequest("POST", f.srv.Base+agent.Path, strings.NewReader(init))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	st, body, h := post("")
	require.Equal(t, 401, st)
	require.Contains(t, body, api.DetailMissingKey)
	require.NotEmpty(t, h.Get("WWW-Authenticate"))

	a := f.srv.Account(t, "growth")
	st, _, _ = post(a.Key)
	require.Equal(t, 200, st)
	revoked := f.srv.Account(t, "growth")
	require.NoError(t, oltp.RevokeKey(context.Background(), f.srv.Pool, revoked.CustomerID, revoked.KeyID, ""))
	st, body, _ = post(revoked.Key)
	require.Equal(t, 403, st)
	require.Contains(t, body, api.DetailInvalidKey)

	// The SDK's client fails to connect with either.
	for _, key := range []string{"", revoked.Key} {
		_, err := dial(f.srv, key, "")
		require.Error(t, err, "key %q", key)
		_, err = dial(f.srv, key, "2025-06-18")
		require.Error(t, err, "key %q", key)
	}
}

// A Free key past its daily quota gets isError with reason, retry_after, remaining and
// upgrade_url, whether its calls were REST or tools.
func TestQuotaHitIsAToolErrorWithRetryAfter(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "free")
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(context.Background(), f.srv.Pool, a.AccountID, &big))
	s := connect(t, f.srv, a.Key, "")
	for i := 0; i < 100; i++ {
		if i%2 == 0 {
			ok(t, s, "find_hiring_companies", map[string]any{"limit": 1})
		} else {
			f.srv.Get(t, "/v1/reqs/search", a.Key, map[string][]string{"limit": {"1"}}).Decode(t, 200, &map[string]any{})
		}
	}
	r, m := call(t, s, "find_hiring_companies", map[string]any{"limit": 1})
	require.True(t, r.IsError)
	require.Equal(t, "quota_exceeded", m["reason"])
	require.Greater(t, m["retry_after"].(float64), 0.0)
	require.LessOrEqual(t, m["retry_after"].(float64), float64(24*3600))
	require.EqualValues(t, 0, m["remaining"])
	require.NotEmpty(t, m["upgrade_url"])
	require.Contains(t, r.Content[0].(*mcp.TextContent).Text, "quota_exceeded")
	require.Equal(t, 1, strings.Count(r.Content[0].(*mcp.TextContent).Text, "seconds"), "%s", r.Content[0].(*mcp.TextContent).Text)
	require.Equal(t, 402, f.srv.Get(t, "/v1/reqs/search", a.Key, nil).Status)
	u := readUsage(t, f.srv, a.Key)
	require.EqualValues(t, 50, u.ByChannel["mcp"])
	require.EqualValues(t, 50, u.ByChannel["rest"])
}

// One Free key, REST and tool calls interleaved: the 21st call of the minute is refused,
// whichever kind it is (a tool's refusal carries retry_after; REST's is 429).
func TestTheMinuteLimitIsSharedByRESTAndTools(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	fixed := time.Now().Truncate(time.Minute).Add(10 * time.Second)
	srv := f.start(t, func(c *api.Config) { c.Now = func() time.Time { return fixed } })
	for _, toolLast := range []bool{true, false} {
		a := srv.Account(t, "free")
		s := connect(t, srv, a.Key, "2025-06-18")
		for i := 0; i < 20; i++ {
			if i%2 == 0 {
				ok(t, s, "resolve_company", map[string]any{"name": "acme"})
			} else {
				require.Equal(t, 200, srv.Get(t, "/v1/companies/resolve", a.Key, map[string][]string{"name": {"acme"}}).Status)
			}
		}
		if toolLast {
			r, m := call(t, s, "resolve_company", map[string]any{"name": "acme"})
			require.True(t, r.IsError)
			require.Equal(t, "rate_limited", m["reason"])
			require.Greater(t, m["retry_after"].(float64), 0.0)
			require.EqualValues(t, 0, m["remaining"])
			// A tool result has no headers: its words say the seconds, once, and name no header.
			wait := fmt.Sprintf("wait %d seconds", int(m["retry_after"].(float64)))
			text := r.Content[0].(*mcp.TextContent).Text
			require.Equal(t, "Refused (rate_limited): more than 20 calls in 60 seconds; "+wait+".", text)
			require.Equal(t, "more than 20 calls in 60 seconds; "+wait, m["message"])
		} else {
			resp := srv.Get(t, "/v1/companies/resolve", a.Key, map[string][]string{"name": {"acme"}})
			require.Equal(t, 429, resp.Status)
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// The tool catalogue fits an agent's context: tools/list answers at most agent.MaxToolListBytes
// (it was 24 KB, create_watch alone 10 KB), and no tool takes more than a third of it, while
// every argument keeps its type, enum, bounds of values and default (TestToolSchemasAgreeWithTheOpenAPIDocument).
func TestToolsListFitsItsBound(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")
	r := mcpPost(t, f.srv, a.Key, rpc(1, "tools/list", nil))
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Less(t, len(r.Body), agent.MaxToolListBytes, "tools/list answers %d bytes", len(r.Body))
	var res struct {
		Tools []json.RawMessage `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(decodeRPC(t, r).Result, &res))
	require.Len(t, res.Tools, len(agent.Tools()))
	for _, tl := range res.Tools {
		require.Less(t, len(tl), agent.MaxToolListBytes/3, "%s", tl[:min(len(tl), 60)])
	}
	t.Logf("tools/list answers %d bytes", len(r.Body))
}

// Compact leaves out only length and item-count bounds and states a one-or-many field as its
// array: types, enums, formats, value bounds and defaults stay.
func TestCompactKeepsWhatAValidCallNeeds(t *testing.T) {
	t.Parallel()
	in := map[string]any{"type": "object", "additionalProperties": false, "required": []string{},
		"properties": map[string]any{
			"band": map[string]any{"description": "a band", "oneOf": []any{
				map[string]any{"type": "string", "enum": []string{"1-10", "11-50"}, "maxLength": 200},
				map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"1-10", "11-50"}, "maxLength": 200}, "maxItems": 100, "minItems": 1},
			}},
			"n":      map[string]any{"type": "integer", "minimum": 1, "maximum": 1000, "default": 20},
			"when":   map[string]any{"type": "string", "format": "date-time"},
			"either": map[string]any{"oneOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "null"}}},
		}}
	want := map[string]any{"type": "object", "additionalProperties": false,
		"properties": map[string]any{
			"band":   map[string]any{"description": "a band", "type": "array", "items": map[string]any{"type": "string", "enum": []string{"1-10", "11-50"}}},
			"n":      map[string]any{"type": "integer", "minimum": 1, "maximum": 1000, "default": 20},
			"when":   map[string]any{"type": "string", "format": "date-time"},
			"either": map[string]any{"oneOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "null"}}},
		}}
	require.Equal(t, want, agent.Compact(in))
	require.Contains(t, in["properties"].(map[string]any)["band"], "oneOf", "the route's schema is not changed")
}
