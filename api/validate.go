package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/internal/problem"
)

// validateParams checks the route's path, query and header parameters, applies defaults and the
// demo page cap, and returns every problem at once (422, FastAPI shape; at most problem.MaxFieldErrors
// items).
func (c *Call) validateParams() *Error {
	c.vals = c.valsArr[:0]
	var errs fieldErrors
	for i := range c.Route.Params {
		p := &c.Route.Params[i]
		var raw [][]byte
		switch p.In {
		case "path":
			if v, ok := c.Ctx.UserValue(p.Name).(string); ok {
				raw = [][]byte{[]byte(v)}
			}
		case "query":
			raw = c.Ctx.QueryArgs().PeekMulti(p.Name)
		case "header":
			if v := c.Ctx.Request.Header.Peek(p.Name); len(v) > 0 {
				raw = [][]byte{v}
			}
		}
		name := p.Name
		if p.AliasOf != "" {
			if len(raw) == 0 {
				continue
			}
			if len(c.Ctx.QueryArgs().PeekMulti(p.AliasOf)) > 0 {
				errs.add(problem.ValueError(string(raw[0]), fmt.Sprintf("send %s or %s, not both (%s is the deprecated name of %s)", p.AliasOf, p.Name, p.Name, p.AliasOf), p.In, p.Name))
				continue
			}
			name = p.AliasOf
			c.Ctx.Response.Header.Set("Deprecation", "true")
			c.Ctx.Response.Header.Set("Link", `</openapi.json>; rel="deprecation"`)
			if sunset, ok := p.sunsetTime(); ok {
				c.Ctx.Response.Header.Set("Sunset", sunset.Format(http.TimeFormat)) // an HTTP-date: "... GMT"
				if !c.Now().Before(sunset) {
					fe := problem.ValueError(string(raw[0]), fmt.Sprintf("%s was retired at its sunset, %s: send %s=%s instead (%s was its deprecated name)",
						p.Name, sunset.Format(http.TimeFormat), p.AliasOf, string(raw[0]), p.Name), p.In, p.Name)
					fe.Ctx["sunset"] = p.Sunset
					fe.Ctx["replacement"] = p.AliasOf
					errs.add(fe)
					continue
				}
			}
		}
		if len(raw) == 0 {
			if p.Required {
				errs.add(problem.Missing(p.In, p.Name))
			} else if p.Default != nil {
				c.vals.set(name, c.defaultFor(p))
			}
			continue
		}
		if len(raw) > 1 && !p.Repeatable {
			errs.add(problem.FieldError{Type: "value_error", Loc: problem.Loc(p.In, p.Name), Msg: fmt.Sprintf("Value error, %s takes one value; it was sent %d times", p.Name, len(raw)),
				Input: strs(raw, 10), Ctx: map[string]any{"error": "repeated single-value parameter"}})
			continue
		}
		if p.Repeatable {
			if m := p.maxItems(); len(raw) > m {
				errs.add(problem.TooLong(problem.Loc(p.In, p.Name), strs(raw, 10), len(raw), m))
				continue
			}
			vals := make([]string, 0, len(raw))
			for j, r := range raw {
				s := enumValue(p, string(r))
				if len(p.Enum) > 0 && !slices.Contains(p.Enum, s) {
					if errs.full() {
						errs.skip()
					} else {
						errs.add(problem.EnumError(s, p.Enum, p.In, p.Name, j))
					}
					continue
				}
				vals = append(vals, s)
			}
			c.vals.set(name, vals)
			continue
		}
		v, fe := c.parseOne(p, string(raw[0]))
		if fe != nil {
			errs.add(*fe)
			continue
		}
		c.vals.set(name, v)
	}
	c.unknownQuery(&errs)
	return errs.err()
}

// unknownQuery adds an extra_forbidden item for each query parameter name the route does not
// declare: a misspelt filter (industy=software) would otherwise be dropped in silence and answer,
// and bill, the unfiltered page. The first item lists the parameters the route takes
// (ctx.allowed). A call with only declared names allocates nothing here.
func (c *Call) unknownQuery(errs *fieldErrors) {
	var seen []string
	for k, v := range c.Ctx.QueryArgs().All() {
		if c.Route.declaresQuery(k) || slices.Contains(seen, string(k)) {
			continue
		}
		if errs.full() {
			errs.skip()
			continue
		}
		name := problem.Clip(string(k), 64)
		seen = append(seen, string(k))
		fe := problem.FieldError{Type: "extra_forbidden", Loc: problem.Loc("query", name), Input: problem.Clip(string(v), 64), Ctx: map[string]any{},
			Msg: "Extra inputs are not permitted: this route takes no query parameter " + strconv.Quote(name)}
		if len(seen) == 1 {
			allowed := []string{}
			for i := range c.Route.Params {
				if p := &c.Route.Params[i]; p.In == "query" {
					allowed = append(allowed, p.Name)
				}
			}
			fe.Ctx["allowed"] = allowed
			if len(allowed) == 0 {
				fe.Msg += "; it takes none"
			} else {
				fe.Msg += "; it takes " + strings.Join(allowed, ", ")
			}
		}
		errs.add(fe)
	}
}

