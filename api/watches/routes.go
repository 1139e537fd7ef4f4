package watches

import (
	"fmt"
	"maps"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/criteria"
)

// Routes are the watch routes with their handlers over d (spec 4.4).
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	crit := criteria.Schema(criteria.Watch)
	crit["description"] = criteria.Doc(criteria.Watch) + " Exclusive with company_id. Stored as sent (with q and geo folded in) and answered by GET /v1/watches. A criteria naming no field is 422."
	return []*api.Route{
		{Name: "watches.create", Method: "POST", Path: "/v1/watches", Tag: "watches", Scope: api.ScopeWrite, Meter: api.MeterWatch, Gate: "POST /v1/watches",
			Summary: "Watch one company or one saved search and deliver its events to a webhook endpoint of yours. Meters one watch unit. " +
				"Each delivery body carries the event as GET /v1/events serves it: an event first seen after a gap in the crawl carries after_gap " +
				"{from, to} (it happened somewhere in that interval, not at occurred_at), a close of sources the operator retired close_reason source_retired; " +
				"both are absent otherwise. " +
				"402 quota_exceeded past the plan's live-watch allowance (" + allowances() + "; canceling frees a slot); 404 for a company_id naming no company " +
				"or a webhook_endpoint_id naming no live endpoint of yours (another customer's answers the same). " +
				api.BudgetDoc(d.Budgets, oltp.BudgetWatches, oltp.BudgetEndpoints),
			Body: &api.Body{Required: true, Fields: []api.Field{
				{Name: "company_id", Type: "integer", Schema: map[string]any{"type": "integer", "minimum": 1,
					"description": "the company to watch (company_id of company reads and searches); exclusive with criteria, q and geo; a company_id naming no company is 404"}},
				{Name: "criteria", Type: "object", Schema: crit},
				{Name: "q", Type: "string", Description: "shorthand for criteria.req.q (built into criteria, or added to it); 422 with company_id or when criteria.req.q is set too"},
				{Name: "geo", Type: "string", Description: "shorthand for criteria.req.country (a country name); 422 with company_id or when criteria.req.country is set too"},
				{Name: "webhook_endpoint_id", Type: "integer", Schema: map[string]any{"type": "integer", "minimum": 1,
					"description": "a live endpoint of yours (POST /v1/webhooks); exclusive with webhook_url; another customer's or a deleted one is 404"}},
				{Name: "webhook_url", Type: "string", Schema: map[string]any{"type": "string", "maxLength": egress.MaxURLLength,
					"description": "register the endpoint here (or reuse your endpoint with this url), exactly as POST /v1/webhooks: " + api.WebhookURLRules +
						". Exclusive with webhook_endpoint_id. The endpoint stays registered when the watch is canceled"}},
				{Name: "secret", Type: "string", Sensitive: true, Description: "with webhook_url only: " + api.WebhookSecretRules +
					". A new endpoint's secret is answered once as webhook_secret; a url already registered with another secret is 409 secret_mismatch"},
				{Name: "event_types", Type: "array", Items: "string", Enum: criteria.EventTypes, MaxItems: len(criteria.EventTypes),
					Schema: map[string]any{"type": "array", "items": api.Enum(criteria.EventTypes...), "minItems": 1, "maxItems": len(criteria.EventTypes), "default": api.DefaultWatchEventTypes,
						"description": "the events that fire; default opened, reposted, closed: reobserved (a live req seen again, one event per live req every 7 days) is left out by default, as a watch matching a dozen live reqs would spend a Free plan's 50 delivered changes a month on it. Repeats count once"}},
				{Name: "max_fires_per_hour", Type: "integer", Schema: map[string]any{"type": "integer", "minimum": MinMaxFiresPerHour, "maximum": MaxMaxFiresPerHour, "default": api.DefaultWatchMaxFiresPerHour,
					"description": "fires past it within an hour are dropped (delivery status rate_limited), never queued and never an HTTP 429"}},
			}},
			Statuses: []int{201, 404, 409}, Response: createdSchema(),
			ErrorBodies: map[int]map[string]any{409: api.ConflictSchema([]string{api.ReasonSecretMismatch}, nil, api.BudgetDetailSchema(oltp.BudgetWatches, oltp.BudgetEndpoints))},
			Handler:     h.create},
		{Name: "watches.list", Method: "GET", Path: "/v1/watches", Tag: "watches", Scope: api.ScopeRead,
			Summary:  "The caller's live watches, newest first (canceled ones omitted), with their fire counters and heartbeat. Not billable",
			Statuses: []int{200}, Response: listSchema(), Handler: h.list},
		{Name: "watches.cancel", Method: "DELETE", Path: "/v1/watches/{watch_id}", Tag: "watches", Scope: api.ScopeWrite,
			Summary:  "Cancel a watch: 204 and its slot is free; again 204; 404 for an id that does not exist or is another customer's",
			Params:   []api.Param{{Name: "watch_id", In: "path", Type: "integer", Required: true, Min: new(int64(1))}},
			Statuses: []int{204, 404}, Handler: h.cancel},
	}
}

