package search

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// Bounds as the parameters' descriptions state them (api.Param has no maxLength or maxItems).
var (
	qBound        = fmt.Sprintf("at most %d words and %d characters (422 beyond, never cut)", criteria.MaxQWords, criteria.MaxQLength)
	repeatedBound = fmt.Sprintf("at most %d values of at most %d characters (422 beyond)", criteria.MaxCriterionValues, criteria.MaxValueLength)
	// The two defaults of exclude_agencies are the spec's (4.3): a search for companies hiring
	// keeps every company unless asked; an ICP list (reqs/qualified, and watches on criteria)
	// leaves intermediaries out unless asked. Each description names the other default.
	excludeAgenciesSearch = "default false: true drops companies positively classified as staffing agency, subcontractor network, aggregator or job board " +
		"(unclassified companies are kept). Not the default of reqs/qualified and of watches on criteria, which is true: send it explicitly to get the same rows everywhere"
	factBound                = fmt.Sprintf("at most %d values (422 beyond)", criteria.MaxFactValues)
	excludeAgenciesQualified = "default true: drops staffing agencies, subcontractor networks, aggregators and job boards (unclassified companies are kept). " +
		"Not the default of reqs/search and jobs/search, which is false: send it explicitly to get the same rows everywhere"
)

// Routes are the five search routes of spec 4.3 and the technographics by technology, with their
// handlers over deps.
func Routes(deps Deps) []*api.Route {
	h := newHandlers(deps)
	function := api.Param{Name: "function", In: "query", Type: "string", Description: "function name or taxonomy id; anything else is 422 listing the names"}
	geo := api.Param{Name: "geo", In: "query", Type: "string", Description: "country name or alias; " + criteria.CountryRule}
	limit := api.Param{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(PageMax)), Default: int64(DefaultLimit)}
	// filters are the company and req filters reqs/search and jobs/search share.
	filters := []api.Param{
		{Name: "source_type", In: "query", Type: "string", Enum: []string{"ats_tenant", "board"}},
		{Name: "exclude_agencies", In: "query", Type: "boolean", Default: false, Description: excludeAgenciesSearch},
		{Name: "industry", In: "query", Type: "string", Repeatable: true, Description: repeatedBound},
		{Name: "industry_terms", In: "query", Type: "string", Repeatable: true, Description: repeatedBound},
		{Name: "headcount_band", In: "query", Type: "string", Repeatable: true, Enum: normalize.HeadcountBands(), Description: repeatedBound},
	}
	for _, name := range criteria.FactFilterNames {
		p := api.Param{Name: name, In: "query", Type: "string", Repeatable: true, MaxItems: criteria.MaxFactValues,
			Description: criteria.FactDescription(name) + "; repeating ORs; " + factBound}
		if name != criteria.FactTechnologies {
			p.Enum = criteria.FactValuesOf(name)
			p.Description += "; a posting that states none matches no value"
		}
		filters = append(filters, p)
	}
	since := api.Param{Name: "since", In: "query", Type: "date-time", Description: "lower bound on first_seen"}
	expand := api.Param{Name: "expand", In: "query", Type: "boolean", Default: true}
	return []*api.Route{
		{Name: "reqs.search", Method: "GET", Path: "/v1/reqs/search", Summary: "Companies hiring for a title, deduplicated by company", Tag: "search",
			Meter: api.MeterSourceRow, Scope: api.ScopeRead, Gate: "reqs/search", Idempotent: true, Params: slices.Concat(
				[]api.Param{
					{Name: "q", In: "query", Type: "string", Description: "full-text over raw_title; every word must match (its inflections, or with expand its other spelling: ml = machine learning); " + qBound},
					{Name: "role", In: "query", Type: "string", AliasOf: "q", Sunset: "2026-11-09", Description: "deprecated name of q"},
					{Name: "geo", In: "query", Type: "string", Repeatable: true, Description: "country name or alias; repeating ORs; " + repeatedBound + "; " + criteria.CountryRule},
					since, withDesc(expand, "default true: a word of q also matches its other spelling (an abbreviation and its spelled-out form: ml = machine learning, swe = software engineer; the list is normalize.Spellings); false: only the word's own stem. No synonyms: every word must match. No effect without q"),
					{Name: "matched_reqs", In: "query", Type: "integer", Min: new(int64(0)), Max: new(int64(MaxMatchedReqs)), Default: int64(DefaultMatchedReqs), Rows: true,
						Description: "how many of each company's matching reqs to list in matched_reqs, newest first (matched_req_count always counts them all; jobs/search or open-reqs list every one)"},
					{Name: "include", In: "query", Type: "string", Repeatable: true, Enum: []string{includeMomentum, includeDescription}, MaxItems: 2,
						Description: "heavy parts to add: momentum (each pulse's full weekly history; without it pulse.momentum is null); description (each matched req's description as plain text; " +
							"limit × matched_reqs at most " + strconv.Itoa(analytics.MaxDescriptionsRead) + " with it). Not billed separately"}},
				filters,
				[]api.Param{{Name: "cursor", In: "query", Type: "integer", Min: new(int64(0)), Description: "the previous page's next_cursor (companies with a higher company_id)"}, limit}),
			Statuses: []int{200}, Response: reqsSearchSchema(), Handler: h.gated(h.reqsSearch)},
		{Name: "reqs.qualified", Method: "POST", Path: "/v1/reqs/qualified", Summary: "Live reqs matching an ICP (closed criteria vocabulary)", Tag: "search",
			Meter: api.MeterSourceRow, Scope: api.ScopeRead, Idempotent: true,
			Body: &api.Body{Required: true, Fields: []api.Field{
				{Name: "criteria", Type: "object", Description: criteria.Doc(criteria.Qualified), Schema: criteria.Schema(criteria.Qualified)},
				{Name: "salary_min_usd", Type: "number", Description: "yearly USD, >= 0; alone a half-open band; with salary_max_usd it brackets one figure per row (declared midpoint, else the inferred median of the function and country from at least 5 declared salaries); a req with no figure matches no band; min > max is 422"},
				{Name: "salary_max_usd", Type: "number", Description: "yearly USD, >= 0 (see salary_min_usd)"},
				{Name: "exclude_agencies", Type: "boolean", Description: excludeAgenciesQualified},
				{Name: "live_only", Type: "boolean", Description: "default true; false adds reqs closed in the last 30 days"},
				{Name: "include_pulse", Type: "boolean", Description: "default false; adds companies: the pulse of every company on the page keyed by company_id (not billed)"},
				{Name: "include", Type: "array", Items: "string", Enum: []string{includeMomentum, includeDescription}, MaxItems: 2, Description: "heavy parts to add: \"momentum\" gives each pulse of companies its full weekly history (without it pulse.momentum is null); \"description\" each row's description as plain text (not billed separately)"},
				{Name: "cursor", Type: "integer", Description: "the previous next_cursor (>= 0): only reqs that opened in the ledger after it. A cursor ahead of the newest event is 422 naming it, never an empty page that echoes it: resume from the next_cursor of your last page, or 0"},
				{Name: "limit", Type: "integer", Description: "rows per page, 1..100 (demo key 1..5), default 20; out of range is 422"}}},
			Statuses: []int{200}, Response: qualifiedSchema(), Handler: h.gated(h.reqsQualified)},
		{Name: "jobs.search", Method: "GET", Path: "/v1/jobs/search", Summary: "Flat role search, one row per logical req", Tag: "search",
			Meter: api.MeterSourceRow, Scope: api.ScopeRead, Gate: "jobs/search", Idempotent: true, Params: slices.Concat(
				[]api.Param{function, geo, since, {Name: "q", In: "query", Type: "string", Description: "free-text title search, ranked; " + qBound},
					{Name: "sort", In: "query", Type: "string", Enum: []string{"relevance", "recency"}},
					{Name: "min_relevance", In: "query", Type: "number", Min: new(int64(0)), Max: new(int64(1)), Default: searchindex.DefaultMinRelevance,
						Description: "with q: rows scoring below it are not served (nor billed, nor counted in total), in every sort. The default 0.5 serves every title match " +
							"(all words direct: 0.85..1; some through a synonym: 0.51..0.8) and none of the same-function titles (0.25..0.5); 0 adds them. Sent without q: 422"},
					withDesc(expand, "with q, default true: a word also matches its synonyms, one hop (developer ~ engineer, normalize.Expand; relevance at most 0.8), and titles of q's function fill in below 0.5 (when min_relevance allows); "+
						"false: only titles holding every word's own stem (no other spellings, synonyms or same-function titles)")},
				filters,
				[]api.Param{{Name: "include", In: "query", Type: "string", Repeatable: true, Enum: []string{includeDescription}, MaxItems: 1,
					Description: "heavy parts to add: description (each row's description as plain text). Not billed separately"},
					{Name: "cursor", In: "query", Type: "string", Description: "opaque: the previous page's next_cursor, replayed with the same sort (another sort is 422)"}, limit}),
			Statuses: []int{200}, Response: jobsSearchSchema(), Handler: h.gated(h.jobsSearch)},
		{Name: "jobs.role", Method: "GET", Path: "/v1/jobs/role", Summary: "One role's detail with its description (404, never metered, when missing, closed or below the floor: reason closed or not_found)", Tag: "search",
			Meter: api.MeterCall, Scope: api.ScopeRead, Params: []api.Param{
				{Name: "company_id", In: "query", Type: "integer", Required: true, Min: new(int64(1))},
				{Name: "req_key", In: "query", Type: "string", Required: true}},
			Statuses: []int{200, 404}, Response: roleSchema(), ErrorBodies: map[int]map[string]any{404: roleMissingSchema()}, Handler: h.withIndex(h.jobsRole)},
		{Name: "markets.role_demand", Method: "GET", Path: "/v1/markets/role-demand", Summary: "Market-wide weekly demand for a role", Tag: "search",
			Meter: api.MeterCall, Scope: api.ScopeRead, Gate: "role-demand", Params: []api.Param{
				{Name: "role", In: "query", Type: "string", Required: true, Description: "function taxonomy id (a function name covers its ids); unresolvable is 422 listing the names"}, geo},
			Statuses: []int{200}, Response: roleDemandSchema(), Handler: h.withIndex(h.roleDemand)},
		{Name: "technologies.companies", Method: "GET", Path: "/v1/technologies/{slug}/companies",
			Summary: "Companies whose postings name a technology (technographics), newest first mention first: with since, who started hiring for it", Tag: "search",
			Meter: api.MeterSourceRow, Scope: api.ScopeRead, Idempotent: true, Params: []api.Param{
				{Name: "slug", In: "path", Type: "string", Required: true, MaxLength: 100,
					Description: "a technology slug (or its name, any case), e.g. kafka, snowflake, salesforce; one outside the vocabulary is 422 naming " + reqrow.VocabularyPath + ", which lists them"},
				{Name: "since", In: "query", Type: "date-time", Description: "only companies whose first mention (the earliest first_seen of their reqs naming it) is at or after it: since=<the 1st of the month> is who started naming it this month"},
				{Name: "live_only", In: "query", Type: "boolean", Default: false, Description: "default false; true: only companies with a live req naming it (past_reqs are reqs closed in the last 30 days)"},
				{Name: "exclude_agencies", In: "query", Type: "boolean", Default: false, Description: excludeAgenciesSearch},
				{Name: "cursor", In: "query", Type: "string", MaxLength: 100, Description: "opaque: the previous page's next_cursor"}, limit},
			Statuses: []int{200}, Response: techCompaniesSchema(), Handler: h.gated(h.technologyCompanies)},
		{Name: "technologies.list", Method: "GET", Path: reqrow.VocabularyPath, Summary: "The technology vocabulary: slug, name and category of every technology postings are read for (not billable)", Tag: "search",
			Scope: api.ScopeRead, Params: []api.Param{{Name: "category", In: "query", Type: "string", Enum: reqrow.Categories(), Description: "only this category"}},
			Statuses: []int{200}, Response: vocabularySchema(), Handler: h.vocabulary},
	}
}

func withDesc(p api.Param, desc string) api.Param {
	p.Description = desc
	return p
}
