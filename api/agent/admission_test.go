package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
)

// A tool call is admitted once: the request to /mcp is, and the route it runs reuses that
// admission. Its key is read once (the key cache's hits and Postgres lookups together go up by
// one per call, as for a REST call, whether the direct path or the SDK answers it), and it counts
// once against the caps on calls in flight, so a server allowing one call in flight per address
// and per key runs it. It is metered once, under mcp. A key the chain refuses gets the answer it
// got: revoked, the 403 before any tool runs, byte for byte the REST route's; a paused account,
// the route's account_paused as a tool error; past its minute, rate_limited in the same words.
func TestAToolCallIsAdmittedOnce(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	set := metrics.NewSet()
	fixed := time.Now().Truncate(time.Minute).Add(10 * time.Second)
	srv := f.start(t, func(c *api.Config) {
		c.Metrics = set
		c.IPMaxInFlight, c.KeyMaxInFlight = 1, 1
		c.Now = func() time.Time { return fixed } // one minute window throughout
	})
	keyReads := func() uint64 {
		return set.GetOrCreateCounter("hs_auth_cache_hits_total").Get() + set.GetOrCreateCounter("hs_auth_postgres_lookups_total").Get()
	}
	const versions = "2025-06-18"
	headers := []string{"Accept", "application/json, text/event-stream", "Content-Type", "application/json", "MCP-Protocol-Version", versions}
	brief := func(id int64, meta string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"company_hiring_brief","arguments":{"company_id":%d}%s}}`, id, meta)
	}
	type result struct {
		Result struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
			Content           []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	decode := func(a rawAnswer) result {
		t.Helper()
		require.Equal(t, 200, a.status, a.body)
		var r result
		require.NoError(t, json.Unmarshal([]byte(a.body), &r), a.body)
		return r
	}

	a := srv.Account(t, "growth")
	var page struct {
		Companies []struct {
			CompanyID int64 `json:"company_id"`
		} `json:"companies"`
	}
	before := keyReads()
	srv.Get(t, "/v1/reqs/search", a.Key, url.Values{"limit": {"1"}}).Decode(t, 200, &page)
	require.Equal(t, uint64(1), keyReads()-before, "a REST call reads its key once")
	require.NotEmpty(t, page.Companies)
	id := page.Companies[0].CompanyID

	// Answered directly, then by the SDK (a call with _meta is the SDK's): each runs its route.
	for _, meta := range []string{"", `,"_meta":{"progressToken":1}`} {
		before = keyReads()
		r := decode(postMCP(t, srv, a.Key, brief(id, meta), headers...))
		require.False(t, r.Result.IsError, "meta %q: %v", meta, r.Result.Content)
		require.Contains(t, r.Result.StructuredContent, "is_hiring")
		require.Equal(t, uint64(1), keyReads()-before, "meta %q: a tool call reads its key once", meta)
	}
	u := readUsage(t, srv, a.Key)
	require.EqualValues(t, 2, u.ByChannel["mcp"], "each tool call metered once, under mcp")
	require.EqualValues(t, 1, u.ByChannel["rest"])

	// Revoked: refused before any tool runs, as the route refuses it.
	revoked := srv.Account(t, "growth")
	require.NoError(t, oltp.RevokeKey(context.Background(), srv.Pool, revoked.CustomerID, revoked.KeyID, ""))
	got := postMCP(t, srv, revoked.Key, brief(id, ""), headers...)
	rest := srv.Get(t, fmt.Sprintf("/v1/companies/%d/pre-action-brief", id), revoked.Key, nil)
	require.Equal(t, 403, got.status)
	require.Equal(t, rest.Status, got.status)
	require.Equal(t, string(rest.Body), got.body)

	// Paused: /mcp admits the key (it is not billable); the route it runs refuses it.
	paused := srv.Account(t, "growth")
	require.Equal(t, 200, srv.Post(t, "/v1/account/pause", paused.Key, nil).Status)
	before = keyReads()
	r := decode(postMCP(t, srv, paused.Key, brief(id, ""), headers...))
	require.Equal(t, uint64(1), keyReads()-before)
	require.True(t, r.Result.IsError)
	require.Equal(t, "account_paused", r.Result.StructuredContent["reason"])
	require.Equal(t, "Refused (account_paused): the account is paused: resume it with POST /v1/account/resume.", r.Result.Content[0].Text)
	require.Equal(t, 403, srv.Get(t, fmt.Sprintf("/v1/companies/%d/pre-action-brief", id), paused.Key, nil).Status)

	// Past the minute's calls: the 21st call of a Free key.
	free := srv.Account(t, "free")
	resolve := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"resolve_company","arguments":{"name":"acme"}}}`
	for range 20 {
		r := decode(postMCP(t, srv, free.Key, resolve, headers...))
		require.False(t, r.Result.IsError, "%v", r.Result.Content)
	}
	r = decode(postMCP(t, srv, free.Key, resolve, headers...))
	require.True(t, r.Result.IsError)
	require.Equal(t, "rate_limited", r.Result.StructuredContent["reason"])
	wait := fmt.Sprintf("wait %v seconds", r.Result.StructuredContent["retry_after"])
	require.Equal(t, "Refused (rate_limited): more than 20 calls in 60 seconds; "+wait+".", r.Result.Content[0].Text)
}
