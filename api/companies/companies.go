// Package companies serves the company reads of spec 4.2 (is-hiring, open-reqs, enrichment,
// hiring-pulse, first-hire, repost-pain, ats-migrations, pre-action-brief, companies/resolve), a
// company's technologies (technographics from its postings) and the on-demand crawl job route,
// from the in-memory read model (package readmodel) and the search index of the same snapshot.
//
// It declares its routes (Routes) with their schemas next to its response types and registers
// them on an api.Server; the chain has already authenticated, limited and validated every call.
// It reads Postgres only for crawl jobs and the cost counters (the free-tier is-hiring cap, the
// public demo key's on-demand crawls; package oltp); it must not query ClickHouse per call, run
// crawls or touch other packages' routes.
package companies

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Defaults of Deps (docs/decisions.md, "Company reads").
const (
	DefaultColdAfter          = 24 * time.Hour // a company whose sources were not read for this long is cold
	DefaultFreeIsHiringPerDay = 50             // is-hiring reads per UTC day per free account before over_cap
	DefaultDemoCrawlsPerDay   = 20             // on-demand crawls the public demo key queues per client address per UTC day
	DefaultDemoCrawlsInAll    = 500            // on-demand crawls the public demo key queues per UTC day, every address together
	FreeHistoryCap            = 90 * 24 * time.Hour
	RepostPainMax             = 100 // rows of repost-pain
	BriefReqs                 = 10  // open reqs in a pre-action brief
	BriefReposts              = 5   // repost-pain rows in a pre-action brief
	BriefMomentumWeeks        = 26  // momentum weeks in a pre-action brief
	ResolveMax                = 5   // name candidates of companies/resolve (spec 8.3)
	OpenReqsPageMax           = 200 // largest page of open-reqs
)

// Snapshots gives the current read snapshot (*snapshot.Service implements it); the company reads
// serve its Model, which has no company before the first build.
type Snapshots interface{ Current() *snapshot.Snapshot }

// Deps is what the handlers need.
type Deps struct {
	Snapshots Snapshots // the read snapshot: the company read model
	// Descriptions serves open-reqs' include=description (default: Snapshots, when it implements
	// reqrow.Descriptions; else that answers 503).
	Descriptions reqrow.Descriptions
	Pool         *pgxpool.Pool    // crawl jobs and the free-tier is-hiring counter
	Log          *slog.Logger     // default: discard
	Now          func() time.Time // wall clock (default time.Now): coldness and max_age compare with it

	ColdAfter          time.Duration // default DefaultColdAfter; negative disables the cold check
	FreeIsHiringPerDay int           // default DefaultFreeIsHiringPerDay; negative disables over_cap
	// DemoCrawlsPerDay and DemoCrawlsInAll bound the on-demand crawls the public demo key queues
	// per UTC day, per client address and in all (defaults DefaultDemoCrawlsPerDay and
	// DefaultDemoCrawlsInAll; negative: no bound); past them its read answers 202 over_cap.
	DemoCrawlsPerDay, DemoCrawlsInAll int
	// CrawlFloor: a company's crawl job queued or finished within it is joined, not queued anew
	// (default oltp.CrawlFloor; negative: none, every call after a job finished queues another).
	CrawlFloor time.Duration
}

type handlers struct {
	d Deps
}

// Register installs the company reads on srv (before srv.Start).
func Register(srv *api.Server, d Deps) { srv.Register(Routes(d)...) }

// newHandlers applies the defaults of d.
func newHandlers(d Deps) *handlers {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Descriptions == nil {
		d.Descriptions, _ = d.Snapshots.(reqrow.Descriptions)
	}
	if d.ColdAfter == 0 {
		d.ColdAfter = DefaultColdAfter
	}
	if d.FreeIsHiringPerDay == 0 {
		d.FreeIsHiringPerDay = DefaultFreeIsHiringPerDay
	}
	if d.DemoCrawlsPerDay == 0 {
		d.DemoCrawlsPerDay = DefaultDemoCrawlsPerDay
	}
	if d.DemoCrawlsInAll == 0 {
		d.DemoCrawlsInAll = DefaultDemoCrawlsInAll
	}
	if d.CrawlFloor == 0 {
		d.CrawlFloor = oltp.CrawlFloor
	}
	d.CrawlFloor = max(d.CrawlFloor, 0)
	return &handlers{d: d}
}

// company finds the path's company in the current model: 404 when unknown.
func (h *handlers) company(c *api.Call) (*readmodel.Model, *readmodel.Company, error) {
	s, co, err := h.companyAt(c)
	if err != nil {
		return nil, nil, err
	}
	return s.Model, co, nil
}

// companyAt is company with the whole snapshot (the search index of the same build gives req
// rows their salary).
func (h *handlers) companyAt(c *api.Call) (*snapshot.Snapshot, *readmodel.Company, error) {
	id, _ := c.Int("company_id")
	if err := h.ready(); err != nil {
		return nil, nil, err
	}
	s := h.d.Snapshots.Current()
	co := s.Model.Company(uint64(id))
	if co == nil {
		return nil, nil, api.NotFound(fmt.Sprintf("No company with company_id %d", id))
	}
	return s, co, nil
}

// ready is 503 until the first model was built (every company would read as unknown before).
func (h *handlers) ready() error {
	if r, ok := h.d.Snapshots.(interface{ Ready() bool }); ok && !r.Ready() {
		return api.Unavailable("The company read model (first build in progress)", nil)
	}
	return nil
}

// historyCutoff is the start of the history the caller may read: 90 days before the model's
// now on the Free plan, none otherwise.
func historyCutoff(c *api.Call, m *readmodel.Model) (time.Time, bool) {
	if c.Caller.Plan().Plan != "free" {
		return time.Time{}, false
	}
	return m.AsOf.Add(-FreeHistoryCap), true
}

// freshBefore is the caller's freshness floor on first_seen at the model's AsOf (the same
// readmodel.FreshBefore search applies): zero when the plan has none. Every company read hides
// the reqs first seen after it, from its rows and its counts, as search and jobs/role do.
func freshBefore(c *api.Call, m *readmodel.Model) time.Time {
	return readmodel.FreshBefore(m.AsOf, c.Caller.Plan().FreshnessFloorS)
}
