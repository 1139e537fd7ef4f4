package agent

// Tool is one curated tool: the /v1 route it runs and the route parameters (or body fields) it
// takes, by name, as the route declares them.
type Tool struct {
	Name        string
	Title       string
	Description string // what it returns and what it costs
	Route       string // operation name of the route it runs
	Args        []string
	ReadOnly    bool
	Destructive bool   // with !ReadOnly: it removes something (cancel)
	List        string // the member of the answer holding the page's rows (kept whole by concise)
	// Brief adds the company's is_hiring to a pre-action brief (derived, not a second call).
	Brief bool
	// Notes are shorter descriptions of some arguments than the route's (which the document
	// keeps): what a model needs to fill them in; "" leaves the description out.
	Notes map[string]string
	// Terse are arguments (objects) whose nested members' descriptions are left out: the note of
	// the argument says what they need.
	Terse []string
}

// conciseDrop are the members (at any depth) a concise answer leaves out: the req's normalized
// title, board, source and salary, the posting's secondary facts (its description, technologies,
// employment type, remote countries and regions, years, visa, stated pay: seniority and workplace type stay;
// a posting names up to eight technologies, which in every matched req of a 100-company page
// would not fit MaxResultBytes; company_technologies keeps its page, which is its answer's
// technologies), the pulse's secondary figures and weekly momentum, and duplicates (a
// function's id beside its name, a country beside its code).
var conciseDrop = []string{"title", "board", "boards", "url", "source_type", "salary_min_usd", "salary_max_usd", "estimate_samples", "salary_estimate_samples", "estimate_basis",
	"posted_at", "left_censored", "function_ids", "first_seen_cutoff", "freshness_floor_s",
	"function", "hq_country", "active_reqs", "velocity", "motion_as_of", "momentum", "observed_at", "relevance", "description",
	"technologies", "employment_type", "remote_countries", "remote_regions", "years_experience_min", "visa_sponsorship", "stated_pay"}

// MaxToolListBytes bounds the answer of tools/list: the catalogue is read into an agent's context
// on every connection.
const MaxToolListBytes = 12 << 10

// detailArg is the argument every tool that answers data takes.
const detailArg = "detail"

// What a tool's route meters, as its description states it.
const (
	costCall   = "Cost: 1 call, no units."
	costRows   = "Cost: 1 call + 1 source_row per row."
	costFree   = "Cost: free (rate-limited)."
	costEvents = "Cost: 1 call + 1 change per event (empty page: none)."
	costWatch  = "Cost: 1 call + 1 watch unit; takes a live-watch slot."
	pagedNote  = " Paged: cursor=next_cursor."
)

// Notes shared by several tools.
const (
	noteCountry   = "country name, e.g. Germany (not a code)"
	noteCountries = "country names, e.g. Germany (no codes)"
	noteFunction  = "function name or taxonomy id"
	noteTerms     = "substrings of the industry"
)

// criteriaNote is what a model needs to write a saved search (the route's description is the
// vocabulary's whole contract).
const criteriaNote = "Fields AND, values OR; a missing fact never matches. " +
	"industry_terms: substrings; req.q: all title words; q_excludes: veto phrases; function: name or id; countries: names."

