package api

// JSON Schema fragments for the OpenAPI document, as the plain maps it is marshalled from. Handler
// packages build their routes' Response schemas with them.

import "slices"

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

// Nullable is s that may also be null.
func Nullable(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []any{s["type"], "null"}
	return out
}

// Object is an object with props.
func Object(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

// Closed is an object schema of props, every one of them always answered (required) and no
// other (additionalProperties false).
func Closed(props map[string]any) map[string]any {
	s := Object(props)
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	slices.Sort(req)
	s["required"] = req
	s["additionalProperties"] = false
	return s
}

// Ref points to a schema of the document's components (QuotaDetail, ...).
func Ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
