package api

// JSON Schema fragments for the OpenAPI document, as the plain maps it is marshalled from. Handler
// packages build their routes' Response schemas with them.
//
// An Object lists every property it declares in `required` and forbids any other
// (additionalProperties false): the document says exactly what the server answers, so a
// generated client types a field as optional only where the answer may leave it out. A property
// that is genuinely absent from some answers (opt-in via include=/expand=, absent on one variant)
// is wrapped in Optional. A nullable field that is always present (null or a value) is required.

import "slices"

// optionalMark is the key Optional sets on a property schema and Object removes: it never
// reaches the document.
const optionalMark = "\x00optional"

// Type is a schema of one JSON type: string, integer, number, boolean, object or array.
func Type(t string) map[string]any { return map[string]any{"type": t} }

// DateTime is an RFC 3339 date-time string.
func DateTime() map[string]any { return map[string]any{"type": "string", "format": "date-time"} }

// ArrayOf is an array whose items are of the JSON type item.
func ArrayOf(item string) map[string]any {
	return map[string]any{"type": "array", "items": Type(item)}
}

// Enum is a string taking one of vals.
func Enum(vals ...string) map[string]any { return map[string]any{"type": "string", "enum": vals} }

// Nullable is s that may also be null (null joins its enum too: an enum lists every value).
func Nullable(s map[string]any) map[string]any {
	out := copySchema(s)
	out["type"] = []any{s["type"], "null"}
	switch e := s["enum"].(type) {
	case []string:
		vals := make([]any, 0, len(e)+1)
		for _, v := range e {
			vals = append(vals, v)
		}
		out["enum"] = append(vals, nil)
	case []any:
		out["enum"] = append(append([]any{}, e...), nil)
	}
	return out
}

// Optional marks s, a property schema of an Object, as a member some answers leave out: Object
// keeps it out of `required`. Outside an Object's properties it has no meaning.
func Optional(s map[string]any) map[string]any {
	out := copySchema(s)
	out[optionalMark] = true
	return out
}

// Object is an object with props: every one of them always answered (required) unless wrapped in
// Optional, and no other (additionalProperties false). A map keyed by data (ids, names) is not an
// Object: it is {"type": "object", "additionalProperties": <value schema>}.
func Object(props map[string]any) map[string]any {
	clean := make(map[string]any, len(props))
	req := make([]string, 0, len(props))
	for k, v := range props {
		if ps, ok := v.(map[string]any); ok && ps[optionalMark] == true {
			ps = copySchema(ps)
			delete(ps, optionalMark)
			clean[k] = ps
			continue
		}
		clean[k] = v
		req = append(req, k)
	}
	slices.Sort(req)
	return map[string]any{"type": "object", "properties": clean, "required": req, "additionalProperties": false}
}

// Extend is obj (an Object) with more properties, each required unless wrapped in Optional, as
// Object makes them; the members obj leaves out of `required` stay out. Adding a property to an
// Object's map in place would leave it out of `required`: extend with this instead.
func Extend(obj map[string]any, more map[string]any) map[string]any {
	props, _ := obj["properties"].(map[string]any)
	req, _ := obj["required"].([]string)
	all := make(map[string]any, len(props)+len(more))
	for k, v := range props {
		if !slices.Contains(req, k) {
			v = Optional(v.(map[string]any))
		}
		all[k] = v
	}
	for k, v := range more {
		all[k] = v
	}
	out := Object(all)
	for k, v := range obj {
		if k != "properties" && k != "required" {
			out[k] = v
		}
	}
	return out
}

// Closed is Object (kept for the callers written when Object did not require its members).
func Closed(props map[string]any) map[string]any { return Object(props) }

// Ref points to a schema of the document's components (QuotaDetail, ...).
func Ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func copySchema(s map[string]any) map[string]any {
	out := make(map[string]any, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	return out
}
