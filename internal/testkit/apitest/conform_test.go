package apitest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The strict reading of the document: what each answer below must and must not be told.
func TestConformsReadsTheDocumentStrictly(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"components": {"schemas": {
		"Row": {"type": "object", "properties": {"id": {"type": "integer"}, "note": {"type": ["string", "null"]}, "cursor": {"type": "string"},
		        "kind": {"type": ["string", "null"], "enum": ["a", "b"]}},
		        "required": ["id", "note"]},
		"Page": {"type": "object", "properties": {"rows": {"type": "array", "items": {"$ref": "#/components/schemas/Row"}},
		         "by_id": {"type": "object", "additionalProperties": {"type": "integer"}}, "payload": {"type": "object"},
		         "either": {"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
		                              {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}},
		         "required": ["rows", "by_id", "payload", "either"]}}}}`), &doc))
	page := map[string]any{"$ref": "#/components/schemas/Page"}
	for _, c := range []struct {
		body     string
		problems int
	}{
		{`{"rows": [{"id": 1, "note": null}, {"id": 2, "note": "x", "cursor": "c"}], "by_id": {"7": 1}, "payload": {"any": {"thing": 1}}, "either": {"a": 1}}`, 0},
		{`{"rows": [{"id": 1}], "by_id": {}, "payload": {}, "either": {"b": 2}}`, 1},                           // a required member (nullable) missing
		{`{"rows": [{"id": 1, "note": null, "extra": 1}], "by_id": {}, "payload": {}, "either": {"a": 1}}`, 1}, // undeclared, though the schema does not say additionalProperties
		{`{"rows": [], "by_id": {"7": "x"}, "payload": {}, "either": {"a": 1}, "more": true}`, 2},              // a map value of the wrong type; an undeclared top member
		{`{"rows": [], "by_id": {}, "payload": {}, "either": {"a": 1, "b": 2}}`, 1},                            // both alternatives fail (each closed): none matches
		{`{"rows": [], "by_id": {}, "payload": {}}`, 1},                                                        // either missing
		{`{"rows": [{"id": 1, "note": null, "kind": "a"}], "by_id": {}, "payload": {}, "either": {"a": 1}}`, 0},
		{`{"rows": [{"id": 1, "note": null, "kind": null}], "by_id": {}, "payload": {}, "either": {"a": 1}}`, 1}, // null is of the type, not of the enum
	} {
		var body any
		require.NoError(t, json.Unmarshal([]byte(c.body), &body))
		v := validator{doc: doc}
		v.check(page, body, "$")
		require.Len(t, v.problems, c.problems, "%s: %v", c.body, v.problems)
	}
}