// declaresQuery reports whether the route has a query parameter named name.
func (rt *Route) declaresQuery(name []byte) bool {
	for i := range rt.Params {
		if p := &rt.Params[i]; p.In == "query" && p.Name == string(name) {
			return true
		}
	}
	return false
}

// strs is the first n of raw as strings (the input of an item about all of them).
func strs(raw [][]byte, n int) []string {
	out := make([]string, 0, min(len(raw), n))
	for _, r := range raw[:min(len(raw), n)] {
		out = append(out, string(r))
	}
	return out
}

// loc is the location of an item about parameter p.
func (p *Param) loc() []any { return problem.Loc(p.In, p.Name) }

// checkString applies a string parameter's length and ASCII bounds.
func checkString(p *Param, s string) *problem.FieldError {
	if p.MinLength > 0 && len(s) < p.MinLength {
		return &problem.FieldError{Type: "string_too_short", Loc: p.loc(), Msg: fmt.Sprintf("String should have at least %d characters", p.MinLength), Input: s,
			Ctx: map[string]any{"min_length": p.MinLength}}
	}
	if p.MaxLength > 0 && len(s) > p.MaxLength {
		return &problem.FieldError{Type: "string_too_long", Loc: p.loc(), Msg: fmt.Sprintf("String should have at most %d characters", p.MaxLength), Input: s[:p.MaxLength] + "...",
			Ctx: map[string]any{"max_length": p.MaxLength}}
	}
	if p.ASCII {
		for i := 0; i < len(s); i++ {
			if s[i] < ' ' || s[i] > '~' {
				return &problem.FieldError{Type: "string_pattern_mismatch", Loc: p.loc(), Msg: "String should match pattern '" + PrintableASCII + "' (printable ASCII: space to ~)",
					Input: strconv.QuoteToASCII(s), Ctx: map[string]any{"pattern": PrintableASCII}}
			}
		}
	}
	return nil
}

func (c *Call) maxFor(p *Param) *int64 {
	if (p.Name == "limit" || p.Rows) && p.Max != nil && c.Caller.Demo {
		m := int64(PageCap(c.Caller, int(*p.Max)))
		return &m
	}
	return p.Max
}

func (c *Call) defaultFor(p *Param) any {
	if d, ok := p.Default.(int64); ok {
		if m := c.maxFor(p); m != nil && d > *m {
			return *m
		}
	}
	return p.Default
}

// parseOne parses the single value s of parameter p. A value that parses allocates nothing here
// but its boxing: the location of an item is built only for an error.
func (c *Call) parseOne(p *Param, s string) (any, *problem.FieldError) {
	switch p.Type {
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, &problem.FieldError{Type: "int_parsing", Loc: p.loc(), Msg: "Input should be a valid integer, unable to parse string as an integer", Input: s, Ctx: map[string]any{}}
		}
		if p.Min != nil && n < *p.Min {
			return nil, &problem.FieldError{Type: "greater_than_equal", Loc: p.loc(), Msg: fmt.Sprintf("Input should be greater than or equal to %d", *p.Min), Input: s, Ctx: map[string]any{"ge": *p.Min}}
		}
		if m := c.maxFor(p); m != nil && n > *m {
			return nil, &problem.FieldError{Type: "less_than_equal", Loc: p.loc(), Msg: fmt.Sprintf("Input should be less than or equal to %d", *m), Input: s, Ctx: map[string]any{"le": *m}}
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, &problem.FieldError{Type: "float_parsing", Loc: p.loc(), Msg: "Input should be a valid number, unable to parse string as a number", Input: s, Ctx: map[string]any{}}
		}
		if p.Min != nil && f < float64(*p.Min) {
			return nil, &problem.FieldError{Type: "greater_than_equal", Loc: p.loc(), Msg: fmt.Sprintf("Input should be greater than or equal to %d", *p.Min), Input: s, Ctx: map[string]any{"ge": *p.Min}}
		}
		if p.Max != nil && f > float64(*p.Max) {
			return nil, &problem.FieldError{Type: "less_than_equal", Loc: p.loc(), Msg: fmt.Sprintf("Input should be less than or equal to %d", *p.Max), Input: s, Ctx: map[string]any{"le": *p.Max}}
		}
		return f, nil
	case "boolean":
		switch strings.ToLower(s) {
		case "true", "1", "yes", "on", "t", "y":
			return true, nil
		case "false", "0", "no", "off", "f", "n":
			return false, nil
		}
		return nil, &problem.FieldError{Type: "bool_parsing", Loc: p.loc(), Msg: "Input should be a valid boolean, unable to interpret input", Input: s, Ctx: map[string]any{}}
	case "date-time":
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC(), nil
			}
		}
		return nil, &problem.FieldError{Type: "datetime_parsing", Loc: p.loc(), Msg: "Input should be a valid datetime (ISO 8601, e.g. 2026-01-31T00:00:00Z)", Input: s, Ctx: map[string]any{}}
	default:
		if fe := checkString(p, s); fe != nil {
			return nil, fe
		}
		s = enumValue(p, s)
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, s) {
			fe := problem.EnumError(s, p.Enum, p.In, p.Name)
			return nil, &fe
		}
		return s, nil
	}
}

