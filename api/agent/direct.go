package agent

import (
	"bytes"
	"encoding/json"
	"mime"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/jsonw"
)

// Direct tool calls. The SDK's stateless handler builds, for every request, a server-side
// connection of its own (a transport, a JSON-RPC connection and its goroutines, a logical
// stream), decodes the message four times and runs behind fasthttp's net/http adaptor (another
// goroutine, a net/http request): a tool call cost about seven times the REST call it runs
// (bench/README.md). The SDK has no way to reuse that state between stateless requests, so the
// one request that runs routes, a plain tools/call of one of our tools, is answered here: the
// same tool call the SDK's handler makes (tool.call), and the answer the SDK would write (its
// JSON-RPC encoding, status, Content-Type and Cache-Control), within the same MaxAnswerBytes
// bound. A result shaped from the route's bytes is written straight into the JSON-RPC answer
// (shaper.answer), with the shaper the request was read with: no result, text copy or encoding
// of its own.
// Everything else, and every request whose handling by the SDK depends on more than that (another
// protocol revision, an unknown tool, params this reading does not take as the SDK does), goes to
// the SDK unchanged. TestDirectCallsAnswerAsTheSDK holds the two answers equal.

// directVersions are the MCP-Protocol-Version values answered directly ("" is 2025-03-26 to the
// SDK): the initialize-based revisions, where the SDK checks no Mcp-Method, Mcp-Name or
// _meta against the request. 2026-07-28 and later go to the SDK.
var directVersions = []string{"", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// maxDirectNesting is the most '{' and '[' a body answered directly may hold: under it, no
// nesting passes the SDK's own depth bound (1,000), which it answers with an error.
const maxDirectNesting = 1000

// directServed counts the calls answered directly (the tests see which path answered).
var directServed atomic.Int64

// direct answers plain tools/call requests with the tools' calls.
type direct struct {
	tools map[string]*tool
}

// serve answers rc if it is a plain tools/call of a known tool, as the SDK would, and reports
// whether it did; false leaves rc untouched for the SDK.
func (d *direct) serve(rc *fasthttp.RequestCtx) bool {
	h := &rc.Request.Header
	if ct := h.ContentType(); string(ct) != "application/json" { // what clients send, read without parsing
		if mt, _, err := mime.ParseMediaType(string(ct)); err != nil || mt != "application/json" {
			return false // the SDK's 415
		}
	}
	if len(h.Peek("Last-Event-ID")) > 0 || !acceptsBoth(h.PeekAll(fasthttp.HeaderAccept)) {
		return false // the SDK's 400s
	}
	if v := h.Peek("Mcp-Protocol-Version"); !knownVersion(v) {
		return false
	}
	body := rc.Request.Body()
	s := shapers.Get().(*shaper)
	defer s.release() // after the answer is copied out of it
	env, params, ok := s.readCall(body)
	var name string
	var args json.RawMessage
	if ok {
		name, args, ok = s.callParamsAt(params) // args and env hold body's bytes, not the tree's
	}
	if !ok {
		return false
	}
	x, ok := d.tools[name]
	if !ok {
		return false // the SDK's unknown-tool error
	}
	p, ok := api.PresentedFrom(rc)
	if !ok {
		return false // not mounted (the handler would refuse it)
	}
	// What the SDK's handler runs (handler), for p, without the context the SDK serves it with.
	res, err := x.call(p, args, s)
	var out []byte
	switch {
	case err == nil && res == nil: // shaped from the route's bytes, in s.buf
		out, err = s.answer(env.id)
	case err == nil:
		if res.Content == nil {
			res.Content = []mcp.Content{} // as the SDK answers it
		}
		if raw, ok := plainResult(res); ok {
			out, err = response(env.id, raw)
		} else if raw, err = marshal(res); err == nil {
			out, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: env.id, Result: raw})
		}
	default:
		out, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: env.id, Error: err})
	}
	if err != nil || len(out) > MaxAnswerBytes {
		// What bounded answers past MaxAnswerBytes (and what the SDK's failure to encode comes to).
		out = encodeRPCError(requestID(body), codeInternalError,
			"the answer exceeds "+strconv.Itoa(MaxAnswerBytes)+" bytes and was not sent: send a shorter id and names")
	}
	directServed.Add(1)
	rc.SetStatusCode(fasthttp.StatusOK)
	rc.Response.Header.Add(fasthttp.HeaderCacheControl, "no-cache, no-transform") // the SDK's, added beside Mount's as the adaptor adds it
	rc.SetContentType("application/json")
	rc.SetBody(out)
	return true
}

