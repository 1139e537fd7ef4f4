package api

import "github.com/planehq/hiringsignal/oltp"

// MeterClass says how a route is metered; "" means not billable (never metered, never paused,
// no quota or spend cap).
type MeterClass string

// Meter classes (spec 1). MeterCall is a metered call that serves no unit (company reads): it
// counts against the daily quota but adds nothing to spend.
const (
	MeterNone      MeterClass = ""
	MeterCall      MeterClass = oltp.MeterCall
	MeterSourceRow MeterClass = oltp.MeterSourceRow
	MeterChange    MeterClass = oltp.MeterChange
	MeterWatch     MeterClass = oltp.MeterWatch
)

// Scopes of a key. read: every GET read and search; write: webhooks, watches, outcomes,
// quickstart, replays and imports; keys: key management, pause and resume.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
	ScopeKeys  = "keys"
)

// AllScopes are the values POST /v1/keys accepts.
var AllScopes = []string{ScopeRead, ScopeWrite, ScopeKeys}

// Param is one path, query or header parameter of a route. The chain validates it before the
// handler runs (422 in the FastAPI shape) and applies its default.
type Param struct {
	Name        string
	In          string // path, query or header
	Type        string // integer, string, boolean, date-time
	Required    bool
	Repeatable  bool // query only: repeating ORs the values; otherwise a repeat is 422
	Min, Max    *int64
	Default     any
	Enum        []string
	AliasOf     string // a deprecated name answered exactly as AliasOf
	Sunset      string // with AliasOf: date (YYYY-MM-DD) after which the alias is refused
	Description string
}

// Field is one member of a JSON request body.
type Field struct {
	Name        string
	Type        string // string, integer, number, boolean, object, array
	Items       string // element type of an array
	Enum        []string
	Required    bool
	Forbidden   bool // present in the contract only to be refused (422), e.g. tier on POST /v1/keys
	Description string
}

// Body describes a JSON request body.
type Body struct {
	Required bool
	Fields   []Field
	Open     bool // accepts fields not listed (shapes the spec does not show yet)
}

// Route is one operation of the contract: the router, the chain and the OpenAPI document are
// all built from this table.
type Route struct {
	Name       string // operation id
	Method     string
	Path       string
	Summary    string
	Tag        string
	Meter      MeterClass
	Keyless    bool   // callable without a key (per-IP limit)
	Scope      string // scope the key needs; "" for any key
	Gate       string // entry of a plan's gated_endpoints the route needs; "" when ungated
	Idempotent bool   // honours Idempotency-Key
	Params     []Param
	Body       *Body
	Statuses   []int          // what the handler itself answers (the chain adds its own)
	Response   map[string]any // JSON Schema of the success body; nil = an object not detailed yet
	Issue      string         // the issue that builds the handler; the route answers 501 until then
	Public     bool           // outside the /v1 chain: no key, no limit (health, readiness, OpenAPI)
}

// Billable reports whether the route is metered (pause, quota and spend cap apply).
func (r *Route) Billable() bool { return r.Meter != MeterNone }

func i64(v int64) *int64 { return &v }

// Page bounds of the paged endpoints; the demo key is capped at DemoPageLimit.
const (
	DemoPageLimit   = 5
	SearchPageMax   = 100
	OpenReqsPageMax = 200
	EventsPageMax   = 1000
	UsageWindowMax  = 2160 // hours (90 days)
)