// validateBody checks the JSON body against the route's Body: malformed JSON, a non-object,
// missing required fields, refused or unknown fields, basic types and arrays longer than their
// MaxItems are all 422 (at most problem.MaxFieldErrors items).
func (c *Call) validateBody() *Error {
	b := c.Route.Body
	raw := bytes.TrimSpace(c.Ctx.Request.Body())
	if len(raw) == 0 {
		if b.Required {
			return Invalid(problem.Missing("body"))
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		var any0 any
		if json.Unmarshal(raw, &any0) == nil { // valid JSON, not an object
			return Invalid(problem.FieldError{Type: "model_attributes_type", Loc: problem.Loc("body"), Msg: "Input should be a valid dictionary or object to extract fields from", Input: any0})
		}
		pos := int64(0)
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			pos = se.Offset
		}
		return Invalid(problem.FieldError{Type: "json_invalid", Loc: problem.Loc("body", pos), Msg: "JSON decode error", Input: map[string]any{}, Ctx: map[string]any{"error": err.Error()}})
	}
	if obj == nil {
		return Invalid(problem.FieldError{Type: "model_attributes_type", Loc: problem.Loc("body"), Msg: "Input should be a valid dictionary or object to extract fields from", Input: nil})
	}
	var errs fieldErrors
	known := map[string]*Field{}
	for i := range b.Fields {
		known[b.Fields[i].Name] = &b.Fields[i]
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		f := known[k]
		if f == nil && b.Open {
			continue
		}
		if errs.full() {
			errs.skip()
			continue
		}
		if f == nil || f.Forbidden {
			fe := problem.FieldError{Type: "extra_forbidden", Loc: problem.Loc("body", k), Msg: "Extra inputs are not permitted", Input: echo(obj[k])}
			if f != nil {
				fe.Msg = "Extra inputs are not permitted: " + f.Description
			}
			errs.add(fe)
			continue
		}
		before := len(errs.items)
		checkType(&errs, f, obj[k], problem.Loc("body", k))
		if f.Sensitive { // a secret is never echoed, even when it is of the wrong type
			for i := before; i < len(errs.items); i++ {
				errs.items[i].Input = nil
			}
		}
	}
	for i := range b.Fields {
		if f := &b.Fields[i]; f.Required {
			if _, ok := obj[f.Name]; !ok {
				errs.add(problem.Missing("body", f.Name))
			}
		}
	}
	if e := errs.err(); e != nil {
		return e
	}
	c.body = raw
	return nil
}

// maxEcho is the most bytes of a body value a 422 echoes decoded; a longer one is echoed as its
// first maxEcho characters of JSON text, clipped. A body value is never decoded whole just to be
// echoed or to learn its type: decoding a 1 MiB array of empty objects into Go values took 44 MiB.
const maxEcho = 1024

// echo is raw as a 422 echoes it (see maxEcho).
func echo(raw json.RawMessage) any {
	if len(raw) <= maxEcho {
		var v any
		_ = json.Unmarshal(raw, &v)
		return v
	}
	return problem.Clip(string(raw), maxEcho)
}

// kind is the JSON type of raw (a valid JSON value) from its first byte: '"' string, '{'
// object, '[' array, 't' or 'f' boolean, 'n' null, '0' number.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	switch c := raw[0]; c {
	case '"', '{', '[', 'n':
		return c
	case 't', 'f':
		return 't'
	}
	return '0'
}

