package search

import (
	"fmt"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/criteria"
	"github.com/planehq/hiringsignal/pipeline/normalize"
	"github.com/planehq/hiringsignal/searchindex"
	"github.com/planehq/hiringsignal/snapshot"
)

func jobsSearchSchema() map[string]any {
	s := api.Object(map[string]any{"jobs": map[string]any{"type": "array", "items": api.Object(jobRowProps())},
		"next_cursor": map[string]any{"type": "string", "description": "opaque (the page's last company_id:req_key, with the sort key when sorted); absent on the last page"}})
	s["description"] = "One source_row unit per job row. relevance is null without q."
	return s
}

// jobsSearch serves GET /v1/jobs/search: one row (one source_row unit) per logical req.
func (h *handlers) jobsSearch(c *api.Call, snap *snapshot.Snapshot) (int, error) {
	x := snap.Index
	var p criteria.Problems
	q, _ := c.String("q")
	if fe := criteria.CheckQ(q, "query", "q"); fe != nil {
		p.Add(*fe)
	}
	checkRepeated(c, &p, "industry", "industry_terms", "headcount_band")
	if err := invalid(&p); err != nil {
		return 0, err
	}
	var errs []api.FieldError
	f := commonFilter(c, x)
	if v, ok := c.String("function"); ok {
		ids, fe := criteria.FunctionIDs(v, "query", "function")
		if fe != nil {
			errs = append(errs, *fe)
		}
		f.Functions = ids
		if len(ids) > 0 {
			c.SetFunction(ids[0])
		}
	}
	if v, ok := c.String("geo"); ok {
		names, es := criteria.CountryNames([]string{v}, "query", "geo")
		errs = append(errs, es...)
		f.Countries = names
	}
	hasQ := len(normalize.Tokens(q)) > 0
	sort, _ := c.String("sort")
	if sort == "" && hasQ {
		sort = searchindex.SortRelevance
	}
	if sort == searchindex.SortRelevance && !hasQ {
		errs = append(errs, api.ValueError(sort, "sort=relevance needs q (a title to rank by); send q, or sort=recency, or omit sort for the stable default order", "query", "sort"))
	}
	var after *searchindex.JobCursor
	if v, ok := c.String("cursor"); ok {
		cur, err := searchindex.ParseJobCursor(v)
		switch {
		case err != nil:
			errs = append(errs, api.ValueError(criteria.Clip(v), err.Error(), "query", "cursor"))
		case cur.Sort != sort:
			errs = append(errs, api.ValueError(criteria.Clip(v), fmt.Sprintf("this cursor was issued under sort %s and cannot be replayed under sort %s: replay it with the same sort (and q), or start again without a cursor",
				sortName(cur.Sort), sortName(sort)), "query", "cursor"))
		default:
			after = &cur
		}
	}
	if len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	page := x.SearchJobs(searchindex.JobQuery{Q: q, Sort: sort, Filter: f, After: after, Limit: c.Limit()})
	out := struct {
		Jobs       []jobRow `json:"jobs"`
		NextCursor *string  `json:"next_cursor,omitempty"`
	}{Jobs: make([]jobRow, 0, len(page.Jobs))}
	for _, j := range page.Jobs {
		out.Jobs = append(out.Jobs, newJobRow(x, j.Req, j.Relevance))
	}
	if page.Next != nil {
		s := page.Next.String()
		out.NextCursor = &s
	}
	return len(out.Jobs), c.JSON(200, out)
}

func sortName(s string) string {
	if s == "" {
		return "(default order)"
	}
	return s
}

// roleRow is the jobs/role answer: a jobs/search row plus the full deduplicated boards list.
type roleRow struct {
	jobRow
	Boards       []string `json:"boards"`
	URL          *string  `json:"url"`
	CompanyName  *string  `json:"company_name"`
	RepostCount  uint32   `json:"repost_count"`
	SalaryMinUSD *float64 `json:"salary_min_usd"`
	SalaryMaxUSD *float64 `json:"salary_max_usd"`
}

func roleSchema() map[string]any {
	p := jobRowProps()
	p["boards"] = api.ArrayOf("string")
	p["url"] = api.Nullable(api.Type("string"))
	p["company_name"] = api.Nullable(api.Type("string"))
	p["repost_count"] = api.Type("integer")
	rp := reqrow.Props()
	p["salary_min_usd"], p["salary_max_usd"] = rp["salary_min_usd"], rp["salary_max_usd"]
	return api.Object(p)
}

// jobsRole serves GET /v1/jobs/role?company_id=&req_key=: 404 (never metered) when the req is
// missing, closed or not yet past the caller's freshness floor.
func (h *handlers) jobsRole(c *api.Call, snap *snapshot.Snapshot) (int, error) {
	x := snap.Index
	id, _ := c.Int("company_id")
	key, _ := c.String("req_key")
	r, ok := x.Lookup(uint64(id), key)
	floor := freshBefore(c, x)
	if !ok || !r.Live || !floor.IsZero() && r.FirstSeen > floor.Unix() {
		return 0, api.NotFound("Not Found: no live role with this company_id and req_key (it does not exist, is closed, or is newer than your plan's freshness floor)")
	}
	row := roleRow{jobRow: newJobRow(x, r, nil), Boards: r.Boards, URL: strPtr(r.URL), CompanyName: strPtr(x.CompanyOf(r).Name),
		RepostCount: r.RepostCount}
	row.SalaryMinUSD, row.SalaryMaxUSD = r.DeclaredSalary()
	if r.Function != "" {
		c.SetFunction(r.Function)
	}
	return 0, c.JSON(200, row)
}