// envelope is a tools/call request as the SDK reads it.
type envelope struct {
	id     jsonrpc.ID
	params json.RawMessage
}

// plainCall reads body as one tools/call request with an id, when the SDK's decoder
// (jsonrpc.DecodeMessage, which allocates a 32 KiB buffer for each message) reads it the same:
// valid UTF-8 and JSON, nesting within the SDK's bound, one object of the members jsonrpc
// ("2.0"), id (an integer of at most 15 digits, or a string without escapes), method (exactly
// "tools/call") and params (an object), each once, and nothing after it. ok is false for every
// other body, which the SDK reads.
func plainCall(body []byte) (env envelope, ok bool) {
	s := shapers.Get().(*shaper)
	defer s.release()
	env, _, ok = s.readCall(body)
	return env, ok
}

// readCall is plainCall reading body into s's tree, which keeps it: params is the node of the
// params.
func (s *shaper) readCall(body []byte) (env envelope, params int32, ok bool) {
	if !utf8.Valid(body) || nesting(body) > maxDirectNesting {
		return env, 0, false
	}
	root, end, ok := s.parse(body, skipSpace(body, 0))
	if !ok || skipSpace(body, end) != len(body) || s.nodes[root].kind != '{' {
		return env, 0, false
	}
	var version, method, id bool
	for c := s.nodes[root].first; c >= 0; c = s.nodes[c].next {
		n := &s.nodes[c]
		switch string(n.key) {
		case "jsonrpc":
			if version || string(n.val) != `"2.0"` {
				return env, 0, false
			}
			version = true
		case "method":
			if method || string(n.val) != `"tools/call"` {
				return env, 0, false
			}
			method = true
		case "id":
			if id {
				return env, 0, false
			}
			if env.id, ok = plainID(n.val); !ok {
				return env, 0, false
			}
			id = true
		case "params":
			if env.params != nil || n.kind != '{' {
				return env, 0, false
			}
			env.params, params = n.val, c
		default:
			return env, 0, false
		}
	}
	return env, params, version && method && id && env.params != nil
}

