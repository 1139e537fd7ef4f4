package account

import (
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
)

// changelogSchema is the answer of GET /v1/changelog: the schema changes the api package records
// at start (oltp.SchemaChange), newest first.
func changelogSchema() map[string]any {
	return api.Object(map[string]any{"changes": map[string]any{"type": "array", "items": api.Object(map[string]any{
		"id": api.Type("integer"), "recorded_at": api.DateTime(), "api_version": api.Type("string"), "doc_hash": api.Type("string"), "endpoints_changed": api.ArrayOf("string")})}})
}

func (h *handlers) changelog(c *api.Call) (int, error) {
	changes, err := oltp.SchemaChanges(c.Context(), h.d.Pool, 100)
	if err != nil {
		return 0, api.Internal(err)
	}
	if changes == nil {
		changes = []oltp.SchemaChange{}
	}
	return 0, c.JSON(200, map[string]any{"changes": changes})
}
