package search

import (
	"fmt"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// reqsSearch serves GET /v1/reqs/search: companies hiring for a title, ascending company_id after
// the cursor. A row (one source_row unit) is a company of the page: its matched_reqs are part of
// that row. next_cursor is the highest company_id of the page, absent on the last page.
func (h *handlers) reqsSearch(c *api.Call, snap *snapshot.Snapshot) (int, error) {
	x := snap.Index
	var p criteria.Problems
	q, _ := c.String("q")
	if fe := criteria.CheckQ(q, "query", "q"); fe != nil {
		p.Add(*fe)
	}
	checkRepeated(c, &p, "geo", "industry", "industry_terms", "headcount_band")
	if err := invalid(&p); err != nil {
		return 0, err
	}
	geo, errs := criteria.CountryNames(c.Strings("geo"), "query", "geo")
	p.Add(errs...)
	f := commonFilter(c, x)
	f.Countries = geo
	p.Add(factFilters(c, &f)...)
	after, _ := c.Int("cursor")
	expand, _ := c.Bool("expand")
	inc := includesOf(c.Strings("include"))
	perCompany, _ := c.Int("matched_reqs")
	if inc.description && int(perCompany)*c.Limit() > analytics.MaxDescriptionsRead {
		p.Add(problem.ValueError(perCompany, fmt.Sprintf("include=description reads at most %d descriptions a page: lower limit (%d) or matched_reqs (%d) so that limit × matched_reqs is at most %d",
			analytics.MaxDescriptionsRead, c.Limit(), perCompany, analytics.MaxDescriptionsRead), "query", "matched_reqs"))
	}
	if err := invalid(&p); err != nil {
		return 0, err
	}
	if perCompany == 0 {
		perCompany = -1 // the index's "none listed"
	}
	cq := searchindex.CompanyQuery{Q: q, Literal: !expand, Filter: f, After: uint64(after), Limit: c.Limit(), MaxReqs: int(perCompany)}
	page := x.SearchCompanies(cq)

	out := struct {
		freshness
		paging
		Companies  []companyRow `json:"companies"`
		NextCursor *uint64      `json:"next_cursor,omitempty"`
	}{freshness: freshnessOf(c, x), paging: pagingOf(page.More, x.CountCompanies(cq)), Companies: make([]companyRow, 0, len(page.Companies))}
	var reqs []*searchindex.Req
	var rows []*reqRow
	for _, hit := range page.Companies {
		co := hit.Company
		row := companyRow{CompanyID: co.ID, CompanyName: nullable.String(co.Name), CompanyDomain: nullable.String(co.Domain),
			HQCountry: nullable.String(co.HQCountry), CountryCode: countryCode(co.HQCountry), Pulse: flooredPulse(snap, f.FreshBefore, co.ID, inc),
			MatchedReqCount: hit.MatchedCount, MatchedReqs: make([]reqRow, 0, len(hit.Reqs))}
		for _, r := range hit.Reqs {
			row.MatchedReqs = append(row.MatchedReqs, newReqRow(x, r))
		}
		out.Companies = append(out.Companies, row)
	}
	if inc.description {
		for i := range out.Companies {
			for j := range out.Companies[i].MatchedReqs {
				rows = append(rows, &out.Companies[i].MatchedReqs[j])
				reqs = append(reqs, page.Companies[i].Reqs[j])
			}
		}
		if err := h.describe(c, reqs, func(i int, text string, ok bool) { rows[i].SetDescription(text, ok) }); err != nil {
			return 0, err
		}
	}
	if page.More && len(page.Companies) > 0 {
		id := page.Companies[len(page.Companies)-1].Company.ID
		out.NextCursor = &id
	}
	return len(out.Companies), c.JSON(200, out)
}

// checkRepeated bounds the repeatable query parameters names: at most criteria.MaxCriterionValues values
// of at most criteria.MaxValueLength characters each.
func checkRepeated(c *api.Call, p *criteria.Problems, names ...string) {
	for _, name := range names {
		vals := c.Strings(name)
		if len(vals) > criteria.MaxCriterionValues {
			p.Add(criteria.TooLong(len(vals), criteria.MaxCriterionValues, "query", name))
			continue
		}
		for i, v := range vals {
			if fe := criteria.CheckValue(v, "query", name, i); fe != nil {
				p.Add(*fe)
			}
		}
	}
}

// invalid is the 422 of the problems collected, nil without any.
func invalid(p *criteria.Problems) error {
	if items := p.Items(); len(items) > 0 {
		return api.Invalid(items...)
	}
	return nil
}

// factFilters reads the posting-fact filters (technologies, seniority, employment_type,
// workplace_type) into f through the criteria's one parser, returning its 422 items.
func factFilters(c *api.Call, f *searchindex.Filter) []problem.FieldError {
	var errs []problem.FieldError
	for _, name := range criteria.FactFilterNames {
		vals := c.Strings(name)
		if len(vals) == 0 {
			continue
		}
		got, es := criteria.FactValues(name, vals, "query", name)
		errs = append(errs, es...)
		switch name {
		case criteria.FactTechnologies:
			f.Technologies = got
		case criteria.FactSeniority:
			f.Seniority = got
		case criteria.FactEmploymentType:
			f.EmploymentTypes = got
		case criteria.FactWorkplaceType:
			f.WorkplaceTypes = got
		}
	}
	return errs
}

// commonFilter reads the filters reqs/search and jobs/search share (the chain validated them).
func commonFilter(c *api.Call, x *searchindex.Index) searchindex.Filter {
	f := searchindex.Filter{FreshBefore: freshBefore(c, x), Industry: c.Strings("industry"),
		IndustryTerms: c.Strings("industry_terms"), Headcount: c.Strings("headcount_band")}
	f.Since, _ = c.Time("since")
	f.SourceType, _ = c.String("source_type")
	f.ExcludeAgencies, _ = c.Bool("exclude_agencies")
	return f
}
