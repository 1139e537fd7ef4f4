package companies

import (
	"fmt"
	"strconv"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/criteria"
)

// Routes are the company reads and the crawl-job route with their handlers over d (spec 4.2).
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	companyID := api.Param{Name: "company_id", In: "path", Type: "integer", Required: true, Min: new(int64(1)), Description: "company_id as returned by reqs/search and company reads"}
	floor := fmt.Sprintf("%d minutes", int(oltp.CrawlFloor.Minutes()))
	maxAge := api.Param{Name: "max_age", In: "query", Type: "integer", Min: new(int64(0)), Max: new(int64(30 * 86400)),
		Description: "seconds; demand data at most this old (202 crawling otherwise). A crawl job of the company queued or finished in the last " + floor +
			" is returned rather than a new crawl queued: a company is crawled on demand at most about once per " + floor}
	function := api.Param{Name: "function", In: "query", Type: "string", Description: "function name or taxonomy id; anything else is 422 listing the names"}
	// read completes a metered company read at /v1/companies/{company_id}/<seg>, gated by the
	// plan entry seg.
	read := func(seg, summary string, r api.Route) *api.Route {
		r.Method, r.Path, r.Summary, r.Tag = "GET", "/v1/companies/{company_id}/"+seg, summary, "companies"
		r.Meter, r.Scope, r.Gate = api.MeterCall, api.ScopeRead, seg
		r.Params = append([]api.Param{companyID}, r.Params...)
		return &r
	}
	// ungated includes a company read in every plan (gated_endpoints lists only the spec's routes).
	ungated := func(r *api.Route) *api.Route { r.Gate = ""; return r }
	return []*api.Route{
		read("is-hiring", "Is-hiring gate", api.Route{Name: "companies.is_hiring", Idempotent: true,
			Statuses: []int{200, 202, 404}, Response: isHiringSchema(), Handler: h.isHiring}),
		read("open-reqs", "Open reqs deduplicated across boards", api.Route{Name: "companies.open_reqs", Idempotent: true,
			Params: []api.Param{function,
				{Name: "country", In: "query", Type: "string", Description: "country name or alias; " + criteria.CountryRule},
				{Name: "include", In: "query", Type: "string", Repeatable: true, Enum: []string{"description"}, MaxItems: 1,
					Description: "heavy parts to add: description (each req's description as plain text). Not billed separately"},
				{Name: "cursor", In: "query", Type: "string", MaxLength: 100, Description: "opaque: the previous page's next_cursor (rows after it in the same order, newest first_seen first)"},
				{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(OpenReqsPageMax)), Default: int64(50)}},
			Statuses: []int{200, 404}, Response: openReqsSchema(), Handler: h.openReqs}),
		read("enrichment", "Firmographics from ATS and boards", api.Route{Name: "companies.enrichment", Idempotent: true,
			Statuses: []int{200, 404}, Response: enrichmentSchema(), Handler: h.enrichment}),
		read("hiring-pulse", "Velocity, direction, momentum", api.Route{Name: "companies.hiring_pulse", Idempotent: true, Params: []api.Param{maxAge},
			Statuses: []int{200, 202, 404}, Response: pulseSchema(), Handler: h.hiringPulse}),
		read("first-hire", "Earliest first-in-function event per function", api.Route{Name: "companies.first_hire", Params: []api.Param{function},
			Statuses: []int{200, 404}, Response: firstHiresSchema(), Handler: h.firstHire}),
		read("repost-pain", "Hard-to-fill reqs by repost_count (at most "+strconv.Itoa(RepostPainMax)+" rows; the shared demo key gets "+strconv.Itoa(api.DemoPageLimit)+")", api.Route{Name: "companies.repost_pain",
			Statuses: []int{200, 404}, Response: repostPainSchema(), Handler: h.repostPain}),
		read("ats-migrations", "ATS vendor migrations", api.Route{Name: "companies.ats_migrations",
			Statuses: []int{200, 404}, Response: migrationsSchema(), Handler: h.atsMigrations}),
		read("pre-action-brief", "Motion and history pre-joined", api.Route{Name: "companies.pre_action_brief", Params: []api.Param{maxAge},
			Statuses: []int{200, 202, 404}, Response: briefSchema(), Handler: h.preActionBrief}),
		ungated(read("technologies", "Technologies this company's postings name (technographics): live and past reqs, first and last seen, evidence", api.Route{Name: "companies.technologies", Idempotent: true,
			Params: []api.Param{
				{Name: "category", In: "query", Type: "string", Enum: reqrow.Categories(), Description: "only technologies of this category (" + reqrow.VocabularyPath + " lists each technology's)"},
				{Name: "cursor", In: "query", Type: "string", MaxLength: 100, Description: "opaque: the previous page's next_cursor (rows after it in the same order)"},
				{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(TechnologiesPageMax)), Default: int64(50)}},
			Statuses: []int{200, 404}, Response: technologiesSchema(), Handler: h.technologies})),
		{Name: "companies.resolve", Method: "GET", Path: "/v1/companies/resolve", Summary: "Resolve a company by domain or name (exactly one)", Tag: "companies",
			Scope: api.ScopeRead, Params: []api.Param{{Name: "domain", In: "query", Type: "string"}, {Name: "name", In: "query", Type: "string"}},
			Statuses: []int{200}, Response: resolveSchema(), Handler: h.resolve},
		{Name: "crawl_jobs.get", Method: "GET", Path: "/v1/crawl-jobs/{job_id}", Summary: "An on-demand crawl started by a 202 crawling answer: its status and, once done, result_url", Tag: "companies",
			Scope: api.ScopeRead, Params: []api.Param{{Name: "job_id", In: "path", Type: "integer", Required: true, Min: new(int64(1))}},
			Statuses: []int{200, 404}, Response: crawlJobSchema(), Handler: h.crawlJob},
	}
}
