package pipeline

import (
	"strings"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/pipeline/ats"
)

// observation is one normalized posting: the output of the normalize stage.
type observation struct {
	companyID  uint64
	reqKey     string
	titleKey   string
	rawTitle   string
	title      string
	function   string
	country    string
	location   string
	sourceKey  string
	sourceID   string
	board      string
	sourceType string
	url        string
	reqID      string
	postedAt   time.Time
	salary     bool
	salLo      float64
	salHi      float64
	// salaryDropped: the posting published pay that is not served (unknown currency or period,
	// or implausible per normalize.YearlyUSD); counted as CycleStats.SalaryDropped.
	salaryDropped bool
	// terms are what the feed states of the posting in structured fields; facts what the posting
	// states of itself (describe.go): nil until read, and for a posting whose req has no event
	// this cycle (nothing reads them). Shared by the copies of an observation: never written
	// after describe.
	terms postingTerms
	facts *analytics.Facts
	// later is what reading the facts needs, where the normalize stage left them to be read once
	// every posting is in (describeLater, deduper.readFacts); nil once read, and kept until its
	// req is released by a copy of a role no event reads.
	later *laterRead
	// textLen is the length of the posting's cleaned description (0: none), set by describe: the
	// fuller of two texts of a req is read for its facts (eventFrom).
	textLen int
}

// Sighting is what one posting gives its req (Config.OnSighting).
type Sighting struct {
	SourceKey, SourceID, ReqKey string
	URL                         string // link to the real posting
	Country                     string // canonical country name; "" when unknown
	Salary                      bool   // a plausible yearly-USD salary is served
	SalaryMinUSD, SalaryMaxUSD  float64
	SalaryDropped               bool // published pay that is not served
}

func (o *observation) sighting() Sighting {
	return Sighting{SourceKey: o.sourceKey, SourceID: o.sourceID, ReqKey: o.reqKey, URL: o.url, Country: o.country,
		Salary: o.salary, SalaryMinUSD: o.salLo, SalaryMaxUSD: o.salHi, SalaryDropped: o.salaryDropped}
}

// resolver maps postings to known companies and normalizes them. Read-only after construction.
type resolver struct {
	byDomain map[string]*companyInfo
	byName   map[string]*companyInfo
}

type companyInfo struct {
	id      uint64
	company Company
}

func newResolver(companies []Company) *resolver {
	r := &resolver{byDomain: make(map[string]*companyInfo, len(companies)), byName: make(map[string]*companyInfo, len(companies))}
	for _, c := range companies {
		ci := &companyInfo{id: CompanyID(c.Domain), company: c}
		r.byDomain[normalize.DomainKey(c.Domain)] = ci
		if k := normalize.CompanyKey(c.Name); k != "" {
			if _, dup := r.byName[k]; !dup {
				r.byName[k] = ci
			}
		}
	}
	return r
}

// company finds the employer of a posting: the tenant's company for ATS sources; for boards the
// domain the posting names, else its name with legal suffixes dropped.
func (r *resolver) company(src *Source, p *ats.Posting) *companyInfo {
	if src.CompanyDomain != "" {
		return r.byDomain[normalize.DomainKey(src.CompanyDomain)]
	}
	if p.CompanyDomain != "" {
		if ci := r.byDomain[normalize.DomainKey(p.CompanyDomain)]; ci != nil {
			return ci
		}
	}
	if p.CompanyName != "" {
		return r.byName[normalize.CompanyKey(p.CompanyName)]
	}
	return nil
}

// observe normalizes one posting; ok is false when the company cannot be resolved or the title
// normalizes to nothing.
func (r *resolver) observe(src *Source, p *ats.Posting) (observation, bool) {
	ci := r.company(src, p)
	if ci == nil {
		return observation{}, false
	}
	tk := normalize.TitleKey(stripOwnPlace(p.Title, p.Location, p.City))
	if tk == "" {
		return observation{}, false
	}
	// An ATS tenant is the employer's own feed: a posting without a country is in its HQ country.
	country := normalize.PostingCountry(p.Country, p.Location, ci.company.HQCountry, src.Kind == "ats_tenant")
	o := observation{
		companyID:  ci.id,
		titleKey:   tk,
		rawTitle:   p.Title,
		title:      normalize.CleanTitle(p.Title),
		country:    country,
		location:   strings.TrimSpace(p.Location),
		sourceKey:  src.Key,
		sourceID:   p.SourceID,
		board:      src.BoardName(),
		sourceType: src.SourceType(),
		url:        p.URL,
		reqID:      p.RequisitionID,
		postedAt:   p.PostedAt,
		terms:      termsOf(p),
	}
	if fn, ok := normalize.Classify(p.Title); ok {
		o.function = fn
	}
	if p.Salary != nil {
		if lo, hi, ok := normalize.YearlyUSD(p.Salary.Min, p.Salary.Max, p.Salary.Currency, p.Salary.Period); ok {
			o.salary, o.salLo, o.salHi = true, lo, hi
			o.terms.paid = true
		} else {
			o.salaryDropped = true
		}
	}
	o.reqKey = ReqKey(o.companyID, o.titleKey, o.country)
	return o, true
}

func nameKey(name string) string { return normalize.CompanyKey(name) }

// stripOwnPlace drops a trailing place segment (" - Berlin", ", Querétaro", " – Remote") from a
// title when it names the posting's own location, so "Analyst, Cambridge" and "Analyst" collapse
// even for cities no list knows. A gender tag after the place is kept for TitleKey to drop.
func stripOwnPlace(title, location, city string) string {
	core, tag := title, ""
	if t := strings.TrimSpace(title); strings.HasSuffix(t, ")") {
		if i := strings.LastIndex(t, " ("); i > 0 {
			core, tag = t[:i], t[i:]
		}
	}
	best := -1
	bestLen := 0
	for _, sep := range []string{" - ", " – ", " — ", ", ", " | ", " / "} {
		if i := strings.LastIndex(core, sep); i > best {
			best, bestLen = i, len(sep)
		}
	}
	if best <= 0 {
		return title
	}
	tail := strings.Join(normalize.Tokens(core[best+bestLen:]), " ")
	if tail == "" {
		return title
	}
	if tail == "remote" || tail == "hybrid" || tail == "onsite" || tail == "on site" {
		return core[:best] + tag
	}
	for _, part := range strings.FieldsFunc(location+","+city, func(r rune) bool { return r == ',' || r == '-' || r == '–' || r == '/' || r == '|' }) {
		if strings.Join(normalize.Tokens(part), " ") == tail {
			return core[:best] + tag
		}
	}
	return title
}
