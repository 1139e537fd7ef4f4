package agent

import (
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/planehq/hiringsignal/api"
)

// Path is where the agent interface is served.
const Path = "/mcp"

// Deps are what the agent interface needs: the API server whose routes its tools run.
type Deps struct {
	API *api.Server
	Log *slog.Logger // default: discard
}

// Register mounts the MCP server at /mcp on d.API. Call it after every handler package
// registered its routes and before Start: each tool's route must be registered (a missing one
// panics, like any route table error). Its input schema is built from that route's declaration.
//
// Mount admits each request as the chain does (calls in flight per address and per key, the
// key, the body read within the chain's bounds) and counts what runs no route in the caller's
// protocol window (runsTool tells it which request may run one); a batch is then refused before
// the SDK sees it, and the SDK's answer is held to MaxAnswerBytes, always JSON (bounded).
func Register(d Deps) { register(d, true) }

// register mounts /mcp; without direct calls (direct.go) the SDK answers every request.
func register(d Deps, directCalls bool) {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	srv, tools := newMCPServer(d.API, d.Log)
	// The body reaches the SDK read already, within api.Config.MaxBodyBytes (Mount): no second
	// limit of the SDK's own, which would answer 413 in another shape.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: d.Log, MaxRequestBodyBytes: -1})
	sdk := fasthttpadaptor.NewFastHTTPHandler(bounded(h))
	dc := &direct{tools: tools}
	d.API.Mount(mcpRoute(), func(rc *fasthttp.RequestCtx) {
		if isBatch(rc.Request.Body()) {
			writeRPCError(rc, fasthttp.StatusBadRequest, codeInvalidRequest, batchRefusal)
			return
		}
		if directCalls && dc.serve(rc) {
			return
		}
		sdk(rc)
	}, runsTool)
}

// mcpRoute is the /mcp operation as /openapi.json documents it: besides the chain's own statuses
// (401, 403, 429, 500, 503), the SDK's answers (200 a JSON-RPC response, 202 a notification
// accepted, 400, 404 and 415 JSON-RPC errors), a batch's 400 and the bounded body read's 408 and
// 413; 429 is also the protocol window's rate_limited.
func mcpRoute() *api.Route {
	rpcErr := rpcErrorSchema()
	bad := map[string]any{"oneOf": []any{rpcErr, api.Object(map[string]any{"detail": api.Type("string")})}}
	return &api.Route{Name: "mcp", Method: "POST", Path: Path, Tag: "agent",
		Summary: "The agent interface: a Model Context Protocol server (Streamable HTTP, stateless, JSON responses; protocol revisions 2024-11-05 to 2026-07-28). " +
			"Authenticate as for every route (X-API-Key or Authorization: Bearer). One JSON-RPC message per request: a batch (a JSON array) is refused with 400. " +
			"tools/list and the other protocol calls are not billed; they count in a window of their own per key (per address for the demo key; 120 a minute by default), " +
			"as does a tools/call that runs nothing (an unknown tool, bad arguments): past it 429 rate_limited. Each tools/call that runs a /v1 route goes " +
			"through the same limits and metering as that route, recorded in usage by_channel.mcp. An answer is at most " + strconv.Itoa(MaxAnswerBytes) + " bytes",
		Statuses: []int{200, 202, 400, 404, 408, 413, 415}, Response: map[string]any{"type": "object", "description": "a JSON-RPC response (a result, or an error such as method not found)"},
		ErrorBodies: map[int]map[string]any{400: bad, 404: rpcErr, 415: rpcErr},
		Describe: map[int]string{
			202: "Accepted: a notification or a response, answered without a body",
			400: "A JSON-RPC batch, or a request the MCP server refuses (JSON-RPC error); an unreadable body (detail)",
			404: "Method not found (protocol revision 2026-07-28; JSON-RPC error)",
			415: "Content-Type is not application/json (JSON-RPC error)",
			429: "Rate limited: the protocol window or too many unknown keys (rate_limited, with RateLimit-* and Retry-After), or throttled (key_throttled)",
		}}
}

// NewMCPServer builds the MCP server whose tools run api's routes (every tool of Tools).
func NewMCPServer(a *api.Server, log *slog.Logger) *mcp.Server {
	s, _ := newMCPServer(a, log)
	return s
}

// newMCPServer is NewMCPServer and its tools by name.
func newMCPServer(a *api.Server, log *slog.Logger) (*mcp.Server, map[string]*tool) {
	tools := map[string]*tool{}
	s := mcp.NewServer(&mcp.Implementation{Name: "hiringsignal", Title: "Hiring signal", Version: api.APIVersion},
		&mcp.ServerOptions{Logger: log, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}},
			Instructions: "Hiring signals from employers' applicant-tracking systems and job boards. Start with resolve_company or find_hiring_companies " +
				"to get company_id, then company_hiring_brief. Every tool states its cost; limits answer isError with reason and retry_after."})
	routes := a.Routes()
	for _, t := range Tools() {
		i := slices.IndexFunc(routes, func(r api.Route) bool { return r.Name == t.Route })
		if i < 0 {
			panic(fmt.Sprintf("agent: tool %s runs route %q, which is not registered: register its handler package first", t.Name, t.Route))
		}
		rt := routes[i]
		schema, err := InputSchema(t, rt)
		if err != nil {
			panic("agent: " + err.Error())
		}
		ro := t.ReadOnly
		// The title is the tool's; destructiveHint means something only when readOnlyHint is false.
		ann := &mcp.ToolAnnotations{ReadOnlyHint: ro, IdempotentHint: ro || t.Destructive}
		if !ro {
			ann.DestructiveHint = &t.Destructive
		}
		tools[t.Name] = &tool{t: t, rt: rt, a: a}
		s.AddTool(&mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: schema, Annotations: ann},
			handler(tools[t.Name]))
	}
	return s, tools
}