var (
	pCompanyID = Param{Name: "company_id", In: "path", Type: "integer", Required: true, Min: i64(1), Description: "company_id as returned by reqs/search and company reads"}
	pMaxAge    = Param{Name: "max_age", In: "query", Type: "integer", Min: i64(0), Max: i64(30 * 86400), Description: "seconds; demand data at most this old (202 crawling otherwise)"}
	pFunction  = Param{Name: "function", In: "query", Type: "string", Description: "function name or taxonomy id; anything else is 422 listing the names"}
	pGeoOne    = Param{Name: "geo", In: "query", Type: "string", Description: "country name"}
	pSince     = Param{Name: "since", In: "query", Type: "date-time", Description: "lower bound on first_seen"}
	pSource    = Param{Name: "source_type", In: "query", Type: "string", Enum: []string{"ats_tenant", "board"}}
	pExclAg    = Param{Name: "exclude_agencies", In: "query", Type: "boolean", Default: false}
	pIndustry  = Param{Name: "industry", In: "query", Type: "string", Repeatable: true}
	pIndTerms  = Param{Name: "industry_terms", In: "query", Type: "string", Repeatable: true}
	pHeadcount = Param{Name: "headcount_band", In: "query", Type: "string", Repeatable: true,
		Enum: []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001+"}}
	pIdemKey = Param{Name: "Idempotency-Key", In: "header", Type: "string", Description: "same key and request within 24 h answers the stored response, metered once"}
)

func searchLimit(def int64) Param {
	return Param{Name: "limit", In: "query", Type: "integer", Min: i64(1), Max: i64(SearchPageMax), Default: def}
}

const (
	issueReads = "company reads and search"
	issuePush  = "push: webhooks, watches and deliveries"
	issueIntel = "outcomes, attribution and intent"
	issueConn  = "resolution, connector and migration import"
)

var (
	schemaKey = obj(map[string]any{
		"key_id": typ("integer"), "display": typ("string"), "scopes": arr("string"), "tier": typ("string"),
		"created_at": dt(), "last_used_at": nullable(dt()), "revoked_at": nullable(dt()), "parent_key_id": nullable(typ("integer")),
	})
	schemaIssuedKey = func() map[string]any {
		s := obj(map[string]any{"key": typ("string")})
		for k, v := range schemaKey["properties"].(map[string]any) {
			s["properties"].(map[string]any)[k] = v
		}
		return s
	}()
	schemaAccount = obj(map[string]any{"account_id": typ("integer"), "account_status": enum("active", "paused"), "paused": typ("boolean")})
)

// Contract returns the route table: every route of the spec plus health, readiness, the OpenAPI
// document and the schema changelog. The slice is freshly built.
func Contract() []*Route {
	return []*Route{
		// Outside /v1.
		{Name: "healthz", Method: "GET", Path: "/healthz", Summary: "Process is up", Tag: "health", Public: true, Statuses: []int{200}},
		{Name: "readyz", Method: "GET", Path: "/readyz", Summary: "Both stores answer and are migrated", Tag: "health", Public: true, Statuses: []int{200, 503}},
		{Name: "openapi", Method: "GET", Path: "/openapi.json", Summary: "This OpenAPI 3.1 document", Tag: "meta", Public: true, Statuses: []int{200}},

		// 4.1 Account and keys.
		{Name: "whoami", Method: "GET", Path: "/v1/whoami", Summary: "The presented key's customer, account, tier and scopes (connection test; never billed)", Tag: "account",
			Statuses: []int{200}, Response: obj(map[string]any{"customer_id": typ("string"), "account_id": typ("integer"), "key_id": typ("integer"),
				"tier": typ("string"), "tier_name": typ("string"), "scopes": arr("string"), "demo": typ("boolean")})},
		{Name: "quickstart", Method: "POST", Path: "/v1/quickstart", Summary: "Code snippets with the caller's key and an auto-created watch delivering to webhook_url", Tag: "account",
			Scope: ScopeWrite, Body: &Body{Required: true, Open: true, Fields: []Field{{Name: "webhook_url", Type: "string", Required: true, Description: "HTTPS endpoint receiving the signed deliveries"}}},
			Statuses: []int{200}, Issue: issuePush},
		{Name: "onboarding", Method: "GET", Path: "/v1/onboarding", Summary: "Onboarding steps: first watch, first signed delivery, 80% quota nudge", Tag: "account",
			Params:   []Param{{Name: "webhook_url", In: "query", Type: "string", Required: true}, {Name: "domain", In: "query", Type: "string"}},
			Statuses: []int{200}, Issue: issuePush},
		{Name: "keys.list", Method: "GET", Path: "/v1/keys", Summary: "Every key of the caller's customer, active and revoked", Tag: "keys", Scope: ScopeKeys,
			Statuses: []int{200}, Response: obj(map[string]any{"keys": map[string]any{"type": "array", "items": schemaKey}})},
		{Name: "keys.issue", Method: "POST", Path: "/v1/keys", Summary: "Mint a key on the caller's account and tier (shown once)", Tag: "keys", Scope: ScopeKeys,
			Body: &Body{Fields: []Field{
				{Name: "scopes", Type: "array", Items: "string", Enum: AllScopes, Description: "subset of the presenting key's scopes; default: the same scopes"},
				{Name: "tier", Type: "string", Forbidden: true, Description: "refused (422): the tier is the account's"},
			}},
			Statuses: []int{201}, Response: schemaIssuedKey},
		{Name: "keys.revoke", Method: "DELETE", Path: "/v1/keys/{key_id}", Summary: "Revoke a key (takes effect on the next call everywhere)", Tag: "keys", Scope: ScopeKeys,
			Params: []Param{{Name: "key_id", In: "path", Type: "integer", Required: true, Min: i64(1)}}, Statuses: []int{204, 404}},
		{Name: "keys.rotate", Method: "POST", Path: "/v1/keys/{key_id}/rotate", Summary: "Mint a replacement on the same account and revoke key_id, in one call", Tag: "keys", Scope: ScopeKeys,
			Params: []Param{{Name: "key_id", In: "path", Type: "integer", Required: true, Min: i64(1)}},
			Body: &Body{Required: true, Fields: []Field{
				{Name: "scopes", Type: "array", Items: "string", Enum: AllScopes, Description: "default: the rotated key's scopes"},
				{Name: "tier", Type: "string", Forbidden: true, Description: "refused (422)"},
			}},
			Statuses: []int{201, 404}, Response: schemaIssuedKey},
		{Name: "usage", Method: "GET", Path: "/v1/usage", Summary: "Metered totals of the customer and per key over a window", Tag: "usage",
			Params:   []Param{{Name: "window", In: "query", Type: "integer", Min: i64(1), Max: i64(UsageWindowMax), Default: int64(24), Description: "hours"}},
			Statuses: []int{200}, Response: usageSchema()},
		{Name: "usage.dashboard", Method: "GET", Path: "/v1/usage/dashboard", Summary: "Quota, spend cap, nudges, free-tier allowance and blocked deliveries", Tag: "usage",
			Statuses: []int{200}, Response: dashboardSchema()},
		{Name: "account.pause", Method: "POST", Path: "/v1/account/pause", Summary: "Pause the account: billable routes answer 403 account_paused", Tag: "account", Scope: ScopeKeys,
			Statuses: []int{200}, Response: schemaAccount},
		{Name: "account.resume", Method: "POST", Path: "/v1/account/resume", Summary: "Resume the account", Tag: "account", Scope: ScopeKeys,
			Statuses: []int{200}, Response: schemaAccount},
		{Name: "pricing", Method: "GET", Path: "/v1/pricing", Summary: "Plans, source price, rate limits and compliance summary", Tag: "account", Keyless: true,
			Statuses: []int{200}, Response: pricingSchema()},
		{Name: "compliance", Method: "GET", Path: "/v1/compliance", Summary: "Compliance statement", Tag: "account", Keyless: true,
			Statuses: []int{200}, Response: obj(map[string]any{"headline": typ("string"), "summary": typ("string"), "statement": arr("string"), "sources": arr("string"), "excluded": arr("string")})},
		{Name: "changelog", Method: "GET", Path: "/v1/changelog", Summary: "Schema changes of this API, newest first", Tag: "meta", Keyless: true,
			Statuses: []int{200}, Response: obj(map[string]any{"changes": map[string]any{"type": "array", "items": obj(map[string]any{
				"id": typ("integer"), "recorded_at": dt(), "api_version": typ("string"), "doc_hash": typ("string"), "endpoints_changed": arr("string")})}})},

		// 4.2 Company reads.
		withResponse(companyRead("companies.is_hiring", "is-hiring", "Is-hiring gate", nil, []int{200, 202, 404}, "is-hiring"), isHiringSchema()),
		withResponse(companyRead("companies.open_reqs", "open-reqs", "Open reqs deduplicated across boards", []Param{pFunction,
			{Name: "country", In: "query", Type: "string", Description: "country name"},
			{Name: "limit", In: "query", Type: "integer", Min: i64(1), Max: i64(OpenReqsPageMax), Default: int64(50)}}, []int{200, 404}, "open-reqs"), openReqsSchema()),
		withResponse(companyRead("companies.enrichment", "enrichment", "Firmographics from ATS and boards", nil, []int{200, 404}, "enrichment"), enrichmentSchema()),
		withResponse(companyRead("companies.hiring_pulse", "hiring-pulse", "Velocity, direction, momentum", []Param{pMaxAge}, []int{200, 202, 404}, "hiring-pulse"), obj(companyPulseProps())),
		withResponse(companyRead("companies.first_hire", "first-hire", "Earliest first-in-function event per function", []Param{pFunction}, []int{200, 404}, "first-hire"), firstHiresSchema()),
		withResponse(companyRead("companies.repost_pain", "repost-pain", "Hard-to-fill reqs by repost_count", nil, []int{200, 404}, "repost-pain"), repostPainSchema()),
		withResponse(companyRead("companies.ats_migrations", "ats-migrations", "ATS vendor migrations", nil, []int{200, 404}, "ats-migrations"), migrationsSchema()),
		withResponse(companyRead("companies.pre_action_brief", "pre-action-brief", "Motion and history pre-joined", []Param{pMaxAge}, []int{200, 202, 404}, "pre-action-brief"), briefSchema()),
		{Name: "companies.intent", Method: "GET", Path: "/v1/companies/{company_id}/intent", Summary: "Calibrated intent score", Tag: "companies",
			Meter: MeterCall, Scope: ScopeRead, Params: []Param{pCompanyID}, Statuses: []int{200, 404}, Issue: issueIntel},
		{Name: "companies.outcomes", Method: "POST", Path: "/v1/companies/{company_id}/outcomes", Summary: "Append a conversion outcome to the caller's labels", Tag: "companies",
			Scope: ScopeWrite, Params: []Param{pCompanyID}, Body: &Body{Required: true, Open: true, Fields: []Field{{Name: "outcome", Type: "string", Required: true}}},
			Statuses: []int{201, 404}, Issue: issueIntel},
		{Name: "companies.resolve", Method: "GET", Path: "/v1/companies/resolve", Summary: "Resolve a company by domain or name (exactly one)", Tag: "companies",
			Scope: ScopeRead, Params: []Param{{Name: "domain", In: "query", Type: "string"}, {Name: "name", In: "query", Type: "string"}},
			Statuses: []int{200}, Response: resolveSchema(), Issue: issueReads},
		{Name: "crawl_jobs.get", Method: "GET", Path: "/v1/crawl-jobs/{job_id}", Summary: "An on-demand crawl started by a 202 crawling answer: its status and, once done, result_url", Tag: "companies",
			Scope: ScopeRead, Params: []Param{{Name: "job_id", In: "path", Type: "integer", Required: true, Min: i64(1)}}, Statuses: []int{200, 404}, Issue: issueReads,
			Response: obj(map[string]any{"job_id": typ("integer"), "company_id": typ("integer"), "status": enum("crawling", "done", "failed"),
				"requested_at": dt(), "finished_at": nullable(dt()), "result_url": nullable(typ("string")), "error": nullable(typ("string"))})},

		// 4.3 Search.
		{Name: "reqs.search", Method: "GET", Path: "/v1/reqs/search", Summary: "Companies hiring for a title, deduplicated by company", Tag: "search",
			Meter: MeterSourceRow, Scope: ScopeRead, Gate: "reqs/search", Idempotent: true, Params: []Param{
				{Name: "q", In: "query", Type: "string", Description: "full-text over raw_title; every word must match"},
				{Name: "role", In: "query", Type: "string", AliasOf: "q", Sunset: "2026-11-09", Description: "deprecated name of q"},
				{Name: "geo", In: "query", Type: "string", Repeatable: true, Description: "country name; repeating ORs"},
				pSince, pSource, pExclAg, pIndustry, pIndTerms, pHeadcount,
				{Name: "cursor", In: "query", Type: "integer", Min: i64(0), Description: "the previous page's next_cursor (companies with a higher company_id)"}, searchLimit(20), pIdemKey},
			Statuses: []int{200}, Response: reqsSearchSchema(), Issue: issueReads},
		{Name: "reqs.qualified", Method: "POST", Path: "/v1/reqs/qualified", Summary: "Live reqs matching an ICP (closed criteria vocabulary)", Tag: "search",
			Meter: MeterSourceRow, Scope: ScopeRead, Idempotent: true, Params: []Param{pIdemKey},
			Body: &Body{Required: true, Fields: []Field{
				{Name: "criteria", Type: "object", Description: CriteriaVocabularyDoc},
				{Name: "salary_min_usd", Type: "number", Description: "yearly USD, >= 0; alone a half-open band; with salary_max_usd it brackets one figure per row (declared midpoint, else the inferred median of the function and country from at least 5 declared salaries); a req with no figure matches no band; min > max is 422"},
				{Name: "salary_max_usd", Type: "number", Description: "yearly USD, >= 0 (see salary_min_usd)"},
				{Name: "exclude_agencies", Type: "boolean", Description: "default true: drops staffing agencies, subcontractor networks, aggregators and job boards"},
				{Name: "live_only", Type: "boolean", Description: "default true; false adds reqs closed in the last 30 days"},
				{Name: "include_pulse", Type: "boolean", Description: "default false; adds companies: the pulse of every company on the page keyed by company_id (not billed)"},
				{Name: "cursor", Type: "integer", Description: "the previous next_cursor (>= 0): only reqs that opened in the ledger after it"},
				{Name: "limit", Type: "integer", Description: "rows per page, 1..100 (demo key 1..5), default 20; out of range is 422"}}},
			Statuses: []int{200}, Response: qualifiedSchema(), Issue: issueReads},
		{Name: "jobs.search", Method: "GET", Path: "/v1/jobs/search", Summary: "Flat role search, one row per logical req", Tag: "search",
			Meter: MeterSourceRow, Scope: ScopeRead, Gate: "jobs/search", Idempotent: true, Params: []Param{
				pFunction, pGeoOne, pSince, {Name: "q", In: "query", Type: "string"},
				{Name: "sort", In: "query", Type: "string", Enum: []string{"relevance", "recency"}},
				pSource, pExclAg, pIndustry, pIndTerms, pHeadcount,
				{Name: "cursor", In: "query", Type: "string", Description: "opaque: the previous page's next_cursor, replayed with the same sort (another sort is 422)"}, searchLimit(20), pIdemKey},
			Statuses: []int{200}, Response: jobsSearchSchema(), Issue: issueReads},
		{Name: "jobs.role", Method: "GET", Path: "/v1/jobs/role", Summary: "One role's detail (404, never metered, when missing, closed or below the floor)", Tag: "search",
			Meter: MeterCall, Scope: ScopeRead, Params: []Param{
				{Name: "company_id", In: "query", Type: "integer", Required: true, Min: i64(1)},
				{Name: "req_key", In: "query", Type: "string", Required: true}},
			Statuses: []int{200, 404}, Response: jobsRoleSchema(), Issue: issueReads},
		{Name: "markets.role_demand", Method: "GET", Path: "/v1/markets/role-demand", Summary: "Market-wide weekly demand for a role", Tag: "search",
			Meter: MeterCall, Scope: ScopeRead, Gate: "role-demand", Params: []Param{
				{Name: "role", In: "query", Type: "string", Required: true, Description: "function taxonomy id (a function name covers its ids); unresolvable is 422 listing the names"}, pGeoOne},
			Statuses: []int{200}, Response: roleDemandSchema(), Issue: issueReads},

		// 4.4 Change feed, webhooks, watches, deliveries.
		{Name: "events", Method: "GET", Path: "/v1/events", Summary: "Ledger events after a cursor, ascending by event_seq", Tag: "events",
			Meter: MeterChange, Scope: ScopeRead, Gate: "/v1/events", Params: []Param{
				{Name: "since", In: "query", Type: "integer", Min: i64(0), Default: int64(0)},
				{Name: "limit", In: "query", Type: "integer", Min: i64(1), Max: i64(EventsPageMax), Default: int64(100)}},
			Statuses: []int{200}, Issue: issueReads},
		{Name: "webhooks.register", Method: "POST", Path: "/v1/webhooks", Summary: "Register a webhook endpoint (idempotent on url)", Tag: "push",
			Scope: ScopeWrite, Body: &Body{Required: true, Fields: []Field{{Name: "url", Type: "string", Required: true}, {Name: "secret", Type: "string"}}},
			Statuses: []int{200, 201}, Issue: issuePush},
		{Name: "watches.create", Method: "POST", Path: "/v1/watches", Summary: "Create a watch (one watch unit)", Tag: "push",
			Meter: MeterWatch, Scope: ScopeWrite, Gate: "POST /v1/watches", Body: &Body{Required: true, Open: true, Fields: []Field{
				{Name: "company_id", Type: "integer"}, {Name: "criteria", Type: "object"}, {Name: "webhook_endpoint_id", Type: "integer"},
				{Name: "event_types", Type: "array", Items: "string"}, {Name: "max_fires_per_hour", Type: "integer"}}},
			Statuses: []int{201, 404}, Issue: issuePush},
		{Name: "watches.list", Method: "GET", Path: "/v1/watches", Summary: "The caller's live watches, newest first", Tag: "push", Scope: ScopeRead,
			Statuses: []int{200}, Issue: issuePush},
		{Name: "watches.cancel", Method: "DELETE", Path: "/v1/watches/{watch_id}", Summary: "Cancel a watch (204; no-op when already canceled)", Tag: "push", Scope: ScopeWrite,
			Params: []Param{{Name: "watch_id", In: "path", Type: "integer", Required: true, Min: i64(1)}}, Statuses: []int{204, 404}, Issue: issuePush},
		{Name: "deliveries.list", Method: "GET", Path: "/v1/webhook-deliveries", Summary: "The caller's deliveries, most recent first", Tag: "push", Scope: ScopeRead,
			Statuses: []int{200}, Issue: issuePush},
		{Name: "deliveries.get", Method: "GET", Path: "/v1/webhook-deliveries/{delivery_id}", Summary: "One delivery's detail", Tag: "push", Scope: ScopeRead,
			Params: []Param{{Name: "delivery_id", In: "path", Type: "string", Required: true}}, Statuses: []int{200, 404}, Issue: issuePush},
		{Name: "deliveries.replay", Method: "POST", Path: "/v1/webhook-deliveries/{delivery_id}/replay", Summary: "Reopen a delivery for the next dispatcher tick", Tag: "push", Scope: ScopeWrite,
			Params: []Param{{Name: "delivery_id", In: "path", Type: "string", Required: true}}, Statuses: []int{200, 404}, Issue: issuePush},
		{Name: "attribution", Method: "GET", Path: "/v1/attribution", Summary: "Outcome labels joined to delivered signals", Tag: "push", Scope: ScopeRead,
			Statuses: []int{200}, Issue: issueIntel},

		// 4.5 Connector and migration.
		{Name: "connector.enrich", Method: "POST", Path: "/v1/connector/enrich", Summary: "Flat company enrichment and pulse for a partner tool (a miss still meters)", Tag: "connector",
			Meter: MeterCall, Scope: ScopeRead, Gate: "connector/enrich", Body: &Body{Required: true, Open: true, Fields: []Field{
				{Name: "domain", Type: "string"}, {Name: "name", Type: "string"}}},
			Statuses: []int{200}, Issue: issueConn},
		{Name: "migration.import", Method: "POST", Path: "/v1/migration-import", Summary: "Import a company list from another vendor", Tag: "connector",
			Scope: ScopeWrite, Body: &Body{Required: true, Open: true}, Statuses: []int{200}, Issue: issueConn},
	}
}

func companyRead(name, seg, summary string, extra []Param, statuses []int, gate string) *Route {
	return &Route{Name: name, Method: "GET", Path: "/v1/companies/{company_id}/" + seg, Summary: summary, Tag: "companies",
		Meter: MeterCall, Scope: ScopeRead, Gate: gate, Idempotent: seg == "is-hiring" || seg == "open-reqs" || seg == "enrichment" || seg == "hiring-pulse",
		Params: append(append([]Param{pCompanyID}, extra...), idemIf(seg)...), Statuses: statuses, Issue: issueReads}
}

func idemIf(seg string) []Param {
	switch seg {
	case "is-hiring", "open-reqs", "enrichment", "hiring-pulse":
		return []Param{pIdemKey}
	}
	return nil
}
