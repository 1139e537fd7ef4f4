package deliveries

import (
	"fmt"
	"slices"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
	"github.com/planehq/hiringsignal/read/criteria"
)

// Bounds of GET /v1/webhook-deliveries.
const (
	DefaultLimit = 20
	PageMax      = 100
)

// statusDoc says what every status means, as the document states it.
const statusDoc = "pending: queued, sent at next_attempt_at (now when written, replayed or a test); " +
	"retrying: an attempt failed, the next is due at next_attempt_at; delivered: the endpoint answered 2xx (billed once, never again); " +
	"failed: attempts exhausted over about three days, the endpoint answered 410 Gone, or the endpoint is disabled (terminal; replayable, " +
	"a never-accepted one only within your plan's allowance and spend cap); " +
	"rate_limited: past the watch's max_fires_per_hour, dropped, never sent; " +
	"wall_blocked: past the plan's monthly delivered-changes allowance, never sent (under overflow queue it is queued: kept, and a replay sends it once " +
	"there is room within the plan); cap_blocked: the account was past its hard spend cap, never sent " +
	"(the last three are terminal and, but for a queued wall_blocked one, not replayable; they are kept 62 days)"

var replayDoc = fmt.Sprintf("Reopen a delivery of yours for the dispatcher's next tick (status pending, sent within seconds with the same body, "+
	"idempotency key and webhook-id); 200 with the delivery as reopened. Idempotent: a delivery already pending or retrying is answered as it is. "+
	"Never billed again (one delivered_change unit per delivery, whatever accepts it). Replay window: %d days after the delivery's created_at. "+
	"A delivery is reopened at most %d times (409 %s past it), and a customer reopens at most %d deliveries in any %d hours (409 %s past it). "+
	"A watch delivery never accepted (failed, never billed) is admitted again as a new change would be: "+
	"409 %s when your plan's delivered changes of this billing month are taken, 409 %s when the account is at its hard spend cap; "+
	"once reopened it counts against this month's allowance. "+
	"A wall_blocked delivery queued under overflow queue (queued true) is replayable too, as a change never billed: 409 %s while the month's allowance is still used, "+
	"200 once there is room (after the month turns or an upgrade), until %d days after the end of the month it was queued in. "+
	"409 %s for rate_limited, cap_blocked and wall_blocked deliveries not queued (never sent; the fire limit, allowance or cap decision stands), "+
	"409 %s past the window, 409 %s or %s when the delivery's endpoint is deleted or disabled. "+
	"403 account_paused while the account is paused (its deliveries wait; resume first), unless the delivery is pending or retrying. "+
	"404 for an id that does not exist or is another customer's", admit.ReplayWindowDays, admit.MaxReplaysPerDelivery, admit.ReasonReplayLimit,
	admit.MaxReplaysPerDay, int(oltp.BudgetWindow.Hours()), admit.ReasonReplayBudget, admit.ReasonWallReached, admit.ReasonCapReached,
	admit.ReasonWallReached, admit.ReplayWindowDays, admit.ReasonNotReplayable, admit.ReasonWindowExpired, admit.ReasonEndpointDeleted, admit.ReasonEndpointOff)