// allowances states the live-watch allowance of every plan.
func allowances() string {
	s := ""
	for i, t := range plans.All() {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", t.Name, t.LiveWatchAllowance())
	}
	return s
}

func watchProps() map[string]any {
	return map[string]any{
		"watch_id":            api.Type("integer"),
		"company_id":          map[string]any{"type": []any{"integer", "null"}, "description": "the watched company; null for a criteria watch"},
		"criteria":            map[string]any{"oneOf": []any{criteria.Schema(criteria.Watch), api.Type("null")}, "description": "the saved search; null for a company watch"},
		"webhook_endpoint_id": api.Type("integer"),
		"event_types":         map[string]any{"type": "array", "items": api.Enum(criteria.EventTypes...)},
		"max_fires_per_hour":  map[string]any{"type": "integer", "minimum": MinMaxFiresPerHour, "maximum": MaxMaxFiresPerHour},
		"fires_last_hour":     api.Type("integer"),
		"rate_limited":        map[string]any{"type": "boolean", "description": "fires_last_hour has met max_fires_per_hour"},
		"last_fired_at":       api.Nullable(api.DateTime()),
		"fires_last_7d":       api.Type("integer"),
		"fires_last_30d":      api.Type("integer"),
		"status": map[string]any{"type": "string", "enum": Statuses,
			"description": "heartbeat, the first that holds: paused (the account is paused: nothing is delivered until it is resumed); " +
				"blocked_by_allowance (the plan's delivered changes of the billing month are used and the account stops or queues past them: nothing is delivered " +
				"until blocked.resets_at or an upgrade; under overflow queue the changes are kept to replay); blocked_by_spend_cap (the account is at its hard spend cap); " +
				"rate_limited (fired max_fires_per_hour times in the last hour: further fires are dropped until the hour rolls on); active (delivering as events come)"},
		"blocked": map[string]any{"oneOf": []any{api.AllowanceBlockSchema(), api.Type("null")},
			"description": "with status blocked_by_allowance or blocked_by_spend_cap: the allowance reached, its period, when it resets and the way out; null otherwise"},
		"created_at": api.DateTime(),
	}
}

// WatchSchema is a watch as GET /v1/watches lists it.
func WatchSchema() map[string]any { return api.Object(watchProps()) }

func createdSchema() map[string]any {
	p := maps.Clone(watchProps())
	p["webhook_secret"] = map[string]any{"type": []any{"string", "null"},
		"description": "the signing secret of the endpoint webhook_url registered by this call, shown only here; null when the endpoint existed"}
	return api.Object(p)
}

func listSchema() map[string]any {
	return api.Object(map[string]any{"watches": map[string]any{"type": "array", "items": WatchSchema(), "maxItems": oltp.MaxListedWatches}})
}
