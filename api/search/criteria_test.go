package search_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// agreementCase is criteria and the reqs/qualified body fields beside them.
type agreementCase struct {
	name     string
	criteria map[string]any
	liveOnly *bool
	exclude  *bool
	minUSD   *float64
	empty    bool // the world has no req for it (still asserted equal)
}

// agreementCases cover every group and field, OR within a field, AND across, and the body's
// defaults, with values the crawled world holds.
func agreementCases(t *testing.T, f *fixture) []agreementCase {
	t.Helper()
	perCompany, perBoard, perSource := map[uint64]int{}, map[string]int{}, map[string]int{}
	for _, r := range f.live {
		perCompany[r.CompanyID]++
		if !f.agency[r.CompanyID] {
			perSource[r.SourceType]++
		}
		for _, b := range r.Boards {
			perBoard[b]++
		}
	}
	ids := make([]uint64, 0, len(perCompany))
	for id := range perCompany {
		if !f.agency[id] && f.facts[id].Industry != "" && f.facts[id].HQCountry != "" && f.facts[id].HeadcountBand != "" {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		return perCompany[ids[i]] > perCompany[ids[j]] || perCompany[ids[i]] == perCompany[ids[j]] && ids[i] < ids[j]
	})
	require.Greater(t, len(ids), 2)
	top, second := f.facts[ids[0]], f.facts[ids[1]]
	boards := make([]string, 0, len(perBoard))
	for b := range perBoard {
		boards = append(boards, b)
	}
	sort.Slice(boards, func(i, j int) bool {
		return perBoard[boards[i]] < perBoard[boards[j]] || perBoard[boards[i]] == perBoard[boards[j]] && boards[i] < boards[j]
	})
	no, pay := false, 90000.0
	m := func(group string, fields map[string]any) map[string]any { return map[string]any{group: fields} }
	return []agreementCase{
		{name: "no criteria"},
		{name: "live_only false", liveOnly: &no},
		{name: "exclude_agencies false", exclude: &no},
		{name: "company_id", criteria: m("company", map[string]any{"company_id": []uint64{top.CompanyID, second.CompanyID, 1}})},
		{name: "domain", criteria: m("company", map[string]any{"domain": strings.ToUpper(top.Domain)})},
		{name: "industry", criteria: m("company", map[string]any{"industry": []string{strings.ToUpper(top.Industry), second.Industry}})},
		{name: "industry_terms", criteria: m("company", map[string]any{"industry_terms": strings.ToLower(top.Industry[:4])})},
		{name: "headcount_band", criteria: m("company", map[string]any{"headcount_band": []string{top.HeadcountBand, "5001+"}})},
		{name: "hq_country", criteria: m("company", map[string]any{"hq_country": []string{top.HQCountry}})},
		{name: "agency_kind employer", criteria: m("company", map[string]any{"agency_kind": "employer"})},
		{name: "agency_kind agencies, excluded by default", criteria: m("company", map[string]any{"agency_kind": []string{"staffing_agency", "job_board", "aggregator"}}), empty: true},
		{name: "agency_kind agencies", criteria: m("company", map[string]any{"agency_kind": []string{"staffing_agency", "job_board", "aggregator"}}), exclude: &no},
		{name: "q", criteria: m("req", map[string]any{"q": "engineer"})},
		{name: "q and q_excludes", criteria: m("req", map[string]any{"q": "engineer", "q_excludes": []string{"senior", "staff engineer"}})},
		{name: "function", criteria: m("req", map[string]any{"function": []string{"Engineering", "Sales"}})},
		{name: "country", criteria: m("req", map[string]any{"country": []string{"Germany", "United States"}})},
		{name: "source_type ats", criteria: m("req", map[string]any{"source_type": "ats_tenant"}), empty: perSource["ats_tenant"] == 0},
		{name: "source_type board", criteria: m("req", map[string]any{"source_type": []string{"board"}}), empty: perSource["board"] == 0},
		{name: "source_type either", criteria: m("req", map[string]any{"source_type": []string{"board", "ats_tenant"}})},
		{name: "boards", criteria: m("req", map[string]any{"boards": []string{strings.ToUpper(boards[0]), boards[1]}})},
		{name: "seniority", criteria: m("req", map[string]any{"seniority": []string{"senior", "staff", "manager"}})},
		{name: "since", criteria: m("req", map[string]any{"since": f.w.Now.Add(-48 * time.Hour).Format(time.RFC3339)})},
		{name: "since, closed too", criteria: m("req", map[string]any{"since": f.w.Now.Add(-48 * time.Hour).Format(time.RFC3339)}), liveOnly: &no},
		{name: "AND across groups", criteria: map[string]any{"company": map[string]any{"headcount_band": []string{top.HeadcountBand, second.HeadcountBand}},
			"req": map[string]any{"function": "Engineering", "q_excludes": "senior"}}},
		{name: "pay band", minUSD: &pay},
	}
}

