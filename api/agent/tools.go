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
}

// conciseDrop are the members (at any depth) a concise answer leaves out: the req's normalized
// title, board, source and salary, the pulse's secondary figures and weekly momentum, and
// duplicates (a function's id beside its name, a country beside its code).
var conciseDrop = []string{"title", "board", "boards", "url", "source_type", "salary_min_usd", "salary_max_usd", "estimate_samples", "salary_estimate_samples", "estimate_basis",
	"posted_at", "left_censored", "function_ids", "first_seen_cutoff", "freshness_floor_s",
	"function", "hq_country", "active_reqs", "velocity", "motion_as_of", "momentum", "observed_at", "relevance", "description"}

// detailArg is the argument every tool that answers data takes.
const detailArg = "detail"

// What a tool's route meters, as its description states it.
const (
	costCall   = "Cost: one metered call against the daily quota, no units."
	costRows   = "Cost: one metered call plus one source_row unit per row returned (limit caps it)."
	costFree   = "Cost: free (not metered), but counted in the per-key 60-second rate limit."
	costEvents = "Cost: one metered call plus one change unit per event returned (an empty page costs no unit)."
	costWatch  = "Cost: one metered call plus one watch unit; counts against the plan's live-watch allowance."
	pagedNote  = " Paged: pass next_cursor back as cursor for the next page; absent on the last page."
)

// Tools are the curated tools (tools/list answers them in name order).
func Tools() []Tool {
	return []Tool{
		{Name: "find_hiring_companies", Title: "Find companies hiring for a role", Route: "reqs.search", ReadOnly: true, List: "companies",
			Description: "Companies currently hiring for a job title (every word of q must match a posting title), deduplicated by company: each row has the company " +
				"(company_id, name, domain, country), how many matching reqs it has open and the newest of them, and its hiring pulse. Filter by country (geo), " +
				"first_seen (since), industry, headcount band, source type, and leave staffing agencies out. Use company_id with the company tools." + pagedNote + " " + costRows,
			Args: []string{"q", "geo", "since", "source_type", "exclude_agencies", "industry", "industry_terms", "headcount_band", "cursor", "limit"}},
		{Name: "company_hiring_brief", Title: "Company hiring brief", Route: "companies.pre_action_brief", ReadOnly: true, Brief: true,
			Description: "Everything to know before contacting a company about hiring, in one call: is_hiring (true when it has open reqs, null when it is not covered), " +
				"its hiring pulse (velocity, direction, weekly momentum), the first open reqs and their total, first hires per function, hard-to-fill reposts and ATS migrations. " +
				"A company whose data is older than max_age answers status crawling (call again shortly). " + costCall,
			Args: []string{"company_id", "max_age"}},
		{Name: "company_open_reqs", Title: "A company's open reqs", Route: "companies.open_reqs", ReadOnly: true, List: "reqs",
			Description: "A company's open reqs (deduplicated across boards: one row per title and country), newest first, optionally for one function or country; " +
				"total counts them all, limit bounds the rows." + pagedNote + " " + costCall,
			Args: []string{"company_id", "function", "country", "cursor", "limit"}},
		{Name: "search_roles", Title: "Search roles", Route: "jobs.search", ReadOnly: true, List: "jobs",
			Description: "Flat search of open roles, one row per logical req (title, company, country, function, first_seen, boards), ranked by relevance to q or by recency; " +
				"filter by function, country (geo), first_seen (since), industry, headcount band and source type." + pagedNote + " " + costRows,
			Args: []string{"q", "function", "geo", "since", "sort", "source_type", "exclude_agencies", "industry", "industry_terms", "headcount_band", "cursor", "limit"}},
		{Name: "company_is_hiring", Title: "Is a company hiring?", Route: "companies.is_hiring", ReadOnly: true,
			Description: "Whether a company is hiring now: is_hiring, open_req_count and coverage_status (null answers when the company's sources are not covered). " + costCall,
			Args:        []string{"company_id"}},
		{Name: "resolve_company", Title: "Resolve a company", Route: "companies.resolve", ReadOnly: true, List: "companies",
			Description: "Find a company's company_id from its web domain or its name (exactly one of them): candidates with company_id, name, domain, country, " +
				"coverage_status and match_confidence, best first. " + costFree,
			Args: []string{"domain", "name"}},
		{Name: "role_demand", Title: "Market demand for a role", Route: "markets.role_demand", ReadOnly: true,
			Description: "Market-wide weekly demand for a role (a function name or taxonomy id) in a country or everywhere: reqs opened, reposted and closed per week, oldest first. " + costCall,
			Args:        []string{"role", "geo"}},
		{Name: "change_feed", Title: "Hiring changes since a cursor", Route: "events.list", ReadOnly: true, List: "events",
			Description: "The change feed: reqs opened, reposted, reobserved and closed after the cursor since, ascending, optionally for some companies or event types. " +
				"Store next_cursor and pass it as since next time to never miss or repeat an event; has_more says to page again now. " +
				"An event with after_gap happened somewhere in that interval (the crawl had a gap), not when it was observed; close_reason says why a close was no ordinary one. " + costEvents,
			Args: []string{"since", "limit", "company_id", "event_type"}},
		{Name: "create_watch", Title: "Watch a company or a search", Route: "watches.create",
			Description: "Watch one company (company_id) or one saved search (q, geo or criteria) and have its hiring changes POSTed to a webhook endpoint of yours " +
				"(webhook_endpoint_id, or webhook_url to register one; a new endpoint's secret is answered once). Answers the watch with its watch_id. " + costWatch,
			Args: []string{"company_id", "criteria", "q", "geo", "webhook_endpoint_id", "webhook_url", "secret", "event_types", "max_fires_per_hour"}},
		{Name: "list_watches", Title: "List watches", Route: "watches.list", ReadOnly: true, List: "watches",
			Description: "Your live watches, newest first, with what each watches, its endpoint, fire counters and heartbeat. " + costFree,
			Args:        []string{}},
		{Name: "cancel_watch", Title: "Cancel a watch", Route: "watches.cancel", Destructive: true,
			Description: "Cancel a watch by watch_id: its slot in the plan's allowance is free at once; canceling again succeeds too. " + costFree,
			Args:        []string{"watch_id"}},
	}
}
