package api

// Conflict is the detail of a 409 that refuses what a call asked for: a reason (one of the
// route's, ConflictSchema), a message saying what to do, and the route. Status and WatchIDs are
// set only by the refusals that name them.
type Conflict struct {
	Reason   string  `json:"reason"`
	Message  string  `json:"message"`
	Endpoint string  `json:"endpoint"`
	Status   string  `json:"status,omitempty"`    // the delivery's status (a replay refused)
	WatchIDs []int64 `json:"watch_ids,omitempty"` // the live watches delivering to an endpoint (endpoint_in_use)
}

// ConflictSchema is the body of a 409 whose detail is a Conflict with one of reasons and the
// members of extra (status, watch_ids: each declared by the route that answers it), or, given
// others (the schemas of other details, such as BudgetDetailSchema), one of that detail and the
// others.
func ConflictSchema(reasons []string, extra map[string]any, others ...map[string]any) map[string]any {
	d := map[string]any{"reason": Enum(reasons...), "message": Type("string"), "endpoint": Type("string")}
	for k, v := range extra {
		d[k] = v
	}
	if len(others) == 0 {
		return Object(map[string]any{"detail": Object(d)})
	}
	one := []any{Object(d)}
	for _, o := range others {
		one = append(one, o)
	}
	return Object(map[string]any{"detail": map[string]any{"oneOf": one}})
}
