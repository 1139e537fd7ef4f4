// Package reqrow is the JSON shape of a req as the read routes serve it (spec 2.3) and its JSON
// Schema, written once: api/companies and api/search embed Row in their rows and add the fields
// of their own routes to Props. It fills no row itself (each package reads its own model).
//
// It is a shared package, not a handler package: it serves and registers no route. Handler
// packages never import one another; besides package api itself, this is the one package under
// api/ they share (it stays apart from api because the row is the read side's, built over
// package searchindex, which the HTTP framework does not import). It must not import a handler
// package.
package reqrow

import (
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// Row is a served req: raw_title always; title, function and country null when unknown;
// function_name null outside the named vocabulary; country_code derived from country; every
// board that lists it; the declared yearly-USD salary bounds (null unless the employer published
// them) and the one salary object every route serves for the req.
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
	Salary       *Salary   `json:"salary"`
	// SalaryEstimateSamples is the spec's name for salary.estimate_samples (Req resource, 2.3):
	// the number of declared salaries behind an estimate, null when the salary is declared or
	// absent. Set with SetSalary.
	SalaryEstimateSamples *int       `json:"salary_estimate_samples"`
	LeftCensored          bool       `json:"left_censored"`
	PostedAt              *time.Time `json:"posted_at"`
}

// SetSalary sets the row's salary object and the spec's salary_estimate_samples beside it.
func (r *Row) SetSalary(s *Salary) {
	r.Salary = s
	r.SalaryEstimateSamples = nil
	if s != nil {
		r.SalaryEstimateSamples = s.EstimateSamples
	}
}

// Salary is the req's one salary, the same on every route: kind "declared" carries the
// employer's published yearly-USD range in min_usd/max_usd (either may be null: a one-sided
// range); kind "estimated" carries only estimate_usd, the median of estimate_samples declared
// salaries of estimate_basis for seniority, and is never written into the range fields. Null when
// the req declared nothing and too few declared salaries are alike.
type Salary struct {
	Kind            string   `json:"kind"`
	MinUSD          *float64 `json:"min_usd"`
	MaxUSD          *float64 `json:"max_usd"`
	EstimateUSD     *float64 `json:"estimate_usd"`
	EstimateSamples *int     `json:"estimate_samples"`
	EstimateBasis   *string  `json:"estimate_basis"`
	Seniority       *string  `json:"seniority"`
}

// SalaryOf is the served salary object of s (nil when none).
func SalaryOf(s searchindex.Salary) *Salary {
	switch s.Kind {
	case searchindex.SalaryDeclared:
		return &Salary{Kind: s.Kind, MinUSD: s.MinUSD, MaxUSD: s.MaxUSD}
	case searchindex.SalaryEstimated:
		return EstimateOf(s.Estimate)
	}
	return nil
}

// EstimateOf is the served salary object of an estimate.
func EstimateOf(e searchindex.SalaryEstimate) *Salary {
	v, n, b := e.MedianUSD, e.Samples, e.Basis
	out := &Salary{Kind: searchindex.SalaryEstimated, EstimateUSD: &v, EstimateSamples: &n, EstimateBasis: &b}
	if e.Seniority != "" {
		sen := e.Seniority
		out.Seniority = &sen
	}
	return out
}

// SalarySchema is the schema of Salary (nullable).
func SalarySchema() map[string]any {
	s := api.Object(map[string]any{
		"kind":             api.Enum(searchindex.SalaryDeclared, searchindex.SalaryEstimated),
		"min_usd":          api.Nullable(api.Type("number")),
		"max_usd":          api.Nullable(api.Type("number")),
		"estimate_usd":     api.Nullable(api.Type("number")),
		"estimate_samples": api.Nullable(api.Type("integer")),
		"estimate_basis": map[string]any{"type": []any{"string", "null"},
			"enum": []any{searchindex.BasisFunctionCountrySeniority, searchindex.BasisFunctionCountryScaled, searchindex.BasisFunctionCountry, nil}},
		"seniority": api.Nullable(api.Type("string")),
	})
	s["description"] = "The req's one salary, identical on every route. kind declared: the employer's published yearly-USD range in min_usd/max_usd (estimate_* null). " +
		"kind estimated: nothing was published; estimate_usd is the median of estimate_samples (>= 5) declared salaries of the same function and country — " +
		"and seniority (estimate_basis function_country_seniority), or scaled by the seniority's corpus-wide pay ratio (function_country_scaled), or unscaled when the title names no seniority the corpus can scale (function_country); min_usd/max_usd stay null. " +
		"Null when neither exists."
	return api.Nullable(s)
}

// Props are the schema properties of Row, freshly built: a route's row schema adds its own
// fields to them.
func Props() map[string]any {
	return map[string]any{
		"req_key": api.Type("string"), "company_id": api.Type("integer"), "raw_title": api.Type("string"), "title": api.Nullable(api.Type("string")),
		"function": api.Nullable(api.Type("string")), "function_name": api.Nullable(api.Type("string")), "country": api.Nullable(api.Type("string")),
		"country_code": api.Nullable(api.Type("string")), "boards": api.ArrayOf("string"), "source_type": api.Enum("ats_tenant", "board"),
		"first_seen": api.DateTime(), "salary_min_usd": declaredOnly(), "salary_max_usd": declaredOnly(), "salary": SalarySchema(),
		"left_censored": leftCensored(), "posted_at": postedAt(), "salary_estimate_samples": estimateSamples(),
	}
}

func estimateSamples() map[string]any {
	s := api.Nullable(api.Type("integer"))
	s["description"] = "salary.estimate_samples under the spec's name: the declared salaries (>= 5) behind an estimated salary; null when the salary is declared or there is none"
	return s
}

func declaredOnly() map[string]any {
	s := api.Nullable(api.Type("number"))
	s["description"] = "the employer's declared yearly-USD bound; null when not published (an estimate is never written here: see salary)"
	return s
}

func leftCensored() map[string]any {
	s := api.Type("boolean")
	s["description"] = "true when the req was already live at the company's coverage start (the first committed cycle that read its region): first_seen is then when observation began, not when the req opened, and the req counts in no first-hire, momentum or role-demand flow"
	return s
}

// URLSchema is the url of a served req: the link to the real posting.
func URLSchema() map[string]any {
	s := api.Nullable(api.Type("string"))
	s["description"] = "link to the real posting, as the board of the req's latest observation published it; null when the source gave none " +
		"(or, on a company read, for a req closed longer than the search index keeps)"
	return s
}

func postedAt() map[string]any {
	s := api.Nullable(api.DateTime())
	s["description"] = "the employer's own posting date as its source states it (Personio createdAt, JSON-LD datePosted, Greenhouse first_published, ...); kept from the first observation that carried one (a later observation without a date, or a repost's later date, does not replace it); null when no source gave one. Informational: first_seen stays the crawl's first sighting"
	return s
}
