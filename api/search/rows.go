package search

import (
	"time"

	"github.com/planehq/hiringsignal/pipeline/normalize"
	"github.com/planehq/hiringsignal/readmodel"
	"github.com/planehq/hiringsignal/searchindex"
)

// reqRow is a req as reqs/search (matched_reqs) serves it.
type reqRow struct {
	ReqKey       string   `json:"req_key"`
	CompanyID    uint64   `json:"company_id"`
	RawTitle     string   `json:"raw_title"`
	Title        *string  `json:"title"`
	Function     *string  `json:"function"`
	FunctionName *string  `json:"function_name"`
	Country      *string  `json:"country"`
	CountryCode  *string  `json:"country_code"`
	Board        string   `json:"board"`
	Boards       []string `json:"boards"`
	SourceType   string   `json:"source_type"`
	FirstSeen    string   `json:"first_seen"`
	URL          *string  `json:"url"`
	salary
}

// salary: the declared yearly-USD bounds; when none were declared and the req's function and
// country have at least searchindex.MinSalarySamples declared salaries, both bounds carry the
// inferred median and salary_estimate_samples says how many salaries it came from.
type salary struct {
	SalaryMinUSD          *float64 `json:"salary_min_usd"`
	SalaryMaxUSD          *float64 `json:"salary_max_usd"`
	SalaryEstimateSamples *int     `json:"salary_estimate_samples"`
}

func salaryOf(x *searchindex.Index, r *searchindex.Req) salary {
	lo, hi := r.DeclaredSalary()
	if lo != nil || hi != nil {
		return salary{SalaryMinUSD: lo, SalaryMaxUSD: hi}
	}
	if e, ok := x.SalaryEstimate(r); ok {
		m, n := e.MedianUSD, e.Samples
		return salary{SalaryMinUSD: &m, SalaryMaxUSD: &m, SalaryEstimateSamples: &n}
	}
	return salary{}
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
	return strPtr(normalize.CountryCode(name))
}

func newReqRow(x *searchindex.Index, r *searchindex.Req) reqRow {
	return reqRow{
		ReqKey: r.Key, CompanyID: r.CompanyID, RawTitle: r.Title.Raw, Title: strPtr(r.Title.Clean),
		Function: strPtr(r.Function), FunctionName: functionName(r.Function),
		Country: strPtr(r.Country), CountryCode: countryCode(r.Country),
		Board: r.Board, Boards: r.Boards, SourceType: r.SourceType, FirstSeen: ts(r.FirstSeen), URL: strPtr(r.URL),
		salary: salaryOf(x, r),
	}
}

// jobRow is one jobs/search row (one logical req); jobs/role adds the full boards list.
type jobRow struct {
	Board        string   `json:"board"`
	CompanyID    uint64   `json:"company_id"`
	ReqKey       string   `json:"req_key"`
	RawTitle     string   `json:"raw_title"`
	Title        *string  `json:"title"`
	FirstSeen    string   `json:"first_seen"`
	Function     *string  `json:"function"`
	FunctionName *string  `json:"function_name"`
	Country      *string  `json:"country"`
	CountryCode  *string  `json:"country_code"`
	SourceType   string   `json:"source_type"`
	Relevance    *float64 `json:"relevance"`
}

func newJobRow(r *searchindex.Req, rel *float64) jobRow {
	return jobRow{
		Board: r.Board, CompanyID: r.CompanyID, ReqKey: r.Key, RawTitle: r.Title.Raw, Title: strPtr(r.Title.Clean),
		FirstSeen: ts(r.FirstSeen), Function: strPtr(r.Function), FunctionName: functionName(r.Function),
		Country: strPtr(r.Country), CountryCode: countryCode(r.Country), SourceType: r.SourceType, Relevance: rel,
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

func (h *handlers) pulse(id uint64) *readmodel.Pulse {
	if h.d.Pulses == nil {
		return nil
	}
	p, ok := h.d.Pulses.Pulse(id)
	if !ok {
		return nil
	}
	return &p
}
