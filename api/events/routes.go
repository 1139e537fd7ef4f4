package events

import (
	"fmt"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
)

// cursorDoc is how the cursor behaves, as the document states it.
var cursorDoc = fmt.Sprintf("Events are served in ascending event_seq; event_seq has no gaps, so a consumer that stores "+
	"next_cursor and sends it as since never misses or repeats an event. Only events of committed crawl cycles are served, up to the "+
	"read snapshot's watermark. next_cursor is the event_seq of the page's last event when the page is full (limit events), "+
	"otherwise the end of the span the page examined: the next limit positions when every event type is asked for (event_type naming all four) "+
	"without company_id, otherwise at most %d positions past since, so a page may be empty yet advance (keep paging while has_more is true). "+
	"Without event_type a page serves opened, reposted and closed events: reobserved (a live req read again, a heartbeat that says the posting "+
	"is still live and nothing new) is served, and billed, only to a call that names it in event_type. "+
	"It is never below since, and the same since (with the same filters and plan) replays the same page. "+
	"With a freshness floor (Free: 24 h, freshness_floor_s) the page ends before the first event of any cycle observed less than the "+
	"floor before the latest committed cycle: the cursor stops there and the event is served once its cycle is old enough, never skipped. "+
	"One change unit per event returned; an empty page costs no unit (it counts as a call in the daily quota). "+
	"An event first seen in the first crawl cycle after a gap (windows the service did not crawl) carries after_gap: it happened somewhere in "+
	"(from, to], so a burst of them is the gap's backlog, not fresh news; a close of sources the operator retired carries close_reason. "+
	"Both are absent otherwise.", MaxSpan)

// accountEventsDoc is how account events appear on the feed, as the document states it.
var accountEventsDoc = fmt.Sprintf("The account's own events of the last %d days, newest first (at most %d), on every page whatever since, limit, "+
	"company_id and event_type: today allowance_warning, raised when the account's delivered changes of the billing month reach 80%% and 100%% "+
	"of its plan's allowance (and delivered, signed, to every live endpoint as event allowance_warning). They are not ledger events: they have no "+
	"event_seq, never appear in events, never move next_cursor and are never metered, so existing filters and cursors are unchanged; dedupe on account_event_id.",
	int(api.AccountEventsWindow.Hours()/24), api.MaxAccountEvents)

// Routes is GET /v1/events with its handler over d.
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	return []*api.Route{{
		Name: "events.list", Method: "GET", Path: "/v1/events", Tag: "events",
		Summary: "Change feed: ledger events after a cursor, ascending by event_seq, replayed by next_cursor; and the account's own events (allowance warnings) in account_events",
		Meter:   api.MeterChange, Scope: api.ScopeRead, Gate: "/v1/events",
		Params: []api.Param{
			{Name: "since", In: "query", Type: "integer", Min: new(int64(0)), Default: int64(0),
				Description: "cursor: the previous page's next_cursor; events with event_seq greater than it. Omit (0) for the start of the ledger. " +
					"A since ahead of the newest event is 422 naming it (never an empty page that echoes the cursor): resume from the next_cursor of your last page, or 0."},
			{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(PageMax)), Default: int64(DefaultLimit),
				Description: fmt.Sprintf("events per page, 1..%d (default %d); out of range is 422, never truncated.", PageMax, DefaultLimit)},
			{Name: "company_id", In: "query", Type: "integer", Repeatable: true, MaxItems: MaxCompanyIDs,
				Description: fmt.Sprintf("only events of these companies (repeat to OR, at most %d values); a filtered page examines at most %d positions past since.", MaxCompanyIDs, MaxSpan)},
			{Name: "event_type", In: "query", Type: "string", Repeatable: true, Enum: analytics.EventTypes,
				Description: fmt.Sprintf("only events of these types (repeat to OR). Absent: opened, reposted and closed; reobserved is served only when named "+
					"(event_type=reobserved, with the others to mirror every event). A page short of every type examines at most %d positions past since.", MaxSpan)},
		},
		Statuses: []int{200}, Response: pageSchema(), Handler: h.events,
	}}
}