// plainID is the id of raw when both decoders read it alike: an integer of at most 15 digits
// (exact as the SDK's float64) or a string without escapes.
func plainID(raw json.RawMessage) (jsonrpc.ID, bool) {
	s := string(raw)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		v := s[1 : len(s)-1]
		if strings.ContainsAny(v, "\\\"") {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(v)
		return id, err == nil
	}
	digits := strings.TrimPrefix(s, "-")
	if len(digits) == 0 || len(digits) > 15 || strings.Trim(digits, "0123456789") != "" || (len(digits) > 1 && digits[0] == '0') {
		return jsonrpc.ID{}, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// callParams reads tools/call params as the SDK's case-sensitive decoder does, when they are an
// object of at most a string name and arguments, each once; ok is false for anything else
// (_meta, another member, a repeated one), which the SDK reads.
func callParams(params json.RawMessage) (name string, args json.RawMessage, ok bool) {
	s := shapers.Get().(*shaper)
	defer s.release()
	root, end, ok := s.parse(params, skipSpace(params, 0))
	if !ok || skipSpace(params, end) != len(params) || s.nodes[root].kind != '{' {
		return "", nil, false
	}
	return s.callParamsAt(root)
}

// callParamsAt is callParams of the params at node p of s's tree.
func (s *shaper) callParamsAt(p int32) (name string, args json.RawMessage, ok bool) {
	var seenName bool
	for c := s.nodes[p].first; c >= 0; c = s.nodes[c].next {
		n := &s.nodes[c]
		switch string(n.key) {
		case "name":
			if seenName || n.kind != '"' {
				return "", nil, false
			}
			if n.escaped {
				if json.Unmarshal(n.val, &name) != nil {
					return "", nil, false
				}
			} else {
				name = string(n.val[1 : len(n.val)-1])
			}
			seenName = true
		case "arguments":
			if args != nil {
				return "", nil, false
			}
			args = n.val
		default:
			return "", nil, false
		}
	}
	return name, args, seenName
}

// acceptsBoth reports whether Accept takes both JSON and an event stream, as the SDK reads it.
func acceptsBoth(values [][]byte) bool {
	jsonOK, streamOK := false, false
	for _, v := range values {
		for rest, more := string(v), true; more; { // each comma-separated item, as strings.Split gives them
			var raw string
			raw, rest, more = strings.Cut(rest, ",")
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

func knownVersion(v []byte) bool {
	for _, k := range directVersions {
		if string(v) == k {
			return true
		}
	}
	return false
}

// nesting counts the bytes that may open a JSON object or array (in strings too: a bound, not a
// parse).
func nesting(b []byte) int {
	return bytes.Count(b, []byte("{")) + bytes.Count(b, []byte("["))
}

// plainResult is the JSON the SDK writes for res (CallToolResult.MarshalJSON) when res is a
// result shaped from its answer's bytes (a text copy and structuredContent as JSON, nothing else),
// written without encoding structuredContent twice more; ok is false for any other result.
func plainResult(res *mcp.CallToolResult) ([]byte, bool) {
	sc, ok := res.StructuredContent.(json.RawMessage)
	if !ok || res.Meta != nil || res.IsError || res.InputRequests != nil || res.RequestState != "" || res.NeedsInput() || len(res.Content) != 1 {
		return nil, false
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok || tc.Meta != nil || tc.Annotations != nil {
		return nil, false
	}
	return appendPlainResult(make([]byte, 0, len(tc.Text)+len(sc)+64), tc.Text, sc), true
}

// appendPlainResult appends the JSON of a result of text and structured content sc, as
// CallToolResult.MarshalJSON writes it (the text encoded as json.Marshal encodes a string).
func appendPlainResult[T string | []byte](dst []byte, text T, sc []byte) []byte {
	dst = append(dst, `{"content":[{"type":"text","text":"`...)
	dst = jsonw.AppendEscaped(dst, text, true)
	dst = append(dst, `"}],"structuredContent":`...)
	dst = append(dst, sc...)
	return append(dst, '}')
}

// resultTail is how the SDK's encoder ends a response whose result is 0 (responseHead).
const resultTail = `"result":0}`

// responseHead is the JSON-RPC response of id as the SDK's encoder writes it (jsonrpc.EncodeMessage)
// up to its result, encoded around a placeholder result; ok is false if the SDK writes the result
// anywhere but last.
func responseHead(id jsonrpc.ID) (head []byte, ok bool, err error) {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: json.RawMessage("0")})
	if err != nil || !bytes.HasSuffix(b, []byte(resultTail)) {
		return nil, false, err
	}
	return b[:len(b)-2], true, nil
}

// response is the JSON-RPC response of id with result, compact JSON, as the SDK's encoder writes
// it (jsonrpc.EncodeMessage, whose compaction of result changes nothing), without a pass over
// result.
func response(id jsonrpc.ID, result []byte) ([]byte, error) {
	head, ok, err := responseHead(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: result})
	}
	out := make([]byte, 0, len(head)+len(result)+1)
	out = append(out, head...)
	out = append(out, result...)
	return append(out, '}'), nil
}

// answer is the JSON-RPC response of id whose result is the tool result of the answer shaped in
// s.buf (okResult of its bytes as JSON and as text), as response(id, plainResult(result)) writes
// it: written in s.out, valid until s is reset.
func (s *shaper) answer(id jsonrpc.ID) ([]byte, error) {
	sc := s.buf.Bytes()
	head, ok, err := responseHead(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return response(id, appendPlainResult(nil, sc, sc))
	}
	o := append(s.out[:0], head...)
	o = appendPlainResult(o, sc, sc)
	s.out = append(o, '}')
	return s.out, nil
}

// marshal is JSON without HTML escaping, as the SDK encodes results.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
