// Package reqrow is the JSON shape of a req as the read routes serve it (spec 2.3) and its JSON
// Schema, written once: api/companies and api/search embed Row in their rows and add the fields
// of their own routes to Props. It fills no row itself (each package reads its own model) and
// must not import a handler package.
package reqrow

import (
	"time"

	"github.com/planehq/hiringsignal/api"
)

// Row is a served req: raw_title always; title, function and country null when unknown;
// function_name null outside the named vocabulary; country_code derived from country; every
// board that lists it; the declared yearly-USD salary bounds.
type Row struct {
	ReqKey       string    `json:"req_key"`
	CompanyID    uint64    `json:"company_id"`
	RawTitle     string    `json:"raw_title"`
	Title        *string   `json:"title"`
	Function     *string   `json:"function"`
	FunctionName *string   `json:"function_name"`
	Country      *string   `json:"country"`
	CountryCode  *string   `json:"country_code"`
	Boards       []string  `json:"boards"`
	SourceType   string    `json:"source_type"`
	FirstSeen    time.Time `json:"first_seen"`
	SalaryMinUSD *float64  `json:"salary_min_usd"`
	SalaryMaxUSD *float64  `json:"salary_max_usd"`
}

// Props are the schema properties of Row, freshly built: a route's row schema adds its own
// fields to them.
func Props() map[string]any {
	return map[string]any{
		"req_key": api.Type("string"), "company_id": api.Type("integer"), "raw_title": api.Type("string"), "title": api.Nullable(api.Type("string")),
		"function": api.Nullable(api.Type("string")), "function_name": api.Nullable(api.Type("string")), "country": api.Nullable(api.Type("string")),
		"country_code": api.Nullable(api.Type("string")), "boards": api.ArrayOf("string"), "source_type": api.Enum("ats_tenant", "board"),
		"first_seen": api.DateTime(), "salary_min_usd": api.Nullable(api.Type("number")), "salary_max_usd": api.Nullable(api.Type("number")),
	}
}