// AfterGapSchema is the after_gap member of an event, on the change feed and in webhook bodies.
func AfterGapSchema() map[string]any {
	s := api.Object(map[string]any{
		"from": map[string]any{"type": "string", "format": "date-time", "description": "the last crawl cycle of the req's region before the gap (RFC 3339, UTC)"},
		"to":   map[string]any{"type": "string", "format": "date-time", "description": "the first crawl cycle after it, the one that observed the change (RFC 3339, UTC)"},
	})
	s["description"] = "present only on an event first seen in the first crawl cycle of its region after a gap (crawl windows of 3 hours that were not crawled: " +
		"the service was down or behind): the change happened somewhere in (from, to], not at occurred_at or observed_at, so it is not fresh news of to. " +
		"Absent otherwise. The history headers name the most recent gap (X-History-Gap)"
	return s
}

func pageSchema() map[string]any {
	ev := api.Closed(map[string]any{
		"event_seq":  api.Type("integer"),
		"event_type": map[string]any{"type": "string", "enum": analytics.EventTypes, "description": "opened: a new req; reobserved: a live req seen again (at most weekly); reposted: a req that had gone away returned; closed: no longer observed at its source"},
		"req_key":    map[string]any{"type": "string", "description": "the req's identity in the ledger (as on reqs/search, jobs/search and company reads)"},
		"company_id": api.Type("integer"),
		"company_name": map[string]any{"type": []string{"string", "null"},
			"description": "the company's registered name; null when the read snapshot does not know it"},
		"raw_title":     map[string]any{"type": "string", "description": "the posting title exactly as the board published it"},
		"country":       map[string]any{"type": []string{"string", "null"}, "description": "the posting's country name; null when none"},
		"country_code":  map[string]any{"type": []string{"string", "null"}, "description": "ISO 3166-1 alpha-2 of country; null when none"},
		"function":      map[string]any{"type": []string{"string", "null"}, "description": "function taxonomy id; null when the title has none"},
		"function_name": map[string]any{"type": []string{"string", "null"}, "description": "human-readable function name; null without a function or outside the named vocabulary"},
		"board":         map[string]any{"type": []string{"string", "null"}, "description": "the board (or ATS vendor) the event's posting was read on; null when unknown"},
		"url":           map[string]any{"type": []string{"string", "null"}, "description": "link to the real posting; null when the source gave none"},
		"occurred_at":   map[string]any{"type": "string", "format": "date-time", "description": "when the change happened: the posting date of an opening posted within the cycle, else the cycle time (RFC 3339, UTC)"},
		"observed_at":   map[string]any{"type": "string", "format": "date-time", "description": "the time of the crawl cycle that observed it (RFC 3339, UTC)"},
		"close_reason": api.Optional(map[string]any{"type": "string", "enum": analytics.CloseReasons,
			"description": "present only on a closed event that was no ordinary close: source_retired when every source that carried the req was retired by " +
				"the service's operator, so the req left the corpus without being seen to close at its source. Absent on an ordinary close and on other events"}),
		"after_gap": api.Optional(AfterGapSchema()),
	})
	s := api.Closed(map[string]any{
		"events": map[string]any{"type": "array", "items": ev, "maxItems": PageMax, "description": "ascending by event_seq"},
		"next_cursor": map[string]any{"type": "integer", "minimum": 0,
			"description": "send as since for the next page; replays exactly"},
		"has_more": map[string]any{"type": "boolean",
			"description": "true when events after next_cursor are already servable to this caller: page again now; false: caught up until the next crawl cycle commits"},
		"as_of": map[string]any{"type": "string", "format": "date-time",
			"description": "the latest committed crawl cycle this page reflects (RFC 3339, UTC): no event of a later cycle is served yet"},
		"freshness_floor_s": map[string]any{"type": "integer", "minimum": 0,
			"description": "the plan's freshness floor in seconds (0: none): events of cycles newer than it are not served yet"},
		"account_events": map[string]any{"type": "array", "items": api.AccountEventSchema(), "maxItems": api.MaxAccountEvents,
			"description": accountEventsDoc},
	})
	s["description"] = cursorDoc
	return s
}