// Routes are the delivery routes, and POST /v1/webhooks/{id}/test, with their handlers over d.
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	id := api.Param{Name: "delivery_id", In: "path", Type: "integer", Required: true, Min: new(int64(1)), Description: "the delivery's id (delivery_id)"}
	endpointID := api.Param{Name: "id", In: "path", Type: "integer", Required: true, Min: new(int64(1)), Description: "the endpoint's id (webhook_endpoint_id)"}
	return []*api.Route{
		{Name: "deliveries.list", Method: "GET", Path: "/v1/webhook-deliveries", Tag: "webhooks", Scope: api.ScopeRead,
			Summary: "The caller's webhook deliveries, most recent first (descending delivery_id), filtered and paged by cursor. Not billable",
			Params: []api.Param{
				{Name: "status", In: "query", Type: "string", Repeatable: true, Enum: oltp.DeliveryStatuses, MaxItems: len(oltp.DeliveryStatuses),
					Description: "only deliveries in these statuses (repeat to OR). " + statusDoc},
				{Name: "watch_id", In: "query", Type: "integer", Min: new(int64(1)), Description: "only the deliveries of this watch of yours (test deliveries have none)"},
				{Name: "webhook_endpoint_id", In: "query", Type: "integer", Min: new(int64(1)), Description: "only the deliveries to this endpoint of yours"},
				{Name: "created_since", In: "query", Type: "date-time", Description: "only deliveries created at or after this RFC 3339 time"},
				{Name: "cursor", In: "query", Type: "integer", Min: new(int64(1)),
					Description: "the previous page's next_cursor (the delivery_id of its last delivery): deliveries with a lower delivery_id. Omit for the most recent"},
				{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(PageMax)), Default: int64(DefaultLimit),
					Description: fmt.Sprintf("deliveries per page, 1..%d (default %d); out of range is 422, never truncated.", PageMax, DefaultLimit)},
			},
			Statuses: []int{200}, Response: pageSchema(), Handler: h.list},
		{Name: "deliveries.get", Method: "GET", Path: "/v1/webhook-deliveries/{delivery_id}", Tag: "webhooks", Scope: api.ScopeRead,
			Summary: "One delivery of yours with its attempts and its body (the JSON payload exactly as signed and sent; null for a delivery that was " +
				"neither admitted nor sent: rate_limited, wall_blocked, cap_blocked, or failed without an attempt). " +
				"404 for an id that does not exist or is another customer's. Not billable",
			Params: []api.Param{id}, Statuses: []int{200, 404}, Response: detailSchema(), Handler: h.get},
		{Name: "deliveries.replay", Method: "POST", Path: "/v1/webhook-deliveries/{delivery_id}/replay", Tag: "webhooks", Scope: api.ScopeWrite,
			Summary: replayDoc, Params: []api.Param{id}, Statuses: []int{200, 404, 409}, Response: DeliverySchema(),
			ErrorBodies: map[int]map[string]any{409: api.ConflictSchema([]string{admit.ReasonNotReplayable, admit.ReasonWindowExpired, admit.ReasonEndpointDeleted,
				admit.ReasonEndpointOff, admit.ReasonReplayLimit, admit.ReasonReplayBudget, admit.ReasonWallReached, admit.ReasonCapReached},
				map[string]any{"status": map[string]any{"type": "string", "enum": oltp.DeliveryStatuses, "description": "the delivery's status"}})},
			Handler: h.replay},
		{Name: "webhooks.test", Method: "POST", Path: "/v1/webhooks/{id}/test", Tag: "webhooks", Scope: api.ScopeWrite,
			Summary: fmt.Sprintf("Send a signed test event to the endpoint: 201 with the test delivery created (event_type test, watch_id and event_seq null), "+
				"sent within seconds and signed like every delivery; follow it with GET /v1/webhook-deliveries/{delivery_id}. Not billed. "+
				"At most %d test deliveries per endpoint per %d seconds (409 %s past it) and %d per customer in any %d hours, across its endpoints, "+
				"deleted ones included (409 %s past it); 409 %s for a disabled endpoint; "+
				"403 account_paused while the account is paused (its deliveries wait; resume first); "+
				"404 for a deleted, missing or another customer's endpoint",
				admit.MaxTestDeliveries, int(oltp.TestDeliveryWindow.Seconds()), admit.ReasonTooManyTests, admit.MaxTestDeliveriesPerDay,
				int(oltp.BudgetWindow.Hours()), admit.ReasonTestBudget, admit.ReasonEndpointOff),
			Params: []api.Param{endpointID}, Statuses: []int{201, 404, 409}, Response: DeliverySchema(),
			ErrorBodies: map[int]map[string]any{409: api.ConflictSchema([]string{admit.ReasonTooManyTests, admit.ReasonTestBudget, admit.ReasonEndpointOff}, nil)},
			Handler:     h.test},
	}
}

