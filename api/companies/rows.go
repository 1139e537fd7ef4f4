package companies

import (
	"strings"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// reqRow is one served req (spec 2.3) and how often it was reposted.
type reqRow struct {
	reqrow.Row
	RepostCount uint32  `json:"repost_count"`
	URL         *string `json:"url"`
}

func reqSchema() map[string]any {
	p := reqrow.Props()
	p["repost_count"] = api.Type("integer")
	p["url"] = reqrow.URLSchema()
	return api.Object(p)
}

// repostRow is a repost-pain row: a req and whether it is still open.
type repostRow struct {
	reqRow
	Live        bool      `json:"live"`
	LastEventAt time.Time `json:"last_event_at"`
}

func repostSchema() map[string]any {
	return api.Extend(reqSchema(), map[string]any{"live": api.Type("boolean"), "last_event_at": api.DateTime()})
}

// rowOf is the served row of a req of co; x (the search index of the same snapshot, nil before
// the first build) gives it the salary every route serves for it.
func rowOf(x *searchindex.Index, co *readmodel.Company, r *readmodel.Req) reqRow {
	row := reqRow{Row: reqrow.Row{ReqKey: r.Key, CompanyID: co.ID, RawTitle: r.RawTitle(), Title: nullable.String(r.Title()),
		Function: nullable.String(r.Function()), FunctionName: nullable.String(r.FunctionName()), Country: nullable.String(r.Country()),
		CountryCode: nullable.String(r.CountryCode()), Boards: r.Boards(), SourceType: r.SourceType(), FirstSeen: r.FirstSeenTime(),
		LeftCensored: co.LeftCensored(r), PostedAt: r.PostedAtTime()},
		RepostCount: r.RepostCount}
	if row.Boards == nil {
		row.Boards = []string{}
	}
	if v, ok := r.SalaryMinUSD(); ok {
		row.SalaryMinUSD = &v
	}
	if v, ok := r.SalaryMaxUSD(); ok {
		row.SalaryMaxUSD = &v
	}
	row.SetSalary(salaryOf(x, co.ID, r, row.SalaryMinUSD, row.SalaryMaxUSD))
	if x != nil {
		if ir, ok := x.Lookup(co.ID, r.Key); ok {
			// The read model keeps no URL and no posting facts; the index of the same build does.
			row.URL = nullable.String(ir.URL)
			row.Facts = reqrow.FactsOf(x.Facts(ir))
		}
	}
	return row
}

// salaryOf is the req's one salary object, the one the search routes serve: the index's when it
// holds the req, else the declared bounds, else the index's estimate for the req's function,
// country and seniority (a req closed longer than the index keeps).
func salaryOf(x *searchindex.Index, companyID uint64, r *readmodel.Req, lo, hi *float64) *reqrow.Salary {
	if x == nil {
		if lo != nil || hi != nil {
			return &reqrow.Salary{Kind: searchindex.SalaryDeclared, MinUSD: lo, MaxUSD: hi}
		}
		return nil
	}
	if s, ok := x.Lookup(companyID, r.Key); ok {
		return reqrow.SalaryOf(x.Salary(s))
	}
	if lo != nil || hi != nil {
		return &reqrow.Salary{Kind: searchindex.SalaryDeclared, MinUSD: lo, MaxUSD: hi}
	}
	if e, ok := x.EstimateFor(r.Function(), r.Country(), r.RawTitle()); ok {
		return reqrow.EstimateOf(e)
	}
	return nil
}

// functionFilter resolves the `function` parameter (a name, any case, or a taxonomy id) to the
// set of ids it covers; nil when absent. Unresolvable is 422 listing the names.
func functionFilter(c *api.Call) (map[string]bool, error) {
	v, ok := c.String("function")
	if !ok {
		return nil, nil
	}
	ids, found := normalize.ResolveFunction(strings.TrimSpace(v))
	if !found {
		names := normalize.FunctionNames()
		msg := "unknown function '" + v + "': send a function name or taxonomy id; names: " + strings.Join(names, ", ")
		fe := problem.ValueError(v, msg, "query", "function")
		fe.Ctx["names"] = names
		return nil, api.Invalid(fe)
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	if len(ids) == 1 {
		c.SetFunction(ids[0])
	}
	return set, nil
}

// countryFilter resolves the `country` parameter by the rule of every route
// (criteria.CountryNames: a name or alias, never a two-letter code) to the canonical name; ""
// when absent. Unresolvable is 422.
func countryFilter(c *api.Call) (string, error) {
	v, ok := c.String("country")
	if !ok {
		return "", nil
	}
	names, errs := criteria.CountryNames([]string{v}, "query", "country")
	if len(errs) > 0 {
		return "", api.Invalid(errs...)
	}
	return names[0], nil
}
