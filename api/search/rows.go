package search

import (
	"maps"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// reqRow is a req as reqs/search (matched_reqs) serves it: the served req, the board it was
// first seen on and its URL.
type reqRow struct {
	reqrow.Row
	Board string  `json:"board"`
	URL   *string `json:"url"`
}

func reqSchema() map[string]any {
	p := reqrow.Props() // with the posting's facts (reqrow.FactsProps)
	p["board"] = api.Type("string")
	p["url"] = reqrow.URLSchema()
	return api.Object(p)
}

// salaryOf is the req's one salary object (reqrow.Salary): declared range, else estimate, else nil.
func salaryOf(x *searchindex.Index, r *searchindex.Req) *reqrow.Salary {
	return reqrow.SalaryOf(x.Salary(r))
}

func ts(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }

func functionName(id string) *string {
	if n, ok := normalize.FunctionName(id); ok {
		return &n
	}
	return nil
}

func countryCode(name string) *string {
	if name == "" {
		return nil
	}
	return nullable.String(normalize.CountryCode(name))
}

func newReqRow(x *searchindex.Index, r *searchindex.Req) reqRow {
	lo, hi := r.DeclaredSalary()
	row := reqRow{
		Row: reqrow.Row{ReqKey: r.Key, CompanyID: r.CompanyID, RawTitle: r.Title.Raw, Title: nullable.String(r.Title.Clean),
			Function: nullable.String(r.Function()), FunctionName: functionName(r.Function()),
			Country: nullable.String(r.Country()), CountryCode: countryCode(r.Country()),
			Boards: r.Boards(), SourceType: r.SourceType(), FirstSeen: time.Unix(r.FirstSeen, 0).UTC(),
			SalaryMinUSD: lo, SalaryMaxUSD: hi, LeftCensored: x.LeftCensored(r), PostedAt: r.PostedAtTime(), Facts: reqrow.FactsOf(x.Facts(r))},
		Board: r.Board(), URL: nullable.String(r.URL),
	}
	row.SetSalary(salaryOf(x, r))
	return row
}

// jobRow is one jobs/search row (one logical req); jobs/role adds the full boards list.
type jobRow struct {
	Board        string         `json:"board"`
	URL          *string        `json:"url"`
	CompanyID    uint64         `json:"company_id"`
	ReqKey       string         `json:"req_key"`
	RawTitle     string         `json:"raw_title"`
	Title        *string        `json:"title"`
	FirstSeen    string         `json:"first_seen"`
	Function     *string        `json:"function"`
	FunctionName *string        `json:"function_name"`
	Country      *string        `json:"country"`
	CountryCode  *string        `json:"country_code"`
	SourceType   string         `json:"source_type"`
	Relevance    *float64       `json:"relevance"`
	Salary       *reqrow.Salary `json:"salary"`
	LeftCensored bool           `json:"left_censored"`
	PostedAt     *time.Time     `json:"posted_at"`
	reqrow.Facts
}

// jobRowProps are the schema properties of jobRow.
func jobRowProps() map[string]any {
	reqProps := reqrow.Props()
	p := map[string]any{
		"board": api.Type("string"), "url": reqrow.URLSchema(), "company_id": api.Type("integer"), "req_key": api.Type("string"), "raw_title": api.Type("string"), "title": api.Nullable(api.Type("string")),
		"first_seen": api.DateTime(), "function": api.Nullable(api.Type("string")), "function_name": api.Nullable(api.Type("string")), "country": api.Nullable(api.Type("string")),
		"country_code": api.Nullable(api.Type("string")), "source_type": api.Enum("ats_tenant", "board"), "relevance": api.Nullable(api.Type("number")),
		"salary": reqrow.SalarySchema(), "left_censored": reqProps["left_censored"], "posted_at": reqProps["posted_at"],
	}
	maps.Copy(p, reqrow.FactsProps())
	return p
}

func newJobRow(x *searchindex.Index, r *searchindex.Req, rel *float64) jobRow {
	return jobRow{
		Board: r.Board(), URL: nullable.String(r.URL), CompanyID: r.CompanyID, ReqKey: r.Key, RawTitle: r.Title.Raw, Title: nullable.String(r.Title.Clean),
		FirstSeen: ts(r.FirstSeen), Function: nullable.String(r.Function()), FunctionName: functionName(r.Function()),
		Country: nullable.String(r.Country()), CountryCode: countryCode(r.Country()), SourceType: r.SourceType(), Relevance: rel,
		Salary: salaryOf(x, r), LeftCensored: x.LeftCensored(r), PostedAt: r.PostedAtTime(), Facts: reqrow.FactsOf(x.Facts(r)),
	}
}

// companyRow is one reqs/search company.
type companyRow struct {
	CompanyID       uint64           `json:"company_id"`
	CompanyName     *string          `json:"company_name"`
	CompanyDomain   *string          `json:"company_domain"`
	HQCountry       *string          `json:"hq_country"`
	CountryCode     *string          `json:"country_code"`
	Pulse           *readmodel.Pulse `json:"pulse"`
	MatchedReqCount int              `json:"matched_req_count"`
	MatchedReqs     []reqRow         `json:"matched_reqs"`
}

// pulseSchema is a company's pulse as the search routes serve it (readmodel.Pulse, or null).
func pulseSchema() map[string]any {
	return api.Nullable(api.Object(map[string]any{
		"company_id": api.Type("integer"), "coverage_status": api.Type("string"), "is_hiring": api.Nullable(api.Type("boolean")),
		"open_req_count": api.Nullable(api.Type("integer")), "active_reqs": api.Nullable(api.Type("integer")), "new_roles_30d": api.Nullable(api.Type("integer")),
		"velocity": api.Nullable(api.Type("number")), "direction": api.Nullable(api.Type("string")), "is_surge": api.Nullable(api.Type("boolean")),
		"momentum":     map[string]any{"type": []any{"array", "null"}, "items": weekSchema(), "description": "null unless include=momentum (reqs/search) or include: [\"momentum\"] (reqs/qualified): the full weekly history"},
		"motion_as_of": api.Nullable(api.DateTime()),
	}))
}

func reqsSearchSchema() map[string]any {
	co := api.Object(map[string]any{
		"company_id": api.Type("integer"), "company_name": api.Nullable(api.Type("string")), "company_domain": api.Nullable(api.Type("string")),
		"hq_country": api.Nullable(api.Type("string")), "country_code": api.Nullable(api.Type("string")), "pulse": pulseSchema(),
		"matched_req_count": api.Type("integer"), "matched_reqs": map[string]any{"type": "array", "items": reqSchema(), "maxItems": 50},
	})
	s := api.Object(metaProps(map[string]any{"companies": map[string]any{"type": "array", "items": co},
		"next_cursor": api.Optional(map[string]any{"type": "integer", "description": "highest company_id of the page; absent on the last page"})}, "companies matching this query across every page (the cursor aside)"))
	s["description"] = "One source_row unit per company row. matched_reqs: the company's newest matching reqs, as many as the matched_reqs parameter asks (default 5, at most 50; matched_req_count counts them all). " +
		"Under a freshness floor each pulse counts only the reqs first seen at or before first_seen_cutoff, as the rows do."
	return s
}
