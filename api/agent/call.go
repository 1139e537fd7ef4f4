package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planehq/hiringsignal/api"
)

// tool is one tool as served: its declaration and the route it runs on a.
type tool struct {
	t  Tool
	rt api.Route
	a  *api.Server
}

// handler runs tool x for the SDK: its arguments become a request of its route, run in-process
// for the authenticated caller through the chain; the answer becomes the tool result.
func handler(x *tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		who, ok := api.PresentedFrom(ctx)
		if !ok {
			// Mount authenticates every request before the SDK sees it: this is a wiring bug.
			return nil, errors.New("cannot run a tool: the request was not authenticated (serve tools through agent.Register)")
		}
		s := shapers.Get().(*shaper)
		defer s.release()
		res, err := x.call(who, req.Params.Arguments, s)
		if err == nil && res == nil {
			// The SDK writes structuredContent with json.Marshal: these very bytes.
			b := bytes.Clone(s.buf.Bytes())
			res = okResult(json.RawMessage(b), string(b))
		}
		return res, err
	}
}

// call runs x for who with raw arguments, reading them and shaping the answer with s. An
// answer shaped from its bytes (shapeFast) is left in s.buf, its result nil: the result is
// okResult of those bytes as JSON and as text. Any other answer is res.
func (x *tool) call(who *api.Presented, raw json.RawMessage, s *shaper) (res *mcp.CallToolResult, err error) {
	ir, detail, ok := s.request(x.t, x.rt, raw)
	if !ok {
		var problems []string
		if ir, detail, problems = request(x.t, x.rt, raw); len(problems) > 0 {
			return argumentError(x.t, problems), nil
		}
	}
	ir.As, ir.Channel = who, api.ChannelMCP
	resp, err := x.a.Execute(ir)
	if err != nil {
		return nil, err
	}
	defer resp.Release() // every result is read out of the answer before it returns
	if (resp.Status == 200 || resp.Status == 201) && s.shape(x.t, resp.Body, detail) {
		return nil, nil
	}
	return decodedOrRefusal(x.t, resp, detail), nil
}

// request translates raw arguments into the route's path, query or body; problems says what to
// change when they do not fit (the chain checks the values themselves).
func request(t Tool, rt api.Route, raw json.RawMessage) (ir api.InternalRequest, detail string, problems []string) {
	ir = api.InternalRequest{Route: rt.Name, Path: map[string]string{}, Query: url.Values{}}
	detail = "concise"
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return ir, detail, []string{"arguments must be a JSON object of the tool's input schema"}
		}
	}
	names := make([]string, 0, len(args))
	for n := range args {
		names = append(names, n)
	}
	sort.Strings(names)
	body := map[string]json.RawMessage{}
	for _, name := range names {
		v := args[name]
		if name == detailArg && t.answersData() {
			var d string
			if json.Unmarshal(v, &d) != nil || (d != "concise" && d != "full") {
				problems = append(problems, `detail: must be "concise" or "full"`)
			} else {
				detail = d
			}
			continue
		}
		if !slices.Contains(t.Args, name) {
			problems = append(problems, fmt.Sprintf("%s: not an argument of %s; it takes %s", name, t.Name, takes(t)))
			continue
		}
		p, f := findArg(rt, name)
		if f != nil {
			body[name] = v
			continue
		}
		vals, err := scalars(v, p.Repeatable)
		if err != nil {
			problems = append(problems, name+": "+err.Error())
			continue
		}
		if p.In == "path" {
			ir.Path[name] = vals[0]
		} else {
			ir.Query[name] = vals
		}
	}
	for _, p := range rt.Params {
		if p.In == "path" && ir.Path[p.Name] == "" && slices.Contains(t.Args, p.Name) {
			problems = append(problems, p.Name+": required")
		}
	}
	if rt.Body != nil {
		ir.Body, _ = json.Marshal(body) // a map of raw messages always marshals
	}
	return ir, detail, problems
}