// key identifies a req across the index and the served rows.
func key(companyID uint64, reqKey string) string {
	return strconv.FormatUint(companyID, 10) + ":" + reqKey
}

// indexed is every req the fixture's index holds.
func indexed(t *testing.T, f *fixture) []*searchindex.Req {
	t.Helper()
	var out []*searchindex.Req
	for _, r := range f.all {
		if ir, ok := f.x.Lookup(r.CompanyID, r.ReqKey); ok {
			out = append(out, ir)
		}
	}
	require.Equal(t, f.x.Stats().Reqs, len(out), "every req of the index")
	return out
}

// rawCriteria is the criteria object as a body carries it.
func rawCriteria(t *testing.T, c map[string]any) json.RawMessage {
	t.Helper()
	if c == nil {
		return nil
	}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	return b
}

// criteria.Match over every req of the index selects exactly the reqs reqs/qualified
// serves when paged to the end: through the handler for reqs/qualified criteria (with the body's
// live_only, exclude_agencies and pay band set on the query), and through Index.Qualified for a
// watch's (whose defaults are reqs/qualified's with live_only=false, and exclude_agencies=false
// when agency kinds are named).
func TestCriteriaMatchAgreesWithReqsQualified(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	all := indexed(t, f)
	matched := func(cr *criteria.Criteria, eventType, eventFunction string) map[string]bool {
		out := map[string]bool{}
		for _, r := range all {
			if cr.Match(f.x, r, eventType, eventFunction) {
				out[key(r.CompanyID, r.Key)] = true
			}
		}
		return out
	}
	for _, tc := range agreementCases(t, f) {
		raw := rawCriteria(t, tc.criteria)
		body := qualifiedQuery{LiveOnly: tc.liveOnly, Exclude: tc.exclude, SalaryMinUSD: tc.minUSD, Limit: 100}
		if tc.criteria != nil {
			body.Criteria = tc.criteria
		}
		c := newCaller(t, f.srv, "starter") // an account per case: the rows stay under its spend cap
		rows, _ := pageQualified(t, c, body)
		c.requireUnits(t)
		want := map[string]bool{}
		for _, r := range rows {
			want[key(r.CompanyID, r.ReqKey)] = true
		}
		if tc.empty {
			require.Empty(t, want, tc.name)
		} else {
			require.NotEmpty(t, want, tc.name)
		}

		q, errs := criteria.Parse(raw, criteria.Qualified)
		require.Empty(t, errs, tc.name)
		q.Query.Filter.IncludeClosed = tc.liveOnly != nil && !*tc.liveOnly
		q.Query.Filter.ExcludeAgencies = tc.exclude == nil || *tc.exclude
		q.Query.SalaryMin = tc.minUSD
		require.Equal(t, want, matched(&q, "", ""), "reqs/qualified: %s", tc.name)

		w, errs := criteria.Parse(raw, criteria.Watch)
		require.Empty(t, errs, tc.name)
		w.Query.SalaryMin = tc.minUSD
		if tc.exclude != nil {
			w.Query.Filter.ExcludeAgencies = *tc.exclude
		}
		require.Equal(t, qualifiedToTheEnd(f.x, w.Query), matched(&w, "opened", ""), "watch: %s", tc.name)
	}
}

// qualifiedToTheEnd pages Index.Qualified from the start to the end.
func qualifiedToTheEnd(x *searchindex.Index, q searchindex.QualifiedQuery) map[string]bool {
	out := map[string]bool{}
	for q.Limit = 100; ; {
		page := x.Qualified(q)
		for _, r := range page.Rows {
			out[key(r.CompanyID, r.Key)] = true
		}
		if len(page.Rows) == 0 || page.Next == q.After {
			return out
		}
		q.After = page.Next
	}
}

// The event group narrows a watch's matches to the events it names: a req matching the company
// and req groups fires for an event of one of event.event_type whose function is one of
// event.function, and for no other.
func TestWatchEventGroupNarrowsReqsQualified(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	all := indexed(t, f)
	base, errs := criteria.Parse(json.RawMessage(`{"req":{"q_excludes":"senior"}}`), criteria.Watch)
	require.Empty(t, errs)
	w, errs := criteria.Parse(json.RawMessage(`{"req":{"q_excludes":"senior"},"event":{"event_type":["closed","reposted"],"function":"Engineering"}}`), criteria.Watch)
	require.Empty(t, errs)
	eng, _ := normalize.ResolveFunction("Engineering")
	fired := 0
	for _, r := range all {
		for _, et := range criteria.EventTypes {
			for _, fn := range []string{r.Function(), eng[0], "fn_not_in_taxonomy", ""} {
				want := base.Match(f.x, r, et, fn) && (et == "closed" || et == "reposted") && fn != "" && slices.Contains(eng, fn)
				require.Equal(t, want, w.Match(f.x, r, et, fn), "%s %s %s", r.Key, et, fn)
				if want {
					fired++
				}
			}
		}
	}
	require.Positive(t, fired)
}
