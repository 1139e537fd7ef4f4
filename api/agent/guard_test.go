package agent_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/agent"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// mcpPost posts body to /mcp with key as an MCP client does (JSON, accepting both media types);
// headers are name, value pairs added after.
func mcpPost(tb testing.TB, srv *apitest.Server, key string, body any, headers ...string) apitest.Response {
	tb.Helper()
	return srv.Do(tb, "POST", agent.Path, key, body, append([]string{"Accept", "application/json, text/event-stream"}, headers...)...)
}

// rpc is one JSON-RPC request.
func rpc(id int, method string, params any) map[string]any {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	return m
}

func toolCall(id int, tool string, args map[string]any) map[string]any {
	return rpc(id, "tools/call", map[string]any{"name": tool, "arguments": args})
}

// rpcAnswer is a JSON-RPC response as /mcp answers it.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeRPC(tb testing.TB, r apitest.Response) rpcAnswer {
	tb.Helper()
	var a rpcAnswer
	require.NoError(tb, json.Unmarshal(r.Body, &a), "%d %s", r.Status, r.Body)
	require.Equal(tb, "2.0", a.JSONRPC, "%s", r.Body)
	return a
}

// A JSON-RPC batch is refused with 400 and a JSON-RPC error before the SDK sees it: none of its
// messages runs (a tool call in it bills nothing), whoever sends it (the demo key's 20,000
// tools/list in one batch), with whitespace before it or not. One message per request works.
func TestBatchIsRefusedWithNothingRun(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")
	var batch []any
	for i := range 50 {
		batch = append(batch, rpc(i, "tools/list", nil))
	}
	batch = append(batch, toolCall(99, "find_hiring_companies", map[string]any{"limit": 1}))
	b, err := json.Marshal(batch)
	require.NoError(t, err)

	var many strings.Builder
	many.WriteString("[")
	for i := range 20000 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)
	}
	many.WriteString("]")

	for _, c := range []struct {
		key  string
		body string
	}{{a.Key, string(b)}, {a.Key, " \r\n\t" + string(b)}, {api.PublicDemoKey, many.String()}} {
		r := mcpPost(t, f.srv, c.key, c.body)
		require.Equal(t, 400, r.Status, "%.300s", r.Body)
		require.Less(t, len(r.Body), 512, "one error, no answers")
		e := decodeRPC(t, r)
		require.Equal(t, "null", string(e.ID))
		require.NotNil(t, e.Error)
		require.Equal(t, -32600, e.Error.Code)
		require.Contains(t, e.Error.Message, "batches are not supported")
		require.Contains(t, e.Error.Message, "one message per request")
		f.srv.Conforms(t, "POST", agent.Path, r)
	}
	require.Zero(t, readUsage(t, f.srv, a.Key).Calls, "the batch's tool call did not run")

	r := mcpPost(t, f.srv, a.Key, toolCall(1, "find_hiring_companies", map[string]any{"limit": 1}))
	require.Equal(t, 200, r.Status, "%s", r.Body)
	require.Nil(t, decodeRPC(t, r).Error)
	require.EqualValues(t, 1, readUsage(t, f.srv, a.Key).Calls)
}

// held is a request to /mcp whose body is only half sent: it stays in flight (in the body read)
// until finish sends the rest and returns the status answered.
type held struct {
	conn net.Conn
	r    *bufio.Reader
	rest string
}

// hold opens a held request with key.
func hold(t *testing.T, srv *apitest.Server, key string) *held {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.Base, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	// The server reads the first 8 KiB of a body before any handler runs: send more, not all.
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + strings.Repeat(" ", 16<<10)
	const sent = 9 << 10
	_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: test\r\nX-API-Key: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", agent.Path, key, len(body), body[:sent])
	require.NoError(t, err)
	return &held{conn: conn, r: bufio.NewReader(conn), rest: body[sent:]}
}

