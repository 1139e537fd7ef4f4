// Package reqrow is the JSON shape of a req as the read routes serve it (spec 2.3) and its JSON
// Schema, written once: api/companies and api/search embed Row in their rows and add the fields
// of their own routes to Props. It fills no row itself (each package reads its own model). The
// technographics' shapes (a technology of the vocabulary, how a company's reqs name one) are
// written here too, for the same two packages (technology.go).
//
// It is a shared package, not a handler package: it serves and registers no route. Handler
// packages never import one another; besides package api itself, this is the one package under
// api/ they share (it stays apart from api because the row is the read side's, built over
// package searchindex, which the HTTP framework does not import). It must not import a handler
// package.
package reqrow

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
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
	Facts
}

// Facts are what a req's posting states of itself, read by the crawl from its feed's structured
// fields first and its title and description for the gaps: every field null when the posting does
// not say it (nothing is guessed). Description is present only when the call asked for it
// (include=description; always on jobs/role): the cleaned text, or null when the posting has none.
type Facts struct {
	Technologies       []Technology    `json:"technologies"`
	Seniority          *string         `json:"seniority"`
	EmploymentType     *string         `json:"employment_type"`
	WorkplaceType      *string         `json:"workplace_type"`
	RemoteCountries    []string        `json:"remote_countries"`
	RemoteRegions      []string        `json:"remote_regions"`
	YearsExperienceMin *int            `json:"years_experience_min"`
	VisaSponsorship    *bool           `json:"visa_sponsorship"`
	StatedPay          *StatedPay      `json:"stated_pay"`
	Description        json.RawMessage `json:"description,omitempty"`
}

// Technology is one technology a posting names: required true when named by the title or as a
// requirement, false when named only as a nice-to-have, null when the posting does not separate
// them (named in the duties, the stack, the company's text).
type Technology struct {
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Required *bool  `json:"required"`
}

// StatedPay is pay the posting's text states when its feed declares none, as written: never
// converted, never used by the salary object, filters or estimates. source is always "text".
type StatedPay struct {
	Min      *float64 `json:"min"`
	Max      *float64 `json:"max"`
	Currency string   `json:"currency"`
	// CurrencyInferred: the text wrote a bare "$" and currency is the crawl's reading of it.
	CurrencyInferred bool    `json:"currency_inferred"`
	Period           *string `json:"period"`
	Text             string  `json:"text"`
	Source           string  `json:"source"`
}

// FactsOf is the served form of an index req's facts (Description left out).
func FactsOf(f searchindex.Facts) Facts {
	out := Facts{Seniority: nullable.String(f.Seniority), EmploymentType: nullable.String(f.EmploymentType),
		WorkplaceType: nullable.String(f.WorkplaceType), RemoteCountries: f.RemoteCountries, RemoteRegions: f.RemoteRegions,
		YearsExperienceMin: f.YearsMin,
		VisaSponsorship:    f.Visa}
	for _, t := range f.Technologies {
		tech := Technology{Slug: t.Slug, Name: t.Name}
		switch {
		case t.Required:
			tech.Required = new(true)
		case t.NiceToHave:
			tech.Required = new(false)
		}
		out.Technologies = append(out.Technologies, tech)
	}
	if p := f.StatedPay; p != nil {
		out.StatedPay = statedPayOf(p)
	}
	return out
}

func statedPayOf(p *analytics.StatedPay) *StatedPay {
	return &StatedPay{Min: p.Min, Max: p.Max, Currency: p.Currency, CurrencyInferred: p.CurrencyInferred, Period: nullable.String(p.Period), Text: p.Text,
		Source: jobtext.PaySourceText}
}

// Descriptions reads the cleaned descriptions of a page's reqs (req_key → the hash its snapshot
// names) in one bounded query with a deadline; *snapshot.Service implements it. A req whose text
// is not found is absent from the answer.
type Descriptions interface {
	Descriptions(ctx context.Context, want map[string]uint64) (map[string]string, error)
}

// Describe answers the description of every req of a page (set, by position in reqs): one read
// of their texts through d. A read that fails or outlives its deadline is 503 with Retry-After,
// never rows without their descriptions; so is a page that asks for descriptions where d is nil.
func Describe(c *api.Call, d Descriptions, log *slog.Logger, reqs []*searchindex.Req, set func(i int, text string, ok bool)) error {
	want := make(map[string]uint64, len(reqs))
	for _, r := range reqs {
		if r == nil {
			continue
		}
		if hash := r.DescriptionHash(); hash != 0 {
			want[r.Key] = hash
		}
	}
	var texts map[string]string
	if len(want) > 0 {
		if d == nil {
			return api.Unavailable("Descriptions (no description store is configured)", nil)
		}
		var err error
		if texts, err = d.Descriptions(c.Context(), want); err != nil {
			log.Warn("cannot read descriptions", "reqs", len(want), "err", err)
			e := api.Unavailable("Descriptions (the description store did not answer in time)", nil)
			e.Headers = map[string]string{"Retry-After": "5"}
			return e
		}
	}
	for i, r := range reqs {
		text, ok := "", false
		if r != nil {
			text, ok = texts[r.Key]
		}
		set(i, text, ok)
	}
	return nil
}

// SetDescription answers the description: text, or null when the posting has none (ok false).
func (f *Facts) SetDescription(text string, ok bool) {
	if !ok {
		f.Description = json.RawMessage("null")
		return
	}
	b, _ := json.Marshal(text) // a string always marshals
	f.Description = b
}