// Tools are the curated tools (tools/list answers them in name order).
func Tools() []Tool {
	searchNotes := map[string]string{"geo": noteCountries, "industry": "", "industry_terms": noteTerms, "headcount_band": "", "cursor": "",
		"exclude_agencies": ""}
	// company leaves the route's descriptions of company_id and cursor out of a company tool:
	// resolve_company and the search tools say where a company_id comes from, pagedNote what a
	// cursor is.
	company := map[string]string{"company_id": "", "cursor": ""}
	return []Tool{
		{Name: "find_hiring_companies", Title: "Companies hiring for a role", Route: "reqs.search", ReadOnly: true, List: "companies",
			Description: "Companies hiring for a job title: one row each, with matching reqs and pulse; company_id feeds the company tools." +
				pagedNote + " " + costRows,
			Args:  []string{"q", "geo", "since", "source_type", "exclude_agencies", "industry", "industry_terms", "headcount_band", "cursor", "limit"},
			Notes: with(searchNotes, map[string]string{"q": "all words in the title"})},
		{Name: "company_hiring_brief", Title: "Company hiring brief", Route: "companies.pre_action_brief", ReadOnly: true, Brief: true,
			Description: "Before contacting a company: is_hiring, pulse, open reqs, first hires per function, reposts, ATS moves; " +
				"status crawling: call again. " + costCall,
			Args: []string{"company_id", "max_age"}, Notes: with(company, map[string]string{"max_age": "seconds; older is re-crawled"})},
		{Name: "company_open_reqs", Title: "A company's open reqs", Route: "companies.open_reqs", ReadOnly: true, List: "reqs",
			Description: "A company's open reqs, deduplicated across boards, newest first." + pagedNote + " " + costCall,
			Args:        []string{"company_id", "function", "country", "cursor", "limit"},
			Notes:       with(company, map[string]string{"country": noteCountry, "function": noteFunction})},
		{Name: "search_roles", Title: "Search roles", Route: "jobs.search", ReadOnly: true, List: "jobs",
			Description: "Open roles, one row per req, by relevance to q or recency." + pagedNote + " " + costRows,
			Args: []string{"q", "function", "geo", "since", "sort", "source_type", "exclude_agencies", "industry", "industry_terms", "headcount_band",
				"technologies", "seniority", "employment_type", "workplace_type", "cursor", "limit"},
			Notes: with(searchNotes, map[string]string{"geo": noteCountry, "q": "title words, ranked", "function": noteFunction,
				"cursor": "same sort", "technologies": "slugs or names, e.g. kafka", "seniority": "", "employment_type": "", "workplace_type": ""})},
		{Name: "company_technologies", Title: "A company's technologies", Route: "companies.technologies", ReadOnly: true, List: "technologies",
			Description: "Technologies a company's postings name: live, past and required reqs, first/last seen, evidence." +
				pagedNote + " " + costCall,
			Args: []string{"company_id", "cursor", "limit"}, Notes: company},
		{Name: "technology_companies", Title: "A technology's companies", Route: "technologies.companies", ReadOnly: true, List: "companies",
			Description: "Companies whose postings name a technology, newest first mention first." + pagedNote + " " + costRows,
			Args:        []string{"slug", "since", "live_only", "exclude_agencies", "cursor", "limit"},
			Notes: map[string]string{"slug": "slug or name, e.g. kafka", "since": "first mention lower bound", "exclude_agencies": "",
				"live_only": "a live req must name it", "cursor": ""}},
		{Name: "company_is_hiring", Title: "Is a company hiring?", Route: "companies.is_hiring", ReadOnly: true,
			Description: "Is a company hiring: is_hiring, open_req_count, coverage_status (null: not covered). " + costCall,
			Args:        []string{"company_id"}, Notes: company},
		{Name: "resolve_company", Title: "Resolve a company", Route: "companies.resolve", ReadOnly: true, List: "companies",
			Description: "company_id from a web domain or a name (exactly one): candidates, best first. " + costFree,
			Args:        []string{"domain", "name"}},
		{Name: "role_demand", Title: "Market demand for a role", Route: "markets.role_demand", ReadOnly: true,
			Description: "A role's reqs opened, reposted and closed per week, in a country or everywhere. " + costCall,
			Args:        []string{"role", "geo"}, Notes: map[string]string{"role": noteFunction, "geo": noteCountry}},
		{Name: "change_feed", Title: "Hiring changes", Route: "events.list", ReadOnly: true, List: "events",
			Description: "Hiring changes after since, ascending; page with since=next_cursor while has_more. " +
				"account_events: allowance warnings. " + costEvents,
			Args:  []string{"since", "limit", "company_id", "event_type"},
			Notes: map[string]string{"since": "the previous next_cursor (0: the start)", "limit": "", "company_id": "", "event_type": ""}},
		{Name: "create_watch", Title: "Watch a company or a search", Route: "watches.create",
			Description: "Push a company's (company_id) or a saved search's (q, geo, criteria) hiring changes to your webhook (webhook_endpoint_id, " +
				"or webhook_url, its secret answered once). " + costWatch,
			Args:  []string{"company_id", "criteria", "q", "geo", "webhook_endpoint_id", "webhook_url", "secret", "event_types", "max_fires_per_hour"},
			Terse: []string{"criteria"},
			Notes: map[string]string{"criteria": criteriaNote, "company_id": "the company to watch (not with criteria, q, geo)",
				"q": "shorthand for criteria.req.q", "geo": "shorthand for criteria.req.country",
				"webhook_endpoint_id": "your endpoint's id (or webhook_url)", "webhook_url": "public https URL to register",
				"secret":             "with webhook_url: whsec_ + base64 of 24-64 random bytes; default generated",
				"event_types":        "reobserved is off by default",
				"max_fires_per_hour": "more fires an hour are dropped"}},
		{Name: "list_watches", Title: "List watches", Route: "watches.list", ReadOnly: true, List: "watches",
			Description: "Your live watches: target, endpoint, fires, status (blocked_by_allowance: the month's delivered changes are used up). " + costFree,
			Args:        []string{}},
		{Name: "cancel_watch", Title: "Cancel a watch", Route: "watches.cancel", Destructive: true,
			Description: "Cancel a watch: its slot is free at once; idempotent. " + costFree,
			Args:        []string{"watch_id"}},
	}
}

// with is base with more's notes added (more wins).
func with(base, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}
