package search

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// The fuzz targets of the search routes' own input parsers, run on a small index built in memory
// (no stores): `go test -run=^$ -fuzz=FuzzQualifiedBody -fuzztime=10s ./api/search/`.

var (
	fuzzIndexOnce sync.Once
	fuzzIndex     *searchindex.Index
)

// smallIndex is an index of 30 companies × 12 reqs with varied titles, countries and functions.
func smallIndex() *searchindex.Index {
	fuzzIndexOnce.Do(func() {
		at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
		titles := []string{"Senior Backend Engineer", "Account Executive", "Data Scientist (m/w/d)", "VP of Sales",
			"Frontend Developer - Berlin", "Product Manager", "Sr. Accountant", "Werkstudent Marketing"}
		countries := []string{"Germany", "United States", "France", ""}
		functions := []string{"fn_7k2q", "fn_s2kv", "fn_m7lx", ""}
		var cos []analytics.Company
		for c := range 30 {
			cos = append(cos, analytics.Company{CompanyID: uint64(c+1) * 100, Domain: fmt.Sprintf("co%d.example", c),
				HQCountry: countries[c%4], Industry: "Software", HeadcountBand: "51-200", AgencyKind: []string{"", "staffing_agency"}[c%7/6]})
		}
		b := searchindex.NewBuilder(360, at, cos)
		seq := uint64(0)
		for i := range 12 {
			for c := range 30 {
				seq++
				n := c*12 + i
				lo, hi := 40000.0+float64(n%9)*9000, 80000.0+float64(n%9)*9000
				r := &analytics.LedgerReq{OpenSeq: seq, SalaryDeclared: n%3 == 0, Req: analytics.Req{
					ReqKey: fmt.Sprintf("%08x", n), CompanyID: uint64(c+1) * 100, EventType: []string{"opened", "reposted", "closed"}[n%5/2],
					RawTitle: titles[n%len(titles)], Function: functions[n%4], Country: countries[n%4], SourceType: []string{"board", "ats_tenant"}[n%2],
					Board: "indeed", FirstSeen: at.Add(-time.Duration(n%97) * time.Hour), LastEventAt: at.Add(-time.Duration(n%31) * time.Hour)}}
				if r.SalaryDeclared {
					r.SalaryMinUSD, r.SalaryMaxUSD = &lo, &hi
				}
				r.Boards, r.AnyBoards = []string{"indeed"}, []string{"indeed", "stepstone"}
				b.Add(r)
			}
		}
		fuzzIndex = b.Build(nil)
	})
	return fuzzIndex
}

// requireBoundedProblems checks what every 422 of the search parsers promises: at most
// problem.MaxFieldErrors items, each small (no vocabulary repeated, no caller array echoed).
func requireBoundedProblems(t *testing.T, items []any) {
	t.Helper()
	require.LessOrEqual(t, len(items), problem.MaxFieldErrors)
	b, err := json.Marshal(items)
	require.NoError(t, err)
	require.Less(t, len(b), 64<<10, "a bounded 422")
}