// request is request(t, rt, raw) read without maps or a decoder, into s's tree and maps (the
// request is valid until s is reset), for arguments that run the route as they are: ok is false
// for anything else (a route with a body; arguments that are not one object of distinct members
// in valid UTF-8; a member that is not an argument of t or detail; a value that is not a plain
// string, number or boolean, or an array of them for a repeatable parameter; a required path
// parameter missing), which request reads, and words the problems of.
func (s *shaper) request(t Tool, rt api.Route, raw json.RawMessage) (ir api.InternalRequest, detail string, ok bool) {
	if rt.Body != nil || !utf8.Valid(raw) {
		return ir, "", false
	}
	s.reset()
	if s.path == nil {
		s.path, s.query = map[string]string{}, url.Values{}
	}
	ir = api.InternalRequest{Route: rt.Name, Path: s.path, Query: s.query}
	detail = "concise"
	if b := bytes.TrimSpace(raw); len(b) == 0 || string(b) == "null" {
		return ir, detail, s.pathComplete(t, rt)
	}
	root, end, ok := s.parse(raw, skipSpace(raw, 0))
	if !ok || skipSpace(raw, end) != len(raw) || s.nodes[root].kind != '{' {
		return ir, "", false
	}
	for c := s.nodes[root].first; c >= 0; c = s.nodes[c].next {
		n := &s.nodes[c]
		for o := s.nodes[root].first; o != c; o = s.nodes[o].next {
			if bytes.Equal(s.nodes[o].key, n.key) {
				return ir, "", false // repeated: the map keeps the last
			}
		}
		if string(n.key) == detailArg && t.answersData() {
			switch string(n.val) {
			case `"concise"`, `"full"`:
				detail = string(n.val[1 : len(n.val)-1])
				continue
			}
			return ir, "", false
		}
		i := slices.IndexFunc(t.Args, func(a string) bool { return a == string(n.key) })
		if i < 0 {
			return ir, "", false
		}
		p, _ := findArg(rt, t.Args[i])
		if p == nil {
			return ir, "", false
		}
		start := len(s.vals)
		if n.kind == '[' && p.Repeatable {
			for e := n.first; e >= 0; e = s.nodes[e].next {
				v, ok := plainScalar(&s.nodes[e])
				if !ok {
					return ir, "", false
				}
				s.vals = append(s.vals, v)
			}
		} else {
			v, ok := plainScalar(n)
			if !ok {
				return ir, "", false
			}
			s.vals = append(s.vals, v)
		}
		vals := s.vals[start:len(s.vals):len(s.vals)]
		if vals == nil {
			vals = []string{} // an empty array, as the decoder reads it, whether or not s.vals was used before
		}
		if p.In == "path" {
			if len(vals) == 0 {
				return ir, "", false
			}
			ir.Path[p.Name] = vals[0]
		} else {
			ir.Query[p.Name] = vals
		}
	}
	return ir, detail, s.pathComplete(t, rt)
}

// pathComplete reports whether the request s reads has every path parameter of rt that t takes.
func (s *shaper) pathComplete(t Tool, rt api.Route) bool {
	for _, p := range rt.Params {
		if p.In == "path" && s.path[p.Name] == "" && slices.Contains(t.Args, p.Name) {
			return false
		}
	}
	return true
}

// plainScalar is the query value of n when scalars reads it without a decoder: a string with no
// escape, a number, true or false.
func plainScalar(n *node) (string, bool) {
	switch {
	case n.kind == '"' && !n.escaped:
		return string(n.val[1 : len(n.val)-1]), true
	case n.kind == 'n' && string(n.val) != "null":
		return string(n.val), true
	}
	return "", false
}

// takes lists a tool's arguments for an error message.
func takes(t Tool) string {
	names := slices.Clone(t.Args)
	if t.answersData() {
		names = append(names, detailArg)
	}
	if len(names) == 0 {
		return "no arguments"
	}
	return strings.Join(names, ", ")
}

// scalars is v as query values: a string, number or boolean, or (repeatable) an array of them.
func scalars(v json.RawMessage, repeatable bool) ([]string, error) {
	// A plain number, string or boolean is read as the decoder below reads it, without one.
	if b := bytes.TrimSpace(v); len(b) > 0 {
		switch c := b[0]; {
		case c == '"' && len(b) >= 2 && b[len(b)-1] == '"' && !bytes.ContainsAny(b[1:len(b)-1], "\\\"") && utf8.Valid(b) && !hasControl(b):
			return []string{string(b[1 : len(b)-1])}, nil
		case c == '-' || '0' <= c && c <= '9':
			if end, ok := scanScalar(b, 0); ok && end == len(b) {
				return []string{string(b)}, nil
			}
		case string(b) == "true" || string(b) == "false":
			return []string{string(b)}, nil
		}
	}
	return scalarsDecoded(v, repeatable)
}

// scalarsDecoded is scalars read with a decoder.
func scalarsDecoded(v json.RawMessage, repeatable bool) ([]string, error) {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, errors.New("not valid JSON")
	}
	one := func(x any) (string, bool) {
		switch y := x.(type) {
		case string:
			return y, true
		case json.Number:
			return y.String(), true
		case bool:
			if y {
				return "true", true
			}
			return "false", true
		}
		return "", false
	}
	if arr, ok := x.([]any); ok && repeatable {
		out := make([]string, 0, len(arr))
		for _, e := range arr {
			s, ok := one(e)
			if !ok {
				return nil, errors.New("every item must be a string, number or boolean")
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, ok := one(x)
	if !ok {
		if repeatable {
			return nil, errors.New("must be a value or an array of values")
		}
		return nil, errors.New("must be a string, number or boolean")
	}
	return []string{s}, nil
}

// argumentError is the tool error for arguments that do not fit the tool.
func argumentError(t Tool, problems []string) *mcp.CallToolResult {
	msg := "Bad arguments for " + t.Name + ": " + strings.Join(problems, "; ") + ". Nothing was run or billed."
	return errorResult(map[string]any{"reason": "invalid_arguments", "problems": problems, "message": msg}, msg)
}

// errorResult is an isError result carrying structured and a text copy.
func errorResult(structured map[string]any, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, StructuredContent: structured, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// hasControl reports whether b holds a byte JSON strings may not hold unescaped.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
