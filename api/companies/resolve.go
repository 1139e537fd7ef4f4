package companies

import (
	"strings"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/readmodel"
)

// resolvedCompany is a companies/resolve answer: who the company is and whether we cover it, no
// hiring signal.
type resolvedCompany struct {
	CompanyID       uint64  `json:"company_id"`
	Name            string  `json:"name"`
	Domain          string  `json:"domain"`
	HQCountry       *string `json:"hq_country"`
	HQCountryCode   *string `json:"hq_country_code"`
	CountryCode     *string `json:"country_code"`
	CoverageStatus  string  `json:"coverage_status"`
	MatchConfidence float64 `json:"match_confidence"`
}

type resolveView struct {
	Companies []resolvedCompany `json:"companies"`
}

func resolveSchema() map[string]any {
	return api.Object(map[string]any{"companies": map[string]any{"type": "array", "maxItems": 5, "items": api.Object(map[string]any{
		"company_id": api.Type("integer"), "name": api.Type("string"), "domain": api.Type("string"), "hq_country": api.Nullable(api.Type("string")),
		"hq_country_code": api.Nullable(api.Type("string")), "country_code": api.Nullable(api.Type("string")),
		"coverage_status": api.Enum("covered", "no_ats_signal"), "match_confidence": api.Type("number")})}})
}

func resolved(co *readmodel.Company, conf float64) resolvedCompany {
	cc := nullable.String(co.HQCountryCode())
	return resolvedCompany{CompanyID: co.ID, Name: co.Name, Domain: co.Domain, HQCountry: nullable.String(co.HQCountry()), HQCountryCode: cc,
		CountryCode: cc, CoverageStatus: co.Coverage(), MatchConfidence: conf}
}

// resolve: exactly one of domain or name. A domain gives the companies registered at it
// (match_confidence 1.0); a name up to five candidates. No match is an empty array, never 404.
func (h *handlers) resolve(c *api.Call) (int, error) {
	domain, hasDomain := c.String("domain")
	name, hasName := c.String("name")
	domain, name = strings.TrimSpace(domain), strings.TrimSpace(name)
	hasDomain, hasName = hasDomain && domain != "", hasName && name != ""
	switch {
	case hasDomain && hasName:
		return 0, api.Invalid(problem.ValueError(map[string]any{"domain": domain, "name": name},
			"send exactly one of domain or name, not both", "query", "domain"))
	case !hasDomain && !hasName:
		return 0, api.Invalid(problem.ValueError(nil, "send exactly one of domain or name (neither was sent)", "query", "domain"))
	}
	if err := h.ready(); err != nil {
		return 0, err
	}
	m := h.d.Snapshots.Current().Model
	out := resolveView{Companies: []resolvedCompany{}}
	if hasDomain {
		for _, co := range m.ByDomain(domain) {
			out.Companies = append(out.Companies, resolved(co, readmodel.ConfidenceExact))
		}
	} else {
		for _, cand := range m.ResolveName(name, ResolveMax) {
			out.Companies = append(out.Companies, resolved(cand.Company, cand.Confidence))
		}
	}
	return 0, c.JSON(200, out)
}