// FuzzQualifiedBody: any reqs/qualified body is parsed without panic into bounded 422 items or a
// query within the bounds, which the index answers in ledger order after the cursor.
func FuzzQualifiedBody(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"criteria":null}`, `{"criteria":[]}`, `{"criteria":{"req":{"function":"Engineering"}}}`,
		`{"criteria":{"req":{"function":["Engineering","Astrology","fn_7k2q"],"country":["Germany","DE"],"q":"senior engineer","q_excludes":["sales"]}}}`,
		`{"criteria":{"company":{"company_id":[100,200,-1,1.5,"x"],"headcount_band":["51-200","huge"],"agency_kind":"employer","hq_country":"France"}},"limit":5}`,
		`{"criteria":{"req":{"since":"2026-02-01T00:00:00Z","seniority":["senior"],"boards":"Indeed","source_type":"board"}},"cursor":40,"limit":3}`,
		`{"criteria":{"event":{"function":"x"},"nope":{}},"salary_min_usd":-1,"salary_max_usd":-5,"limit":0,"cursor":-3}`,
		`{"criteria":{"company":{"industry":[""],"industry_terms":[],"domain":"co1.example"}},"salary_min_usd":50000,"salary_max_usd":90000,"live_only":false}`,
		`{"criteria":{"req":{"q":"` + strings.Repeat("evp ", 40) + `"}}}`,
	} {
		f.Add([]byte(seed))
	}
	x := smallIndex()
	f.Fuzz(func(t *testing.T, body []byte) {
		var b qualifiedBody
		if json.Unmarshal(body, &b) != nil {
			return
		}
		q, errs := parseQualified(&b, PageMax)
		if len(errs) > 0 {
			items := make([]any, len(errs))
			for i := range errs {
				items[i] = errs[i]
			}
			requireBoundedProblems(t, items)
			return
		}
		require.LessOrEqual(t, len(q.CompanyIDs), criteria.MaxCompanyIDs)
		for _, l := range [][]string{q.Domains, q.Filter.Industry, q.Filter.IndustryTerms, q.Filter.Headcount, q.HQCountries,
			q.AgencyKinds, q.QExcludes, q.Filter.Countries, q.SourceTypes, q.Boards} {
			require.LessOrEqual(t, len(l), criteria.MaxCriterionValues)
		}
		for _, l := range [][]string{q.Filter.Technologies, q.Filter.Seniority, q.Filter.EmploymentTypes, q.Filter.WorkplaceTypes} {
			require.LessOrEqual(t, len(l), criteria.MaxFactValues)
		}
		require.True(t, q.Limit >= 1 && q.Limit <= PageMax)
		if q.Q != "" {
			toks, complete := normalize.QueryTokens(q.Q)
			require.True(t, complete && len(toks) <= criteria.MaxQWords)
		}
		page := x.Qualified(q)
		require.LessOrEqual(t, len(page.Rows), q.Limit)
		require.GreaterOrEqual(t, page.Next, q.After, "the cursor is monotone")
		prev := q.After
		for _, r := range page.Rows {
			require.Greater(t, r.OpenSeq, prev, "ledger order after the cursor")
			prev = r.OpenSeq
		}
	})
}

// FuzzQ: any q is either refused by checkQ (bounded item) or read whole by the lexer, and then
// reqs/search and jobs/search answer it from any cursor without panic.
func FuzzQ(f *testing.F) {
	for _, seed := range []string{"", "engineer", "Senior Backend Engineer", "Sr. Dev & C++ / C# (m/w/d)", "évp VP svp",
		strings.Repeat("engineer ", 33), strings.Repeat("界", 200), "a-b c_d e.f", "Zürich-based Développeur"} {
		f.Add(seed, uint64(0), "")
		f.Add(seed, uint64(1500), "1500:0000002a~r8500")
	}
	x := smallIndex()
	f.Fuzz(func(t *testing.T, q string, after uint64, cursor string) {
		if !utf8.ValidString(q) {
			return // a query string is decoded UTF-8
		}
		if fe := criteria.CheckQ(q, "query", "q"); fe != nil {
			requireBoundedProblems(t, []any{*fe})
			return
		}
		toks, complete := normalize.QueryTokens(q)
		require.True(t, complete)
		require.LessOrEqual(t, len(toks), criteria.MaxQWords)
		require.LessOrEqual(t, utf8.RuneCountInString(q), criteria.MaxQLength)

		page := x.SearchCompanies(searchindex.CompanyQuery{Q: q, After: after, Limit: 7, MaxReqs: 3})
		require.LessOrEqual(t, len(page.Companies), 7)
		for _, h := range page.Companies {
			require.Greater(t, h.Company.ID, after, "reqs/search pages after the cursor")
			require.LessOrEqual(t, len(h.Reqs), 3)
		}
		var cur *searchindex.JobCursor
		sort := ""
		if c, err := searchindex.ParseJobCursor(cursor); err == nil {
			cur, sort = &c, c.Sort
		}
		if sort == searchindex.SortRelevance && len(toks) == 0 {
			sort = searchindex.SortRecency
		}
		jobs := x.SearchJobs(searchindex.JobQuery{Q: q, Sort: sort, After: cur, Limit: 9})
		require.LessOrEqual(t, len(jobs.Jobs), 9)
		if jobs.Next != nil {
			again, err := searchindex.ParseJobCursor(jobs.Next.String())
			require.NoError(t, err)
			require.Equal(t, jobs.Next.String(), again.String(), "next_cursor parses back")
		}
	})
}
