package apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Conforms requires r, an answer of the operation method pathTemplate (as the document names it,
// e.g. "/v1/watches/{watch_id}"), to be what the server's /openapi.json says that operation
// answers with r's status: the status is documented and the JSON body validates against its
// schema (types, nullability, required members, enums — null only where the enum lists it, as
// JSON Schema reads it —, ranges, item counts, oneOf and $ref).
// The document is read strictly: every member an object schema declares must be answered
// unless the schema leaves it out of required, and no undeclared member is allowed anywhere
// (an object schema with properties is closed whatever its additionalProperties says, unless
// that is a schema: a map keyed by data). Only an object schema declaring no properties at all
// (a free-form JSON value such as a delivery's payload) takes any member. A 204 must have no body.
func (s *Server) Conforms(tb testing.TB, method, pathTemplate string, r Response) {
	tb.Helper()
	doc := s.document(tb)
	op, _ := Dig(doc, "paths", pathTemplate, strings.ToLower(method)).(map[string]any)
	require.NotNil(tb, op, "%s %s is not in the document", method, pathTemplate)
	resp, _ := Dig(op, "responses", strconv.Itoa(r.Status)).(map[string]any)
	require.NotNil(tb, resp, "%s %s answered %d, not documented: %s", method, pathTemplate, r.Status, r.Body)
	schema, _ := Dig(resp, "content", "application/json", "schema").(map[string]any)
	if schema == nil {
		require.Empty(tb, r.Body, "%s %s %d documents no body", method, pathTemplate, r.Status)
		return
	}
	var body any
	require.NoError(tb, json.Unmarshal(r.Body, &body), "%s", r.Body)
	v := validator{doc: doc}
	v.check(schema, body, "$")
	require.Empty(tb, v.problems, "%s %s %d does not match its documented schema:\n%s\nbody: %s", method, pathTemplate, r.Status, strings.Join(v.problems, "\n"), r.Body)
}

// servedDocument is a server's /openapi.json, fetched and decoded the first time a test asks:
// the document a server serves does not change while it runs, and decoding it again for every
// answer checked was most of a conformance test's time under -race.
type servedDocument struct {
	once sync.Once
	doc  map[string]any
	err  error
}

// document is the server's /openapi.json, decoded.
func (s *Server) document(tb testing.TB) map[string]any {
	tb.Helper()
	s.doc.once.Do(func() {
		resp, err := http.Get(s.Base + "/openapi.json")
		if err != nil {
			s.doc.err = fmt.Errorf("cannot read /openapi.json: %w", err)
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		switch {
		case err != nil:
			s.doc.err = fmt.Errorf("cannot read /openapi.json: %w", err)
		case resp.StatusCode != http.StatusOK:
			s.doc.err = fmt.Errorf("/openapi.json answered %d: %s", resp.StatusCode, body)
		default:
			s.doc.err = json.Unmarshal(body, &s.doc.doc)
		}
	})
	require.NoError(tb, s.doc.err)
	return s.doc.doc
}

// Dig follows keys through nested JSON objects; nil when one is missing or not an object.
func Dig(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

type validator struct {
	doc      map[string]any
	problems []string
}

func (v *validator) fail(at, format string, args ...any) {
	v.problems = append(v.problems, at+": "+fmt.Sprintf(format, args...))
}

// check validates x against the JSON Schema subset the document uses.
func (v *validator) check(s map[string]any, x any, at string) {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		target, _ := Dig(v.doc, "components", "schemas", name).(map[string]any)
		if target == nil {
			v.fail(at, "unresolved $ref %s", ref)
			return
		}
		v.check(target, x, at)
		return
	}
	if alts, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, a := range alts {
			sub := validator{doc: v.doc}
			sub.check(a.(map[string]any), x, at)
			if len(sub.problems) == 0 {
				n++
			}
		}
		if n != 1 {
			v.fail(at, "matches %d of the oneOf alternatives, not exactly one", n)
		}
	}
	if t, ok := s["type"]; ok && !typeMatches(t, x) {
		v.fail(at, "%T is not of type %v", x, t)
		return
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return e == x }) {
		v.fail(at, "%v is not one of %v", x, enum)
	}
	switch x := x.(type) {
	case float64:
		if m, ok := s["minimum"].(float64); ok && x < m {
			v.fail(at, "%v below minimum %v", x, m)
		}
		if m, ok := s["maximum"].(float64); ok && x > m {
			v.fail(at, "%v above maximum %v", x, m)
		}
	case []any:
		if m, ok := s["maxItems"].(float64); ok && float64(len(x)) > m {
			v.fail(at, "%d items, at most %v", len(x), m)
		}
		if m, ok := s["minItems"].(float64); ok && float64(len(x)) < m {
			v.fail(at, "%d items, at least %v", len(x), m)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, it := range x {
				v.check(items, it, fmt.Sprintf("%s[%d]", at, i))
			}
		}
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asStrings(s["required"]) {
			if _, ok := x[r]; !ok {
				v.fail(at, "required member %q is missing", r)
			}
		}
		for k, val := range x {
			if ps, ok := props[k].(map[string]any); ok {
				v.check(ps, val, at+"."+k)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case map[string]any:
				v.check(ap, val, at+"."+k)
			default:
				if ap == false || props != nil {
					v.fail(at, "member %q is not declared", k)
				}
			}
		}
	}
}

func typeMatches(t, x any) bool {
	if list, ok := t.([]any); ok {
		return slices.ContainsFunc(list, func(e any) bool { return typeMatches(e, x) })
	}
	switch t {
	case "null":
		return x == nil
	case "string":
		_, ok := x.(string)
		return ok
	case "integer":
		f, ok := x.(float64)
		return ok && f == float64(int64(f))
	case "number":
		_, ok := x.(float64)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "object":
		_, ok := x.(map[string]any)
		return ok
	}
	return false
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