func deliveryProps() map[string]any {
	return map[string]any{
		"delivery_id": api.Type("integer"),
		"idempotency_key": map[string]any{"type": "string",
			"description": "sent as X-Plane-Idempotency-Key and webhook-id; the same on every attempt and replay: dedupe on it"},
		"watch_id":            map[string]any{"type": []any{"integer", "null"}, "description": "the watch that fired; null for a test delivery and an account event's"},
		"webhook_endpoint_id": api.Type("integer"),
		"event_type": map[string]any{"type": "string", "enum": slices.Concat(criteria.EventTypes, []string{payload.EventTest, payload.EventAllowanceWarning}),
			"description": "the event delivered; test for POST /v1/webhooks/{id}/test; allowance_warning for an account event (80% or 100% of an allowance; its body carries account_event)"},
		"event_seq": map[string]any{"type": []any{"integer", "null"}, "description": "the ledger event delivered (as on GET /v1/events); null for a test delivery and an account event's"},
		"queued": map[string]any{"type": "boolean",
			"description": "a wall_blocked delivery held under overflow queue: replay it once there is room within the plan (after the month turns or an upgrade); false otherwise"},
		"status":        map[string]any{"type": "string", "enum": oltp.DeliveryStatuses, "description": statusDoc},
		"attempt_count": map[string]any{"type": "integer", "minimum": 0, "description": "attempts made so far (replays included)"},
		"response_status": map[string]any{"type": []any{"integer", "null"},
			"description": "the HTTP status of the last attempt; null before the first attempt or when no HTTP response came (refused, timed out)"},
		"response_ms":     map[string]any{"type": []any{"integer", "null"}, "description": "how long the last attempt took, in milliseconds; null before the first attempt"},
		"next_attempt_at": map[string]any{"type": []any{"string", "null"}, "format": "date-time", "description": "when the next attempt is due (pending, retrying); null otherwise"},
		"delivered_at":    map[string]any{"type": []any{"string", "null"}, "format": "date-time", "description": "when the endpoint first accepted it (2xx); null until then"},
		"replayed_at":     map[string]any{"type": []any{"string", "null"}, "format": "date-time", "description": "when it was last replayed; null if never"},
		"created_at":      api.DateTime(),
	}
}

// DeliverySchema is a delivery as listed, replayed and answered by a test.
func DeliverySchema() map[string]any { return api.Closed(deliveryProps()) }

func detailSchema() map[string]any {
	p := deliveryProps()
	p["attempts"] = map[string]any{"type": "array", "maxItems": oltp.MaxListedAttempts, "description": "every attempt, oldest first",
		"items": api.Closed(map[string]any{
			"attempt":         map[string]any{"type": "integer", "minimum": 1},
			"started_at":      api.DateTime(),
			"response_status": map[string]any{"type": []any{"integer", "null"}, "description": "null when no HTTP response came"},
			"response_ms":     map[string]any{"type": []any{"integer", "null"}},
			"error":           map[string]any{"type": []any{"string", "null"}, "description": "what went wrong (connection refused, timeout, refused address, non-2xx); null on success"},
		})}
	p["body"] = map[string]any{"type": []any{"object", "null"}, "description": "the delivery's JSON payload exactly as signed and sent (every attempt and replay sends the same bytes; " +
		"an event first seen after a gap in the crawl carries after_gap {from, to}, a close of retired sources close_reason, as on GET /v1/events). " +
		"null for a delivery neither admitted against your plan's allowance and spend cap nor sent: rate_limited, wall_blocked and cap_blocked ones " +
		"(never sent; their payload is not kept, but for a queued one's, kept unserved until a replay sends it) and a failed one without any attempt (its endpoint was disabled; a replay that is admitted sends it and serves it again)"}
	return api.Closed(p)
}

func pageSchema() map[string]any {
	return api.Closed(map[string]any{
		"deliveries": map[string]any{"type": "array", "items": DeliverySchema(), "maxItems": PageMax, "description": "most recent first (descending delivery_id)"},
		"next_cursor": map[string]any{"type": []any{"integer", "null"},
			"description": "send as cursor for the next page (the last delivery's id) while has_more; null on the last page. Pages neither miss nor repeat a delivery"},
		"has_more": map[string]any{"type": "boolean", "description": "more deliveries match after this page"},
	})
}