// arrayItems counts the items of raw, a valid JSON array, without decoding them, and returns the
// first keep of them.
func arrayItems(raw json.RawMessage, keep int) (first []json.RawMessage, n int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return nil, 0
	}
	depth, inString, start := 0, false, -1
	for i := 1; i < len(raw)-1; i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case ',':
			if depth == 0 {
				if start >= 0 && len(first) < keep {
					first = append(first, bytes.TrimSpace(raw[start:i]))
				}
				start = -1
				continue
			}
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		}
		if start < 0 && depth >= 0 {
			if start = i; c == ']' || c == '}' {
				start = -1 // cannot start an item
			} else {
				n++
			}
		}
	}
	if start >= 0 && len(first) < keep {
		first = append(first, bytes.TrimSpace(raw[start:len(raw)-1]))
	}
	return first, n
}

// checkType adds to errs what is wrong with the value raw of field f. Only what the check needs
// is decoded: a scalar, the items of an array within its bound.
func checkType(errs *fieldErrors, f *Field, raw json.RawMessage, loc []any) {
	k := kind(raw)
	bad := func(t, msg string) {
		errs.add(problem.FieldError{Type: t, Loc: loc, Msg: msg, Input: echo(raw), Ctx: map[string]any{}})
	}
	switch f.Type {
	case "string":
		var s string
		if k != '"' || json.Unmarshal(raw, &s) != nil {
			bad("string_type", "Input should be a valid string")
		} else if len(f.Enum) > 0 && !slices.Contains(f.Enum, s) {
			errs.add(problem.EnumError(problem.Clip(s, maxEcho), f.Enum, loc...))
		}
	case "integer":
		var n float64
		if k != '0' || json.Unmarshal(raw, &n) != nil || n != float64(int64(n)) {
			bad("int_type", "Input should be a valid integer")
		}
	case "number":
		var n float64
		if k != '0' || json.Unmarshal(raw, &n) != nil {
			bad("float_type", "Input should be a valid number")
		}
	case "boolean":
		if k != 't' {
			bad("bool_type", "Input should be a valid boolean")
		}
	case "object":
		if k != '{' {
			bad("dict_type", "Input should be a valid dictionary")
		}
	case "array":
		if k != '[' {
			bad("list_type", "Input should be a valid list")
			return
		}
		if first, n := arrayItems(raw, 10); n > f.maxItems() {
			shown := make([]any, 0, len(first))
			for _, it := range first {
				shown = append(shown, echo(it))
			}
			errs.add(problem.TooLong(loc, shown, n, f.maxItems()))
			return
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			bad("list_type", "Input should be a valid list")
			return
		}
		if f.Items != "string" {
			return
		}
		for i, it := range items {
			var s string
			isString := false
			if plain := len(it) >= 2 && it[0] == '"' && bytes.IndexByte(it, '\\') < 0; plain {
				// No escapes: the text between the quotes is the string, compared without a copy.
				v := it[1 : len(it)-1]
				if len(f.Enum) == 0 || slices.ContainsFunc(f.Enum, func(e string) bool { return string(v) == e }) {
					continue
				}
				s, isString = string(v), true
			} else {
				isString = kind(it) == '"' && json.Unmarshal(it, &s) == nil
				if isString && (len(f.Enum) == 0 || slices.Contains(f.Enum, s)) {
					continue
				}
			}
			if errs.full() { // counted, not built
				errs.skip()
				continue
			}
			sub := append(append([]any{}, loc...), i)
			if !isString {
				errs.add(problem.FieldError{Type: "string_type", Loc: sub, Msg: "Input should be a valid string", Input: echo(it), Ctx: map[string]any{}})
				continue
			}
			errs.add(problem.EnumError(problem.Clip(s, maxEcho), f.Enum, sub...))
		}
	}
}

// enumValue is s, or the value of p's enum that s is with its '+' signs decoded as spaces: a
// query string sent unencoded (headcount_band=5001+) reaches the server as "5001 ", and answering
// 422 for the value the caller typed helps nobody. Only a query parameter, only when s itself is
// not a value and the '+' spelling is.
func enumValue(p *Param, s string) string {
	if p.In != "query" || len(p.Enum) == 0 || !strings.Contains(s, " ") || slices.Contains(p.Enum, s) {
		return s
	}
	if plus := strings.ReplaceAll(s, " ", "+"); slices.Contains(p.Enum, plus) {
		return plus
	}
	return s
}