// FactsProps are the schema properties of Facts (description optional: only when asked for).
func FactsProps() map[string]any {
	tech := api.Object(map[string]any{"slug": api.Type("string"), "name": api.Type("string"),
		"required": withDesc(api.Nullable(api.Type("boolean")), "true: named by the title or as a requirement; false: named only as a nice-to-have; null: the posting does not separate them")})
	techs := map[string]any{"type": []any{"array", "null"}, "items": tech, "maxItems": analytics.MaxTechnologies,
		"description": "technologies the title and description name, in the order first named (slugs of one vocabulary: the technologies filter's); null when none",
		"example":     []any{map[string]any{"slug": "go", "name": "Go", "required": true}, map[string]any{"slug": "kafka", "name": "Kafka", "required": false}}}
	pay := api.Nullable(api.Object(map[string]any{"min": api.Nullable(api.Type("number")), "max": api.Nullable(api.Type("number")),
		"currency": api.Type("string"), "period": api.Nullable(api.Enum("year", "month", "week", "day", "hour")), "text": api.Type("string"),
		"currency_inferred": withDesc(api.Type("boolean"), "true when the text wrote a bare \"$\" and currency is our reading of it: the dollar of the req's country (Canada, Australia, New Zealand, Singapore, Hong Kong, Mexico), except USD on a remote role open to the United States; else USD"),
		"source":            api.Enum(jobtext.PaySourceText)}))
	pay["description"] = "pay stated only in the posting's text (labelled source text, not declared by the feed), as written: never converted to USD and never used by salary, salary filters or estimates; null when the text states none or the feed declares pay"
	pay["example"] = map[string]any{"min": 150000, "max": 180000, "currency": "USD", "currency_inferred": true, "period": "year", "text": "$150,000 - $180,000 per year", "source": "text"}
	countries := map[string]any{"type": []any{"array", "null"}, "items": api.Type("string"), "maxItems": analytics.MaxRemoteCountries,
		"description": "for a remote role, the countries the posting says it is open to (country names); null when it names none", "example": []any{"United States", "Canada"}}
	return map[string]any{
		"technologies":     techs,
		"seniority":        withExample(withDesc(api.Nullable(api.Enum(normalize.Seniorities...)), "the seniority the posting states: its title's words, else its feed's experience level, else its description's; null when none says"), "senior"),
		"employment_type":  withExample(withDesc(api.Nullable(api.Enum(normalize.EmploymentTypes...)), "the feed's employment type, else the description's; null when neither says (or says two that exclude each other)"), "full_time"),
		"workplace_type":   withExample(withDesc(api.Nullable(api.Enum(normalize.WorkplaceTypes...)), "the feed's workplace type (a remote flag is remote), else the description's; null when neither says"), "remote"),
		"remote_countries": countries,
		"remote_regions": map[string]any{"type": []any{"array", "null"}, "items": api.Enum(normalize.RemoteRegions...), "maxItems": len(normalize.RemoteRegions),
			"description": "for a remote role, the wider areas the posting or its location says it is open to (\"Remote - EMEA\"), beside remote_countries; null when it names none",
			"example":     []any{"emea"}},
		"years_experience_min": withExample(withDesc(api.Nullable(map[string]any{"type": "integer", "minimum": 0, "maximum": 50}), "the least years of experience the posting asks for (the feed's, else the description's); null when none"), 5),
		"visa_sponsorship":     withExample(withDesc(api.Nullable(api.Type("boolean")), "true when the description offers visa sponsorship, false when it rules it out; null when it does not say (or says both)"), true),
		"stated_pay":           pay,
		"description":          api.Optional(DescriptionSchema()),
	}
}

// DescriptionSchema is the schema of a req's description.
func DescriptionSchema() map[string]any {
	desc := api.Nullable(api.Type("string"))
	desc["description"] = "only with include=description (always on jobs/role): the posting's description as plain text with paragraph breaks (HTML and entities decoded, scripts and styles dropped), at most " +
		"16 KiB; null when the posting has none. Not billed separately: the row is the unit"
	desc["maxLength"] = analytics.MaxDescription
	desc["example"] = "We build the payments platform.\n\nRequirements\n\n- 5+ years of experience with Go and PostgreSQL"
	return desc
}

func withDesc(s map[string]any, d string) map[string]any {
	s["description"] = d
	return s
}

func withExample(s map[string]any, e any) map[string]any {
	s["example"] = e
	return s
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
	p := map[string]any{
		"req_key": api.Type("string"), "company_id": api.Type("integer"), "raw_title": api.Type("string"), "title": api.Nullable(api.Type("string")),
		"function": api.Nullable(api.Type("string")), "function_name": api.Nullable(api.Type("string")), "country": api.Nullable(api.Type("string")),
		"country_code": api.Nullable(api.Type("string")), "boards": api.ArrayOf("string"), "source_type": api.Enum("ats_tenant", "board"),
		"first_seen": api.DateTime(), "salary_min_usd": declaredOnly(), "salary_max_usd": declaredOnly(), "salary": SalarySchema(),
		"left_censored": leftCensored(), "posted_at": postedAt(), "salary_estimate_samples": estimateSamples(),
	}
	maps.Copy(p, FactsProps())
	return p
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
