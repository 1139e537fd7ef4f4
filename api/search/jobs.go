package search

import (
	"fmt"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func jobsSearchSchema() map[string]any {
	s := api.Object(metaProps(map[string]any{"jobs": map[string]any{"type": "array", "items": api.Object(jobRowProps())},
		"next_cursor": api.Optional(map[string]any{"type": "string", "description": "opaque (the page's last company_id:req_key, with the sort key when sorted); absent on the last page"})}, "rows of this query across every page (the cursor aside) at or above min_relevance"))
	s["description"] = "One source_row unit per job row: rows below min_relevance are neither served nor billed. relevance is null without q."
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
	var errs []problem.FieldError
	f := commonFilter(c, x)
	errs = append(errs, factFilters(c, &f)...)
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
	minRel, _ := c.Float("min_relevance")
	if !hasQ && c.Ctx.QueryArgs().Has("min_relevance") {
		errs = append(errs, problem.ValueError(minRel, "min_relevance needs q (relevance is the score of the title match); send q, or omit min_relevance", "query", "min_relevance"))
	}
	expand, _ := c.Bool("expand")
	sort, _ := c.String("sort")
	if sort == "" && hasQ {
		sort = searchindex.SortRelevance
	}
	if sort == searchindex.SortRelevance && !hasQ {
		errs = append(errs, problem.ValueError(sort, "sort=relevance needs q (a title to rank by); send q, or sort=recency, or omit sort for the stable default order", "query", "sort"))
	}
	var after *searchindex.JobCursor
	if v, ok := c.String("cursor"); ok {
		cur, err := searchindex.ParseJobCursor(v)
		switch {
		case err != nil:
			errs = append(errs, problem.ValueError(criteria.Clip(v), err.Error(), "query", "cursor"))
		case cur.Sort != sort:
			errs = append(errs, problem.ValueError(criteria.Clip(v), fmt.Sprintf("this cursor was issued under sort %s and cannot be replayed under sort %s: replay it with the same sort (and q), or start again without a cursor",
				sortName(cur.Sort), sortName(sort)), "query", "cursor"))
		default:
			after = &cur
		}
	}
	if len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	jq := searchindex.JobQuery{Q: q, Sort: sort, MinRelevance: minRel, Literal: !expand, Filter: f, After: after, Limit: c.Limit()}
	page := x.SearchJobs(jq)
	out := struct {
		freshness
		paging
		Jobs       []jobRow `json:"jobs"`
		NextCursor *string  `json:"next_cursor,omitempty"`
	}{freshness: freshnessOf(c, x), paging: pagingOf(page.Next != nil, x.CountJobs(jq)), Jobs: make([]jobRow, 0, len(page.Jobs))}
	for _, j := range page.Jobs {
		out.Jobs = append(out.Jobs, newJobRow(x, j.Req, j.Relevance))
	}
	if includesOf(c.Strings("include")).description {
		reqs := make([]*searchindex.Req, len(page.Jobs))
		for i, j := range page.Jobs {
			reqs[i] = j.Req
		}
		if err := h.describe(c, reqs, func(i int, text string, ok bool) { out.Jobs[i].SetDescription(text, ok) }); err != nil {
			return 0, err
		}
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
	CompanyName  *string  `json:"company_name"`
	RepostCount  uint32   `json:"repost_count"`
	SalaryMinUSD *float64 `json:"salary_min_usd"`
	SalaryMaxUSD *float64 `json:"salary_max_usd"`
	freshness
}

func roleSchema() map[string]any {
	p := jobRowProps()
	p["description"] = reqrow.DescriptionSchema() // always answered here
	p["boards"] = api.ArrayOf("string")
	p["company_name"] = api.Nullable(api.Type("string"))
	p["repost_count"] = api.Type("integer")
	rp := reqrow.Props()
	p["salary_min_usd"], p["salary_max_usd"] = rp["salary_min_usd"], rp["salary_max_usd"]
	return api.Object(metaFreshness(p))
}

// Reasons of a jobs/role 404.
const (
	roleClosed   = "closed"    // the req was served under the caller's floor and has closed since
	roleNotFound = "not_found" // no req the caller's plan can see: missing, long closed, or newer than the floor
)

// roleMissing is the detail of a jobs/role 404: why, in words, and what the answer reflects.
type roleMissing struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	freshness
}

func roleMissingSchema() map[string]any {
	d := api.Object(metaFreshness(map[string]any{
		"reason": map[string]any{"type": "string", "enum": []string{roleClosed, roleNotFound},
			"description": "closed: the req exists, your plan could see it, and it is no longer observed at its source (closed within the last 30 days). " +
				"not_found: no req your plan can see has this company_id and req_key: it does not exist, closed more than 30 days ago, or (with a freshness floor) " +
				"was first seen after first_seen_cutoff; these are one answer on purpose, so the floor never tells what it hides. A req_key from a row you were served " +
				"was past your floor already, so for it not_found never means the floor"},
		"message": api.Type("string")}))
	d["required"] = []string{"reason", "message", "as_of", "freshness_floor_s", "first_seen_cutoff"}
	return api.Object(map[string]any{"detail": d})
}

// jobsRole serves GET /v1/jobs/role?company_id=&req_key=: 404 (never metered) when the req is
// missing, closed or not yet past the caller's freshness floor; the 404's reason tells closed
// (a req the caller's plan could see) from not_found, which covers the floor without saying so.
func (h *handlers) jobsRole(c *api.Call, snap *snapshot.Snapshot) (int, error) {
	x := snap.Index
	id, _ := c.Int("company_id")
	key, _ := c.String("req_key")
	r, ok := x.Lookup(uint64(id), key)
	floor := freshBefore(c, x)
	hidden := ok && !floor.IsZero() && r.FirstSeen > floor.Unix()
	switch {
	case ok && !hidden && !r.Live:
		return 0, &api.Error{Status: 404, Detail: roleMissing{Reason: roleClosed, freshness: freshnessOf(c, x),
			Message: "This role closed: it is no longer observed at its source (last event " + ts(r.LastEventAt) + ")."}}
	case !ok || hidden:
		msg := "No role with this company_id and req_key: it does not exist or closed more than 30 days ago."
		if !floor.IsZero() {
			msg = "No role your plan can see with this company_id and req_key: it does not exist, closed more than 30 days ago, " +
				"or was first seen after first_seen_cutoff (your plan's freshness floor); a role newer than the floor becomes visible once it is freshness_floor_s old."
		}
		return 0, &api.Error{Status: 404, Detail: roleMissing{Reason: roleNotFound, Message: msg, freshness: freshnessOf(c, x)}}
	}
	row := roleRow{jobRow: newJobRow(x, r, nil), Boards: r.Boards(), CompanyName: nullable.String(x.CompanyOf(r).Name),
		RepostCount: r.RepostCount, freshness: freshnessOf(c, x)}
	row.SalaryMinUSD, row.SalaryMaxUSD = r.DeclaredSalary()
	if err := h.describe(c, []*searchindex.Req{r}, func(_ int, text string, ok bool) { row.SetDescription(text, ok) }); err != nil {
		return 0, err
	}
	if r.Function() != "" {
		c.SetFunction(r.Function())
	}
	return 0, c.JSON(200, row)
}
