// Package events serves the change feed of spec 4.4 and 6.2, GET /v1/events: the ledger's
// events by event_seq, ascending, after an integer cursor, with a next_cursor that replays
// exactly. A page is one primary-key range read of the ledger in ClickHouse (package analytics)
// bounded by the call's read snapshot: only committed events, at most the snapshot's watermark
// and, for a plan with a freshness floor, at most the cycle watermark of the floor; and ending
// before the first event the ClickHouse replica it reads lacks (a lagging replica: has_more, the
// cursor waits; analytics.ReadFeed). Company names come from the same snapshot's read model. A since ahead of the newest committed event is
// 422 naming it (api.CursorAhead), never an empty page that echoes it. Without event_type a page
// leaves reobserved out (DefaultEventTypes).
//
// It declares its route (Routes) with its schema next to its response types and registers it on
// an api.Server; the chain has already authenticated, gated, limited and validated the call and
// meters the events the handler reports as change units. An event carries close_reason and
// after_gap in the shape of the webhook body (package payload). Each page also lists the caller's
// account events (allowance warnings) in account_events, apart from the ledger's events, read
// through api.Call.AccountEvents. It must not write any store, touch Postgres itself, or hold SQL
// (package analytics does).
package events

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Bounds of GET /v1/events (docs/decisions.md, "Change feed").
const (
	// DefaultLimit is the page size when limit is absent (the demo key's cap when lower).
	DefaultLimit = 100
	// PageMax is the largest limit; more is 422, never truncated.
	PageMax = 1000
	// MaxSpan is the most event_seq positions past since that a filtered page examines: a page
	// never scans the ledger, and one that found fewer events than its limit in its span answers
	// the span's end as next_cursor.
	MaxSpan = 100_000
	// MaxCompanyIDs is the most company_id values a call may send.
	MaxCompanyIDs = 100
)

// DefaultEventTypes are the events a page serves when the call names no event_type: reobserved
// (a live req read again, a heartbeat that tells nothing new) is left out, as watches leave it
// out by default, so mirroring the feed does not spend change units on heartbeats. A call that
// names it gets it.
var DefaultEventTypes = []string{analytics.EventOpened, analytics.EventReposted, analytics.EventClosed}

// Snapshots gives the current read snapshot (*snapshot.Service implements it): its watermark
// and cycle time bound a page; its read model names the companies.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Deps is what the handler needs.
type Deps struct {
	Snapshots  Snapshots
	ClickHouse driver.Conn
	Log        *slog.Logger // default: discard
}

type handlers struct{ d Deps }

// Register installs GET /v1/events on srv (before srv.Start).
func Register(srv *api.Server, deps Deps) { srv.Register(Routes(deps)...) }

func newHandlers(d Deps) *handlers {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &handlers{d: d}
}

// Event is one event as the feed serves it (the answer's shape, also what a consumer decodes).
type Event struct {
	EventSeq     uint64  `json:"event_seq"`
	EventType    string  `json:"event_type"`
	ReqKey       string  `json:"req_key"`
	CompanyID    uint64  `json:"company_id"`
	CompanyName  *string `json:"company_name"`
	RawTitle     string  `json:"raw_title"`
	Country      *string `json:"country"`
	CountryCode  *string `json:"country_code"`
	Function     *string `json:"function"`
	FunctionName *string `json:"function_name"`
	Board        *string `json:"board"`
	URL          *string `json:"url"`
	OccurredAt   string  `json:"occurred_at"`
	ObservedAt   string  `json:"observed_at"`
	// CloseReason: a closed event that was no ordinary close says why (source_retired); absent
	// otherwise.
	CloseReason string `json:"close_reason,omitempty"`
	// AfterGap: an event first seen in the first crawl cycle after a gap in its region's history
	// happened somewhere in (from, to]; absent otherwise.
	AfterGap *payload.AfterGap `json:"after_gap,omitempty"`
}

// Page is the answer of GET /v1/events.
type Page struct {
	Events          []Event `json:"events"`
	NextCursor      uint64  `json:"next_cursor"`
	HasMore         bool    `json:"has_more"`
	FreshnessFloorS int     `json:"freshness_floor_s"`
	// AccountEvents are the caller's account events (allowance warnings) of the last
	// api.AccountEventsWindow, newest first, on every page: apart from events so that no filter,
	// cursor or event shape of the ledger changes; never metered.
	AccountEvents []payload.AccountEvent `json:"account_events"`
	// AsOf is the latest committed crawl cycle the page reflects (RFC 3339, UTC): the read
	// snapshot's, whose watermark bounds the page.
	AsOf string `json:"as_of"`
}

