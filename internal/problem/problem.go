// Package problem owns the items of a 422 answer in the FastAPI shape (FieldError) and the
// functions that build and bound them: Loc, Missing, ValueError, EnumError, TooLong, Clip, and
// Bound, which shapes the list a 422 carries (at most MaxFieldErrors items; a long vocabulary
// written once). The API writes them; the read side (read/criteria) and anything else that
// validates a caller's input builds them without linking the HTTP server.
//
// It is a leaf: it must not import anything of the product, serve HTTP (no fasthttp) or know
// about statuses, callers or routes; the 422 answer itself (api.Invalid) stays in package api.
package problem

import (
	"fmt"
	"strings"
)

// FieldError is one item of a 422 detail, in the FastAPI shape.
type FieldError struct {
	Type  string         `json:"type"`
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx"`
}

// MaxFieldErrors is the most items the detail of a 422 lists. When a call has more problems, the
// last item (type too_many_errors) gives the number of the others, ctx.omitted; validation stops
// building items past it, so a body of many bad values costs no more than one with a few.
const MaxFieldErrors = 50

// LongVocab is the length (bytes) from which a list of expected values is written once per 422.
const LongVocab = 80

// Bound shapes the detail of a 422: every ctx an object; at most MaxFieldErrors items, the last
// of which counts the rest when there are more (omitted of them were not even built); and a long
// list of expected values (a vocabulary) written once: a later item expecting the same list
// points to the first (ctx.expected_in, its index) instead of repeating it in msg and ctx.
func Bound(items []FieldError, omitted int) []FieldError {
	if n := len(items) + omitted; n > MaxFieldErrors {
		keep := MaxFieldErrors - 1
		rest := n - keep
		items = append(items[:keep:keep], FieldError{Type: "too_many_errors", Loc: []any{}, Input: nil,
			Msg: fmt.Sprintf("%d more validation errors are not listed (a 422 lists at most %d): fix these and call again", rest, MaxFieldErrors),
			Ctx: map[string]any{"omitted": rest, "max_items": MaxFieldErrors}})
	}
	first := map[string]int{}
	for i := range items {
		if items[i].Ctx == nil {
			items[i].Ctx = map[string]any{}
		}
		exp, ok := items[i].Ctx["expected"]
		if !ok {
			continue
		}
		forms := vocabForms(exp)
		if len(forms) == 0 || len(forms[0]) < LongVocab {
			continue
		}
		j, seen := first[forms[0]]
		if !seen {
			first[forms[0]] = i
			continue
		}
		ref := fmt.Sprintf("one of the values listed in item %d", j)
		for _, f := range forms {
			if strings.Contains(items[i].Msg, f) {
				items[i].Msg = strings.Replace(items[i].Msg, f, ref, 1)
				break
			}
		}
		ctx := make(map[string]any, len(items[i].Ctx))
		for k, v := range items[i].Ctx {
			if k != "expected" {
				ctx[k] = v
			}
		}
		ctx["expected_in"] = j
		items[i].Ctx = ctx
	}
	return items
}

// vocabForms are the texts a list of expected values appears as in a msg: as is (a string), or
// joined with ", " and as enumMsg words it.
func vocabForms(exp any) []string {
	var vals []string
	switch v := exp.(type) {
	case string:
		return []string{v}
	case []string:
		vals = v
	case []any:
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil
			}
			vals = append(vals, s)
		}
	default:
		return nil
	}
	return []string{strings.Join(vals, ", "), enumMsg(vals)}
}

// Loc builds a loc array: the first element is body, query, path or header.
func Loc(parts ...any) []any { return parts }

// Missing is the FastAPI "missing" item.
func Missing(loc ...any) FieldError {
	return FieldError{Type: "missing", Loc: loc, Msg: "Field required", Input: nil}
}

// ValueError is a FastAPI "value_error" item with a message saying what to change.
func ValueError(input any, msg string, loc ...any) FieldError {
	return FieldError{Type: "value_error", Loc: loc, Msg: "Value error, " + msg, Input: input, Ctx: map[string]any{"error": msg}}
}

func enumMsg(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// EnumError is the FastAPI "enum" item.
func EnumError(input any, vals []string, loc ...any) FieldError {
	exp := enumMsg(vals)
	return FieldError{Type: "enum", Loc: loc, Msg: "Input should be " + exp, Input: input, Ctx: map[string]any{"expected": exp}}
}

// TooLong is the FastAPI too_long item of a list of n values, more than max (input: the first
// few, or nil to not echo the list).
func TooLong(loc []any, input any, n, max int) FieldError {
	return FieldError{Type: "too_long", Loc: loc, Msg: fmt.Sprintf("List should have at most %d items after validation, not %d", max, n),
		Input: input, Ctx: map[string]any{"field_type": "List", "max_length": max, "actual_length": n}}
}

// Clip shortens a caller's string echoed in an answer (a 422's input or loc, a 404's path) to n
// characters, marked with "…" when cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