// answered reports whether the server has already answered h (it was refused on arrival).
func (h *held) answered(t *testing.T) bool {
	t.Helper()
	require.NoError(t, h.conn.SetReadDeadline(time.Now().Add(5*time.Millisecond)))
	_, err := h.r.Peek(1)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return true
}

// finish sends the rest of h's body and returns the status answered.
func (h *held) finish(t *testing.T) int {
	t.Helper()
	_, err := h.conn.Write([]byte(h.rest))
	require.NoError(t, err)
	require.NoError(t, h.conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(h.r, nil)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// holdThrottled holds a request of holdKey in flight and requires a ping of pingKey to /mcp to
// answer the documented 429 key_throttled while it is. A ping can arrive before the held request
// enters the chain and take the one place itself, refusing the held request: then it holds again.
// The server has no protocol window (ProtocolPerMinute -1), or the pings could spend it first on
// a loaded machine.
func holdThrottled(t *testing.T, srv *apitest.Server, holdKey, pingKey string) *held {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		h := hold(t, srv, holdKey)
		for !h.answered(t) {
			last := mcpPost(t, srv, pingKey, rpc(2, "ping", nil))
			if last.Status == 429 {
				var d struct {
					Detail struct {
						Reason   string `json:"reason"`
						Endpoint string `json:"endpoint"`
					} `json:"detail"`
				}
				require.NoError(t, json.Unmarshal(last.Body, &d))
				require.Equal(t, api.ReasonKeyThrottled, d.Detail.Reason)
				require.Equal(t, agent.Path, d.Detail.Endpoint)
				require.Empty(t, last.Header["Retry-After"], "key_throttled sends no Retry-After")
				srv.Conforms(t, "POST", agent.Path, last)
				return h
			}
			require.Equal(t, 200, last.Status, "%s", last.Body)
			require.True(t, time.Now().Before(deadline), "a second request in flight is refused")
		}
		_ = h.conn.Close() // refused on arrival: a ping was in flight then
		require.True(t, time.Now().Before(deadline), "a request can be held in flight")
	}
}

// /mcp requests count against the chain's caps on calls in flight, per client address and per
// key (429 key_throttled), and their bodies are read within its bounds (413 past the limit).
func TestInFlightCapsAndTheBodyLimitApplyToMCP(t *testing.T) {
	t.Parallel()
	f := world.Get(t)

	t.Run("per address", func(t *testing.T) {
		srv := f.start(t, func(c *api.Config) { c.IPMaxInFlight, c.ProtocolPerMinute = 1, -1 })
		a, b := srv.Account(t, "growth"), srv.Account(t, "growth")
		h := holdThrottled(t, srv, a.Key, b.Key) // another key, the same address
		require.Equal(t, 200, h.finish(t))
		require.Equal(t, 200, mcpPost(t, srv, b.Key, rpc(3, "ping", nil)).Status)
	})

	t.Run("per key", func(t *testing.T) {
		srv := f.start(t, func(c *api.Config) { c.KeyMaxInFlight, c.ProtocolPerMinute = 1, -1 })
		a, b := srv.Account(t, "growth"), srv.Account(t, "growth")
		h := holdThrottled(t, srv, a.Key, a.Key)
		require.Equal(t, 200, mcpPost(t, srv, b.Key, rpc(3, "ping", nil)).Status, "another key is not throttled")
		require.Equal(t, 200, h.finish(t))
		require.Equal(t, 200, mcpPost(t, srv, a.Key, rpc(3, "ping", nil)).Status)
	})

	t.Run("body", func(t *testing.T) {
		a := f.srv.Account(t, "growth")
		big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("x", api.DefaultMaxBodyBytes) + `"}}}`
		r := mcpPost(t, f.srv, a.Key, big)
		require.Equal(t, 413, r.Status)
		require.Contains(t, string(r.Body), "Request body too large")
		f.srv.Conforms(t, "POST", agent.Path, r)
	})
}

// Protocol requests (everything but a tool call that runs a route) count in a window of their
// own per key: the N+1th of the minute is 429 rate_limited with Retry-After, in the documented
// shape, and so is a tool call refused before it runs anything (an unknown tool, bad arguments),
// while tool calls that run their route go on, limited by the chain alone. Another key has its
// own window; the demo key's is per address.
func TestProtocolRequestsHaveAWindowOfTheirOwn(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	const n = 4
	fixed := time.Now().Truncate(time.Minute).Add(10 * time.Second)
	srv := f.start(t, func(c *api.Config) {
		c.Now = func() time.Time { return fixed }
		c.ProtocolPerMinute = n
	})
	a := srv.Account(t, "growth")

	// n requests that run no route: the protocol calls, and tool calls refused before running.
	init := rpc(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}})
	require.Equal(t, 200, mcpPost(t, srv, a.Key, init).Status)
	require.Equal(t, 200, mcpPost(t, srv, a.Key, rpc(2, "tools/list", nil)).Status)
	r := mcpPost(t, srv, a.Key, toolCall(3, "resolve_company", map[string]any{"colour": "red"}))
	require.Equal(t, 200, r.Status)
	require.Contains(t, string(decodeRPC(t, r).Result), "invalid_arguments")
	r = mcpPost(t, srv, a.Key, toolCall(4, "no_such_tool", nil))
	require.Equal(t, 200, r.Status)
	require.NotNil(t, decodeRPC(t, r).Error, "the SDK's unknown tool")

	refused := func(r apitest.Response, what string) {
		t.Helper()
		require.Equal(t, 429, r.Status, "%s: %s", what, r.Body)
		var d struct {
			Detail struct {
				Reason    string `json:"reason"`
				Endpoint  string `json:"endpoint"`
				Message   string `json:"message"`
				SignupURL string `json:"signup_url"`
			} `json:"detail"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &d))
		require.Equal(t, api.ReasonRateLimited, d.Detail.Reason, what)
		require.Equal(t, agent.Path, d.Detail.Endpoint)
		require.Contains(t, d.Detail.Message, "protocol requests")
		require.Equal(t, strconv.Itoa(n), r.Header["Ratelimit-Limit"], what)
		require.Equal(t, "0", r.Header["Ratelimit-Remaining"], what)
		ra, err := strconv.Atoi(r.Header["Retry-After"])
		require.NoError(t, err, what)
		require.Equal(t, 50, ra, "the minute pinned at :10 ends in 50 s")
		srv.Conforms(t, "POST", agent.Path, r)
	}
	// The n+1th: every kind that runs no route is refused.
	refused(mcpPost(t, srv, a.Key, rpc(5, "tools/list", nil)), "tools/list")
	refused(mcpPost(t, srv, a.Key, rpc(6, "ping", nil)), "ping")
	refused(mcpPost(t, srv, a.Key, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}), "a notification")
	refused(mcpPost(t, srv, a.Key, toolCall(7, "resolve_company", map[string]any{"colour": "red"})), "bad arguments")
	refused(mcpPost(t, srv, a.Key, toolCall(8, "no_such_tool", nil)), "an unknown tool")

	// Tool calls that run their route are not counted here.
	for i := range 5 {
		r := mcpPost(t, srv, a.Key, toolCall(10+i, "resolve_company", map[string]any{"name": "acme"}))
		require.Equal(t, 200, r.Status, "%s", r.Body)
		var res struct {
			IsError bool `json:"isError"`
		}
		require.NoError(t, json.Unmarshal(decodeRPC(t, r).Result, &res))
		require.False(t, res.IsError, "%s", r.Body)
	}

	// Another key has a window of its own; the demo key's is the address's, with signup_url.
	require.Equal(t, 200, mcpPost(t, srv, srv.Account(t, "growth").Key, rpc(1, "tools/list", nil)).Status)
	for i := range n {
		require.Equal(t, 200, mcpPost(t, srv, api.PublicDemoKey, rpc(i, "ping", nil)).Status)
	}
	r = mcpPost(t, srv, api.PublicDemoKey, rpc(9, "tools/list", nil))
	refused(r, "the demo key")
	require.Contains(t, string(r.Body), "signup_url")
}

// Every /mcp answer is JSON and at most agent.MaxAnswerBytes: a request echoed back past it (a
// huge id) is a JSON-RPC error instead, the SDK's plain-text refusals become JSON-RPC errors with
// their status, a notification is 202 without a body, all as the document says.
func TestAnswersAreBoundedJSON(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")

	huge := strings.Repeat("i", agent.MaxAnswerBytes)
	r := mcpPost(t, f.srv, a.Key, fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ping"}`, huge))
	require.Equal(t, 200, r.Status)
	require.Less(t, len(r.Body), 1024, "the answer echoing the id is not sent")
	e := decodeRPC(t, r)
	require.Equal(t, "null", string(e.ID), "an id too long to echo")
	require.Equal(t, -32603, e.Error.Code)
	require.Contains(t, e.Error.Message, strconv.Itoa(agent.MaxAnswerBytes))
	f.srv.Conforms(t, "POST", agent.Path, r)

	// Honest answers are far below it: the catalogue, and a full page of 100 companies.
	list := mcpPost(t, f.srv, a.Key, rpc(1, "tools/list", nil))
	require.Equal(t, 200, list.Status)
	require.Less(t, len(list.Body), agent.MaxAnswerBytes/4)
	require.Equal(t, "no-store", list.Header["Cache-Control"], "a tool answer is the caller's own, as every /v1 answer")
	r = mcpPost(t, f.srv, a.Key, toolCall(2, "find_hiring_companies", map[string]any{"limit": 100, "detail": "full"}))
	require.Equal(t, 200, r.Status)
	require.Nil(t, decodeRPC(t, r).Error)
	require.Less(t, len(r.Body), agent.MaxAnswerBytes/2, "%d bytes", len(r.Body))
	t.Logf("tools/list answers %d bytes, a full page of 100 companies %d", len(list.Body), len(r.Body))

	// The SDK's refusals, as JSON-RPC errors.
	for _, c := range []struct {
		status  int
		r       apitest.Response
		mention string
	}{
		{400, f.srv.Do(t, "POST", agent.Path, a.Key, rpc(1, "ping", nil), "Accept", "application/json"), "Accept"},
		{400, mcpPost(t, f.srv, a.Key, `{"jsonrpc":"2.0","id":1,`), "malformed"},
		{415, mcpPost(t, f.srv, a.Key, rpc(1, "ping", nil), "Content-Type", "text/plain"), "Content-Type"},
	} {
		require.Equal(t, c.status, c.r.Status, "%s", c.r.Body)
		require.True(t, strings.HasPrefix(c.r.Header["Content-Type"], "application/json"), c.r.Header["Content-Type"])
		e := decodeRPC(t, c.r)
		require.Equal(t, -32600, e.Error.Code)
		require.Contains(t, e.Error.Message, c.mention)
		f.srv.Conforms(t, "POST", agent.Path, c.r)
	}

	r = mcpPost(t, f.srv, a.Key, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	require.Equal(t, 202, r.Status)
	require.Empty(t, r.Body)
	f.srv.Conforms(t, "POST", agent.Path, r)
}

// The tool list never changes while the server runs, so it is advertised without listChanged,
// and a subscriptions/listen (revision 2026-07-28) answers at once: it has nothing to wait for,
// so it cannot park a request (and a goroutine) until the server stops.
func TestSubscriptionsListenAnswersAtOnce(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")
	s := connect(t, f.srv, a.Key, "")
	require.NotNil(t, s.InitializeResult().Capabilities.Tools)
	require.False(t, s.InitializeResult().Capabilities.Tools.ListChanged)

	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequest("POST", f.srv.Base+agent.Path, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "X-API-Key": a.Key,
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	require.NoError(t, err, "the listen answers within 5 s")
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "its answer ends")
	require.Equal(t, 200, resp.StatusCode)
	require.Contains(t, string(b), `"id":7`)
}