// InputSchema is the tool's input schema: each argument's schema as the route declares it
// (api.ParamSchema of a parameter, api.FieldSchema of a body field) made compact (Compact), its
// description (or the tool's shorter Notes), which are required, and detail on tools that answer
// data.
func InputSchema(t Tool, rt api.Route) (map[string]any, error) {
	props := map[string]any{}
	required := []string{}
	for _, name := range t.Args {
		var s map[string]any
		switch p, f := findArg(rt, name); {
		case p != nil:
			s = api.ParamSchema(*p)
			if p.Description != "" {
				s["description"] = p.Description
			}
			if p.Required {
				required = append(required, name)
			}
		case f != nil:
			s = api.FieldSchema(*f)
			if f.Required {
				required = append(required, name)
			}
		default:
			return nil, fmt.Errorf("tool %s takes %q, which route %s does not declare", t.Name, name, rt.Name)
		}
		props[name] = ArgSchema(t, name, s)
	}
	if t.answersData() {
		props[detailArg] = map[string]any{"type": "string", "enum": []string{"concise", "full"}, "default": "concise"}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out, nil
}

// ArgSchema is the schema of argument name of tool t given the route's schema s of it: Compact(s)
// with the tool's note, when it has one, as its description.
func ArgSchema(t Tool, name string, s map[string]any) map[string]any {
	out := Compact(s)
	if slices.Contains(t.Terse, name) {
		out = terse(out, true)
	}
	if note, ok := t.Notes[name]; ok {
		if note == "" {
			delete(out, "description")
		} else {
			out["description"] = note
		}
	}
	return out
}

// terse is s without the descriptions of its nested members (top: s is the argument itself,
// whose description stays).
func terse(s map[string]any, top bool) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		switch x := v.(type) {
		case map[string]any:
			out[k] = terse(x, false)
		default:
			if k != "description" || top {
				out[k] = v
			}
		}
	}
	return out
}

// compactDrop are the keywords a tool's schema leaves out: bounds of lengths and item counts that
// an agent does not need to build a valid call (the route still enforces them, and its 422 comes
// back as an isError result naming the argument and the bound).
var compactDrop = []string{"maxLength", "maxItems", "minItems"}

// Compact is the schema s (a route's parameter or body field, as the document states it) as a
// tool states it, smaller and as exact about what may be sent: compactDrop's keywords are left
// out, an empty required list too, and a field taking one value or an array of them (oneOf of a
// schema and an array of it: criteria fields) is stated as the array only (the route takes both).
// Types, enums, formats, minimums, maximums and defaults are kept. s is not changed.
func Compact(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		switch {
		case slices.Contains(compactDrop, k):
		case k == "required":
			if reflect.ValueOf(v).Kind() != reflect.Slice || reflect.ValueOf(v).Len() > 0 {
				out[k] = v
			}
		case k == "oneOf":
			if arr := oneOrMany(v); arr != nil {
				for ak, av := range Compact(arr) {
					out[ak] = av
				}
				continue
			}
			out[k] = compactAny(v)
		default:
			out[k] = compactAny(v)
		}
	}
	return out
}

func compactAny(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return Compact(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = compactAny(e)
		}
		return out
	}
	return v
}

// oneOrMany is the array schema of a oneOf of a schema and an array of it ([X, {type: array,
// items: X}]), nil for any other oneOf.
func oneOrMany(v any) map[string]any {
	alts, ok := v.([]any)
	if !ok || len(alts) != 2 {
		return nil
	}
	one, ok1 := alts[0].(map[string]any)
	many, ok2 := alts[1].(map[string]any)
	if !ok1 || !ok2 || many["type"] != "array" {
		return nil
	}
	items, ok := many["items"].(map[string]any)
	if !ok || !sameSchema(one, items) {
		return nil
	}
	return many
}

// sameSchema says whether a and b are the same schema but for their bounds (compactDrop).
func sameSchema(a, b map[string]any) bool {
	return reflect.DeepEqual(Compact(a), Compact(b))
}

// answersData reports whether the tool's answer is data worth shaping (not an ack).
func (t Tool) answersData() bool { return t.ReadOnly }

// findArg is the route's parameter (path, query) or body field called name.
func findArg(rt api.Route, name string) (*api.Param, *api.Field) {
	for i := range rt.Params {
		if p := &rt.Params[i]; p.Name == name && p.In != "header" && p.AliasOf == "" {
			return p, nil
		}
	}
	if rt.Body != nil {
		for i := range rt.Body.Fields {
			if f := &rt.Body.Fields[i]; f.Name == name && !f.Forbidden {
				return nil, f
			}
		}
	}
	return nil, nil
}
