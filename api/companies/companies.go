// Package companies serves the company reads of spec 4.2 (is-hiring, open-reqs, enrichment,
// hiring-pulse, first-hire, repost-pain, ats-migrations, pre-action-brief, companies/resolve) and
// the on-demand crawl job route, from the in-memory read model (package readmodel).
//
// It plugs into the api package's contract routes with Server.Handle; the chain has already
// authenticated, limited and validated every call. It reads Postgres only for crawl jobs and the
// free-tier cost-to-serve counter (package oltp); it must not query ClickHouse per call, run
// crawls or change the contract's other routes.
package companies

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/readmodel"
)

// Defaults of Deps (docs/decisions.md, "Company reads").
const (
	DefaultColdAfter          = 24 * time.Hour // a company whose sources were not read for this long is cold
	DefaultFreeIsHiringPerDay = 50             // is-hiring reads per UTC day per free account before over_cap
	FreeHistoryCap            = 90 * 24 * time.Hour
	RepostPainMax             = 100 // rows of repost-pain
	BriefReqs                 = 10  // open reqs in a pre-action brief
	BriefReposts              = 5   // repost-pain rows in a pre-action brief
	BriefMomentumWeeks        = 26  // momentum weeks in a pre-action brief
	ResolveMax                = 5   // name candidates of companies/resolve (spec 8.3)
)

// Models gives the current read model (readmodel.Store implements it).
type Models interface{ Current() *readmodel.Model }

// Deps is what the handlers need.
type Deps struct {
	Models Models        // the company read model
	Pool   *pgxpool.Pool // crawl jobs and the free-tier is-hiring counter
	Log    *slog.Logger
	Now    func() time.Time // wall clock (default time.Now): coldness and max_age compare with it

	ColdAfter          time.Duration // default DefaultColdAfter; negative disables the cold check
	FreeIsHiringPerDay int           // default DefaultFreeIsHiringPerDay; negative disables over_cap
}

type handlers struct {
	d Deps
}

// Register installs the handlers of the company reads on srv (before srv.Start).
func Register(srv *api.Server, d Deps) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.ColdAfter == 0 {
		d.ColdAfter = DefaultColdAfter
	}
	if d.FreeIsHiringPerDay == 0 {
		d.FreeIsHiringPerDay = DefaultFreeIsHiringPerDay
	}
	h := &handlers{d: d}
	srv.Handle("companies.is_hiring", h.isHiring)
	srv.Handle("companies.open_reqs", h.openReqs)
	srv.Handle("companies.enrichment", h.enrichment)
	srv.Handle("companies.hiring_pulse", h.hiringPulse)
	srv.Handle("companies.first_hire", h.firstHire)
	srv.Handle("companies.repost_pain", h.repostPain)
	srv.Handle("companies.ats_migrations", h.atsMigrations)
	srv.Handle("companies.pre_action_brief", h.preActionBrief)
	srv.Handle("companies.resolve", h.resolve)
	srv.Handle("crawl_jobs.get", h.crawlJob)
}

// company finds the path's company in the current model: 404 when unknown.
func (h *handlers) company(c *api.Call) (*readmodel.Model, *readmodel.Company, error) {
	id, _ := c.Int("company_id")
	if err := h.ready(); err != nil {
		return nil, nil, err
	}
	m := h.d.Models.Current()
	co := m.Company(uint64(id))
	if co == nil {
		return nil, nil, api.NotFound(fmt.Sprintf("No company with company_id %d", id))
	}
	return m, co, nil
}

// ready is 503 until the first model was built (every company would read as unknown before).
func (h *handlers) ready() error {
	if r, ok := h.d.Models.(interface{ Ready() bool }); ok && !r.Ready() {
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

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