// events serves GET /v1/events: one change unit per event returned (an empty page, none).
func (h *handlers) events(c *api.Call) (int, error) {
	ids, errs := companyIDs(c.Strings("company_id"))
	if len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	snap := h.d.Snapshots.Current()
	if snap == nil || snap.Index == nil {
		e := api.Unavailable("The change feed (the read snapshot is being built for the first time)", nil)
		e.Headers = map[string]string{"Retry-After": "5"}
		return 0, e
	}
	since, _ := c.Int("since")
	if uint64(since) > snap.Watermark {
		// Ahead of this snapshot: refused unless the ledger has committed that far since it was
		// built (then the page is empty and keeps the cursor until the snapshot catches up).
		head, _, err := analytics.Watermark(c.Context(), h.d.ClickHouse)
		if err != nil {
			return 0, api.Unavailable("The change feed (ClickHouse)", err)
		}
		if uint64(since) > head {
			return 0, api.CursorAhead(uint64(since), head, "query", "since")
		}
	}
	upper := snap.Watermark
	floor := c.Caller.Plan().FreshnessFloorS
	if floor > 0 {
		var err error
		cutoff := snap.AsOf.Add(-time.Duration(floor) * time.Second)
		upper, err = analytics.FlooredWatermark(c.Context(), h.d.ClickHouse, analytics.AtWatermark(snap.Watermark, snap.AsOf), cutoff)
		if err != nil {
			return 0, api.Unavailable("The change feed (ClickHouse)", err)
		}
	}
	q := analytics.FeedQuery{After: uint64(since), Upper: upper, Limit: c.Limit(), Span: MaxSpan, CompanyIDs: ids,
		Types: eventTypes(c.Strings("event_type"))}
	p, err := analytics.ReadFeed(c.Context(), h.d.ClickHouse, q)
	if err != nil {
		return 0, api.Unavailable("The change feed (ClickHouse)", err)
	}
	acct, err := c.AccountEvents()
	if err != nil {
		return 0, api.Internal(err)
	}
	out := Page{Events: make([]Event, 0, len(p.Events)), NextCursor: p.Next, HasMore: p.Next < upper, FreshnessFloorS: floor, AccountEvents: acct,
		AsOf: snap.AsOf.UTC().Format(time.RFC3339)}
	for i := range p.Events {
		out.Events = append(out.Events, newEvent(snap, &p.Events[i]))
	}
	return len(out.Events), c.JSON(200, out)
}

func newEvent(snap *snapshot.Snapshot, e *analytics.FeedEvent) Event {
	v := Event{EventSeq: e.Seq, EventType: e.Type, ReqKey: e.ReqKey, CompanyID: e.CompanyID, RawTitle: e.RawTitle,
		Country: nullable.String(e.Country), Function: nullable.String(e.Function), Board: nullable.String(e.Board), URL: nullable.String(e.URL),
		OccurredAt: e.OccurredAt.UTC().Format(time.RFC3339), ObservedAt: e.ObservedAt.UTC().Format(time.RFC3339),
		CloseReason: e.CloseReason, AfterGap: payload.Gap(e.GapFrom, e.GapTo)}
	if co := snap.Model.Company(e.CompanyID); co != nil {
		v.CompanyName = nullable.String(co.Name)
	}
	if e.Country != "" {
		v.CountryCode = nullable.String(normalize.CountryCode(e.Country))
	}
	if n, ok := normalize.FunctionName(e.Function); ok {
		v.FunctionName = &n
	}
	return v
}

// companyIDs parses the company_id values (the chain bounded their number): each a positive
// integer, else a 422 item at its index. Repeats are dropped.
func companyIDs(vals []string) ([]uint64, []problem.FieldError) {
	var out []uint64
	var errs []problem.FieldError
	seen := map[uint64]bool{}
	for i, v := range vals {
		id, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil || id == 0 {
			errs = append(errs, problem.FieldError{Type: "int_parsing", Loc: problem.Loc("query", "company_id", i), Input: v, Ctx: map[string]any{},
				Msg: "Input should be a valid integer, unable to parse string as an integer: send a company_id (a positive integer) as returned by the company reads"})
			continue
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, errs
}

// eventTypes are the types a page serves: those named (the chain checked them against
// analytics.EventTypes), DefaultEventTypes when none is; nil (no type filter, the cheaper
// unfiltered read) when they are every type.
func eventTypes(named []string) []string {
	types := dedupe(named)
	if len(types) == 0 {
		types = DefaultEventTypes
	}
	for _, t := range analytics.EventTypes {
		if !slices.Contains(types, t) {
			return types
		}
	}
	return nil
}

func dedupe(vals []string) []string {
	var out []string
	for _, v := range vals {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
