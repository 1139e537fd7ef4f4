package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
)

// What /mcp lets reach the SDK, and what it lets out: one JSON-RPC message per request (a batch
// is refused before the SDK sees it), and one answer of at most MaxAnswerBytes, always JSON.

// MaxAnswerBytes bounds one /mcp answer. The largest an honest request gets is a tool result
// (MaxResultBytes of structuredContent and its text copy, about 70 KB) or the tool catalogue
// (about 23 KB); only a request echoed back (a huge id, method, tool or argument name) comes
// near it, and is answered a JSON-RPC error instead.
const MaxAnswerBytes = 256 << 10

// Codes of the JSON-RPC errors /mcp answers itself.
const (
	codeInvalidRequest = jsonrpc.CodeInvalidRequest // a batch; a request the SDK refused with a plain-text sentence
	codeInternalError  = jsonrpc.CodeInternalError  // an answer past MaxAnswerBytes; the SDK's own 5xx
)

// batchRefusal is the message of the 400 a JSON-RPC batch gets.
const batchRefusal = "JSON-RPC batches are not supported: send one message per request (batching was removed from MCP in revision 2025-06-18)"

// isBatch reports whether body is a JSON-RPC batch: its first byte past JSON whitespace is '['
// (the SDK reads a body as a batch exactly when it parses as a JSON array).
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// runsTool reports whether body is one tools/call request, read with the SDK's own decoder (so
// it cannot read the method otherwise than the SDK does), or by plainCall where that reads it
// alike. Only such a request can run a route
// (api.Server.Mount counts it in the protocol window when it ran none); everything else is a
// protocol request.
func runsTool(body []byte) bool {
	if isBatch(body) {
		return false
	}
	if _, ok := plainCall(body); ok { // read as the SDK reads it, without its 32 KiB buffer
		return true
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return false
	}
	req, ok := msg.(*jsonrpc.Request)
	return ok && req.ID.IsValid() && req.Method == "tools/call"
}

// rpcError is a JSON-RPC error response.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorBody    `json:"error"`
}

type rpcErrorBody struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// rpcErrorSchema is the JSON Schema of the JSON-RPC errors /mcp answers with a 4xx status (and
// with 200 for an answer past MaxAnswerBytes).
func rpcErrorSchema() map[string]any {
	s := api.Object(map[string]any{
		"jsonrpc": api.Enum("2.0"),
		"id":      api.Optional(map[string]any{"type": []any{"string", "integer", "null"}}),
		"error": api.Object(map[string]any{"code": api.Type("integer"), "message": api.Type("string"),
			"data": api.Optional(map[string]any{"description": "what the SDK adds to some errors (the protocol revisions it supports)"})}),
	})
	s["description"] = "a JSON-RPC error response; id is the request's, null when it is not known (a batch, an unreadable body), " +
		"absent when the MCP server refuses a message that has none (a notification)"
	return s
}

// encodeRPCError is the JSON of a JSON-RPC error response with id (JSON; nil is null).
func encodeRPCError(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorBody{Code: code, Message: msg}}) // cannot fail: strings and valid JSON
	return b
}

// writeRPCError answers rc with a JSON-RPC error of id null.
func writeRPCError(rc *fasthttp.RequestCtx, status int, code int64, msg string) {
	rc.Response.Reset()
	rc.SetStatusCode(status)
	rc.SetContentType("application/json")
	rc.SetBody(encodeRPCError(nil, code, msg))
}

// maxEchoedID is the longest id (as JSON) an answer /mcp writes itself echoes; a longer one is
// answered null.
const maxEchoedID = 256

// requestID is the id of the request body (JSON), nil when it has none, cannot be read or is
// longer than maxEchoedID.
func requestID(body []byte) json.RawMessage {
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return nil
	}
	b, err := json.Marshal(req.ID.Raw())
	if err != nil || len(b) > maxEchoedID {
		return nil
	}
	return b
}

// bounded serves the SDK's handler h with one request, holding its answer: an answer past
// MaxAnswerBytes becomes a JSON-RPC error (code -32603, HTTP 200), and a refusal the SDK writes
// as plain text (http.Error) becomes a JSON-RPC error of id null with the same status and
// sentence, so every /mcp answer is JSON. It is not an http.Flusher: the SDK, in JSON-response
// mode, never streams.
func bounded(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bw := &boundedWriter{w: w}
		ctx, cancel := detach(r)
		h.ServeHTTP(bw, r.WithContext(ctx))
		cancel()
		bw.finish(r)
	})
}

// detach returns the context the SDK serves r with: one of its own, carrying only the caller's
// Presented, cancelled once the SDK answered. Under fasthttpadaptor r's context is the
// fasthttp.RequestCtx itself, which the server owns again once the handler returns; the SDK
// derives contexts from the request's, and the goroutine that propagates their cancellation may
// read it after that (RequestCtx.Done reads the server's channel, which Shutdown writes: a data
// race the race detector caught in CI).
func detach(r *http.Request) (context.Context, context.CancelFunc) {
	ctx := context.Background()
	if p, ok := api.PresentedFrom(r.Context()); ok {
		ctx = api.WithPresented(ctx, p)
	}
	return context.WithCancel(ctx)
}

var errAnswerTooLarge = errors.New("cannot write the /mcp answer: it exceeds " + strconv.Itoa(MaxAnswerBytes) + " bytes")

// boundedWriter holds an answer of at most MaxAnswerBytes.
type boundedWriter struct {
	w      http.ResponseWriter
	status int
	buf    []byte
	over   bool // the answer passed MaxAnswerBytes; what was written is dropped
}

func (b *boundedWriter) Header() http.Header { return b.w.Header() }

func (b *boundedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	if b.over || len(b.buf)+len(p) > MaxAnswerBytes {
		b.over, b.buf = true, nil
		return 0, errAnswerTooLarge
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// finish writes the answer held (or the error replacing it) to the client.
func (b *boundedWriter) finish(r *http.Request) {
	h := b.w.Header()
	status := b.status
	if status == 0 {
		status = http.StatusOK
	}
	body := b.buf
	switch {
	case b.over:
		var reqBody []byte
		if rc, ok := r.Context().(*fasthttp.RequestCtx); ok { // the adaptor's request context
			reqBody = rc.Request.Body()
		}
		status = http.StatusOK
		body = encodeRPCError(requestID(reqBody), codeInternalError,
			"the answer exceeds "+strconv.Itoa(MaxAnswerBytes)+" bytes and was not sent: send a shorter id and names")
		h.Set("Content-Type", "application/json")
	case status >= 400 && !strings.HasPrefix(h.Get("Content-Type"), "application/json"):
		code := int64(codeInvalidRequest)
		if status >= 500 {
			code = codeInternalError
		}
		body = encodeRPCError(nil, code, strings.TrimSpace(string(body)))
		h.Del("X-Content-Type-Options")
		h.Set("Content-Type", "application/json")
	}
	h.Del("Content-Length")
	b.w.WriteHeader(status)
	if len(body) > 0 {
		_, _ = b.w.Write(body)
	}
}
