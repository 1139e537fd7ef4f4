// Package search serves the search routes of spec 4.3: GET /v1/reqs/search, POST
// /v1/reqs/qualified, GET /v1/jobs/search, GET /v1/jobs/role and GET /v1/markets/role-demand, and
// the technographics by technology: GET /v1/technologies/{slug}/companies and the vocabulary, GET
// /v1/technologies.
// Handlers validate what the contract's chain cannot (country names, function names, criteria
// vocabulary, cursors; the criteria and the input bounds through package criteria, which
// watches share), apply the caller's freshness floor, query the in-memory search index
// behind a bounded concurrency gate (503 with Retry-After when saturated) and report the rows
// they serialised as source_row units.
//
// It declares its routes (Routes) with their schemas next to its response types and registers
// them on an api.Server. It reads only the read snapshot given in Deps: a call takes one Snapshot
// and reads both the search index and the company pulses it joins from it, so an answer never mixes
// two watermarks. It must not touch Postgres or ClickHouse, nor meter or limit calls itself (the api
// chain does).
package search

import (
	"log/slog"
	"runtime"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Snapshots gives the current read snapshot (*snapshot.Service implements it): its search index
// (nil before the first build) and its company read model, whose pulses the routes join (a
// company unknown to it is served with pulse null).
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Deps is what the handlers need.
type Deps struct {
	Snapshots Snapshots
	// Descriptions serves include=description and jobs/role's description (default: Snapshots,
	// when it implements Descriptions; else those answer 503).
	Descriptions reqrow.Descriptions
	Log          *slog.Logger  // default: discard
	MaxInFlight  int           // searches running at once (default GOMAXPROCS*2)
	QueueWait    time.Duration // how long a search waits for a slot before 503 (default 250ms)
	OnSaturated  func()        // when set, called for every search refused by the gate (metrics)
}

// Page bounds of the search routes.
const (
	// MaxMatchedReqs caps matched_reqs per company on reqs/search (newest first); matched_req_count
	// gives the full count.
	MaxMatchedReqs = 50
	// DefaultMatchedReqs is how many matched_reqs a company row carries when the caller does not
	// say (matched_reqs): the newest few; the rest are opt-in up to MaxMatchedReqs.
	DefaultMatchedReqs = 5
	// DefaultLimit is the default page of reqs/search, reqs/qualified and jobs/search.
	DefaultLimit = 20
	// PageMax is the largest page of reqs/search, reqs/qualified and jobs/search.
	PageMax = 100
)

type handlers struct {
	d    Deps
	log  *slog.Logger
	gate chan struct{}
}

// Register installs the five search routes on srv (before srv.Start).
func Register(srv *api.Server, deps Deps) { srv.Register(Routes(deps)...) }

// newHandlers applies the defaults of deps.
func newHandlers(deps Deps) *handlers {
	if deps.MaxInFlight <= 0 {
		deps.MaxInFlight = runtime.GOMAXPROCS(0) * 2
	}
	if deps.QueueWait <= 0 {
		deps.QueueWait = 250 * time.Millisecond
	}
	if deps.Log == nil {
		deps.Log = slog.New(slog.DiscardHandler)
	}
	if deps.Descriptions == nil {
		deps.Descriptions, _ = deps.Snapshots.(reqrow.Descriptions)
	}
	return &handlers{d: deps, log: deps.Log, gate: make(chan struct{}, deps.MaxInFlight)}
}

// indexed is a handler over one read snapshot whose Index is built.
type indexed func(c *api.Call, snap *snapshot.Snapshot) (int, error)

func (h *handlers) withIndex(fn indexed) api.HandlerFunc {
	return func(c *api.Call) (int, error) {
		snap := h.d.Snapshots.Current()
		if snap == nil || snap.Index == nil {
			e := api.Unavailable("Search (the index is being built for the first time)", nil)
			e.Headers = map[string]string{"Retry-After": "5"}
			return 0, e
		}
		return fn(c, snap)
	}
}

// gated runs fn under the concurrency gate: a call that finds no slot within QueueWait answers
// 503 with Retry-After, never queues without bound.
func (h *handlers) gated(fn indexed) api.HandlerFunc {
	inner := h.withIndex(fn)
	return func(c *api.Call) (int, error) {
		select {
		case h.gate <- struct{}{}:
		default:
			t := time.NewTimer(h.d.QueueWait)
			select {
			case h.gate <- struct{}{}:
				t.Stop()
			case <-t.C:
				if h.d.OnSaturated != nil {
					h.d.OnSaturated()
				}
				e := api.Unavailable("Search (saturated: too many searches in flight)", nil)
				e.Headers = map[string]string{"Retry-After": "1"}
				return 0, e
			}
		}
		defer func() { <-h.gate }()
		return inner(c)
	}
}

// freshBefore is the caller's freshness floor on first_seen (readmodel.FreshBefore, which the
// company reads share): zero when the plan has none.
func freshBefore(c *api.Call, x *searchindex.Index) time.Time {
	return readmodel.FreshBefore(x.CycleTime, c.Caller.Plan().FreshnessFloorS)
}

// describe answers the description of every row of reqs (set, by position): reqrow.Describe.
func (h *handlers) describe(c *api.Call, reqs []*searchindex.Req, set func(i int, text string, ok bool)) error {
	return reqrow.Describe(c, h.d.Descriptions, h.log, reqs, set)
}
