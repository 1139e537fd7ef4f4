package searchindex

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
)

var variedIndustries = []string{"Software", " Computer Software ", "Staffing and Recruiting", "Banking", "", "software DEVELOPMENT"}
var variedBands = []string{"1-10", "51-200", "", "1001-5000"}
var variedKinds = []string{"", "staffing_agency", "unknown", "job_board", ""}
var variedBoards = [][]string{{"indeed"}, {"Indeed", "LinkedIn"}, {"greenhouse"}, {"StepStone", "xing"}, nil}

// varied builds an index whose companies differ in every company fact (industry, headcount,
// agency kind, domain, hq country) and whose reqs differ in boards, source type and liveness.
func varied(tb testing.TB, companies, perCompany int) *Index {
	tb.Helper()
	var cos []analytics.Company
	for c := range companies {
		co := analytics.Company{CompanyID: uint64(c+1) * 1000, Domain: fmt.Sprintf("Co%d.Example", c), Name: fmt.Sprintf("Co %d", c),
			HQCountry: syntheticCountries[c%len(syntheticCountries)], Industry: variedIndustries[c%len(variedIndustries)],
			HeadcountBand: variedBands[c%len(variedBands)], AgencyKind: variedKinds[c%len(variedKinds)]}
		if c%7 == 3 {
			co.Name, co.Domain = "", ""
		}
		if c%11 == 5 {
			continue // no facts at all
		}
		cos = append(cos, co)
	}
	b := NewBuilder(uint64(companies*perCompany), syntheticAt, cos)
	seq := uint64(0)
	for i := range perCompany {
		for c := range companies {
			seq++
			n := c*perCompany + i
			r := &analytics.LedgerReq{OpenSeq: seq, Req: analytics.Req{
				ReqKey: fmt.Sprintf("%016x", n), CompanyID: uint64(c+1) * 1000, EventType: analytics.EventOpened,
				RawTitle: syntheticTitles[n%len(syntheticTitles)], Function: syntheticFunctions[n%len(syntheticFunctions)],
				Country: syntheticCountries[n%len(syntheticCountries)], SourceType: []string{"board", "ats_tenant"}[n%2],
				FirstSeen: syntheticAt.Add(-time.Duration(n%200) * time.Hour), LastEventAt: syntheticAt.Add(-time.Duration(n%50) * time.Hour)}}
			if n%5 == 4 {
				r.EventType = analytics.EventClosed
			}
			r.Facts = syntheticFacts(n, r.RawTitle)
			bs := variedBoards[n%len(variedBoards)]
			r.AnyBoards = bs
			if len(bs) > 0 {
				r.Board = bs[0]
			}
			b.Add(r)
		}
	}
	return b.Build(nil)
}

// refFilter is the Filter's meaning written out plainly (no compilation, no memo).
func refFilter(x *Index, f *Filter, r *Req) bool {
	co := x.CompanyOf(r)
	fold := strings.ToLower(strings.TrimSpace(co.Industry))
	switch {
	case !r.Live && !f.IncludeClosed,
		len(f.Countries) > 0 && (r.Country() == "" || !slices.Contains(f.Countries, r.Country())),
		len(f.Functions) > 0 && (r.Function() == "" || !slices.Contains(f.Functions, r.Function())),
		!f.Since.IsZero() && r.FirstSeen < f.Since.Unix(),
		f.SourceType != "" && r.SourceType() != f.SourceType,
		f.ExcludeAgencies && co.Agency(),
		len(f.Seniority) > 0 && (r.Seniority() == "" || !slices.Contains(f.Seniority, r.Seniority())),
		len(f.EmploymentTypes) > 0 && !slices.Contains(f.EmploymentTypes, x.Facts(r).EmploymentType),
		len(f.WorkplaceTypes) > 0 && !slices.Contains(f.WorkplaceTypes, x.Facts(r).WorkplaceType),
		len(f.Technologies) > 0 && !slices.ContainsFunc(x.Facts(r).Technologies, func(t Technology) bool { return slices.Contains(f.Technologies, t.Slug) }),
		len(f.Headcount) > 0 && (co.HeadcountBand == "" || !slices.Contains(f.Headcount, co.HeadcountBand)):
		return false
	}
	if len(f.Industry) > 0 && !slices.ContainsFunc(f.Industry, func(s string) bool {
		return fold != "" && strings.ToLower(strings.TrimSpace(s)) == fold
	}) {
		return false
	}
	if len(f.IndustryTerms) > 0 && !slices.ContainsFunc(f.IndustryTerms, func(s string) bool {
		return fold != "" && strings.Contains(fold, strings.ToLower(strings.TrimSpace(s)))
	}) {
		return false
	}
	return true
}

// refQualifies is reqs/qualified's meaning written out plainly, for queries without q or salary.
func refQualifies(x *Index, q *QualifiedQuery, r *Req) bool {
	if !refFilter(x, &q.Filter, r) {
		return false
	}
	co := x.CompanyOf(r)
	stems := normalize.Stems(r.Title.Raw)
	for _, p := range q.QExcludes {
		ps := normalize.Stems(p)
		if len(ps) > 0 && !slices.ContainsFunc(ps, func(s string) bool { return !slices.Contains(stems, s) }) {
			return false
		}
	}
	kind := normalize.ServedAgencyKind(co.AgencyKind, co.Name)
	switch {
	case len(q.SourceTypes) > 0 && !slices.Contains(q.SourceTypes, r.SourceType()),
		len(q.Boards) > 0 && !slices.ContainsFunc(r.Boards(), func(b string) bool {
			lb := strings.ToLower(b) // (what the API promises: lower case equal, not EqualFold's folding)
			return slices.ContainsFunc(q.Boards, func(w string) bool { return strings.ToLower(w) == lb })
		}),
		len(q.HQCountries) > 0 && (co.HQCountry == "" || !slices.Contains(q.HQCountries, co.HQCountry)),
		len(q.AgencyKinds) > 0 && (kind == "" || !slices.Contains(q.AgencyKinds, kind)),
		len(q.Domains) > 0 && (co.Domain == "" || !slices.Contains(q.Domains, strings.ToLower(co.Domain))),
		len(q.CompanyIDs) > 0 && !slices.Contains(q.CompanyIDs, r.CompanyID):
		return false
	}
	return true
}

// many returns n values that match nothing, followed by the given ones.
func many(n int, prefix string, then ...string) []string {
	var out []string
	for i := range n - len(then) {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return append(out, then...)
}

func manyFilters() []Filter {
	return []Filter{
		{},
		{IncludeClosed: true},
		{IndustryTerms: many(100, "zzterm")},
		{IndustryTerms: many(100, "zzterm", " SOFTWARE")},
		{IndustryTerms: many(100, "zzterm", "staff", "bank"), ExcludeAgencies: true, IncludeClosed: true},
		{Industry: many(100, "zzind", "software", "banking "), Headcount: []string{"1-10", "1001-5000"}},
		{IndustryTerms: []string{"soft"}, Countries: []string{"Germany", "France"}, SourceType: "board"},
		{IndustryTerms: []string{"soft"}, Countries: []string{"France"}, Functions: []string{"fn_7k2q", "fn_m7lx"}},
		{Headcount: []string{"51-200"}, ExcludeAgencies: true, Since: syntheticAt.Add(-100 * time.Hour)},
		{Technologies: []string{"go", "spark"}, IncludeClosed: true},
		{Seniority: []string{"senior", "vp"}, WorkplaceTypes: []string{"remote"}, IndustryTerms: []string{"soft"}},
		{EmploymentTypes: []string{"part_time", "internship"}, Technologies: []string{"python"}, Countries: []string{"Germany", "France"}},
	}
}

// Company facts evaluated once per company give what evaluating them on every req gives: every
// reqs/search, jobs/search (each sort, with and without q) and reqs/qualified answer over every
// req is the plain reference's, with 100 industry_terms, q_excludes, boards and domains.
func TestManyTermsAnswerAsTheReference(t *testing.T) {
	t.Parallel()
	x := varied(t, 60, 9)
	all := len(x.reqs) + 1
	for _, f := range manyFilters() {
		var want []*Req
		var wantCos map[uint64]int
		for i := range x.reqs {
			if r := &x.reqs[i]; refFilter(x, &f, r) {
				want = append(want, r)
				if wantCos == nil {
					wantCos = map[uint64]int{}
				}
				wantCos[r.CompanyID]++
			}
		}
		require.Less(t, len(want), MaxCount)

		jobs := x.SearchJobs(JobQuery{Filter: f, Limit: all})
		var got []*Req
		for _, h := range jobs.Jobs {
			got = append(got, h.Req)
		}
		require.Equal(t, want, got, "%+v", f)
		require.Equal(t, Count{N: len(want), Exact: true}, x.CountJobs(JobQuery{Filter: f}))

		recent := x.SearchJobs(JobQuery{Filter: f, Sort: SortRecency, Limit: all})
		live := 0 // (the recency order holds live reqs only)
		for _, r := range want {
			if r.Live {
				live++
			}
		}
		require.Len(t, recent.Jobs, live)

		page := x.SearchCompanies(CompanyQuery{Filter: f, Limit: all})
		var gotCos map[uint64]int
		for _, h := range page.Companies {
			if gotCos == nil {
				gotCos = map[uint64]int{}
			}
			gotCos[h.Company.ID] = h.MatchedCount
		}
		require.Equal(t, wantCos, gotCos, "%+v", f)
		require.Equal(t, Count{N: len(wantCos), Exact: true}, x.CountCompanies(CompanyQuery{Filter: f}))

		for _, q := range []string{"engineer", "senior backend engineer developer"} {
			for _, s := range []string{SortDefault, SortRecency, SortRelevance} {
				// The filter is an AND beside q: the filtered answer is the unfiltered one, filtered.
				var wantQ []*Req
				for _, h := range x.SearchJobs(JobQuery{Q: q, Filter: Filter{IncludeClosed: f.IncludeClosed}, Sort: s, MinRelevance: DefaultMinRelevance, Limit: all}).Jobs {
					if refFilter(x, &f, h.Req) {
						wantQ = append(wantQ, h.Req)
					}
				}
				res := x.SearchJobs(JobQuery{Q: q, Filter: f, Sort: s, MinRelevance: DefaultMinRelevance, Limit: all})
				var got []*Req
				for _, h := range res.Jobs {
					got = append(got, h.Req)
				}
				require.Equal(t, wantQ, got, "q=%s sort=%s %+v", q, s, f)
				if s == SortRecency && !f.IncludeClosed { // (the relevance tiers serve fewer rows than CountJobs counts for the longer q; recency serves live reqs only)
					require.Equal(t, Count{N: len(wantQ), Exact: true}, x.CountJobs(JobQuery{Q: q, Filter: f, MinRelevance: DefaultMinRelevance}))
				}
			}
		}

		for _, q := range []QualifiedQuery{
			{Filter: f},
			{Filter: f, QExcludes: many(100, "zzqx", "senior")},
			{Filter: f, QExcludes: many(100, "zzqx"), Boards: many(100, "zzboard", "LINKEDIN", "greenHouse")},
			{Filter: f, Boards: many(100, "zzboard"), SourceTypes: []string{"ats_tenant"}},
			{Filter: f, Domains: many(100, "zz.example", "co1.example", "co6.example", "co13.example"), AgencyKinds: []string{"employer", "job_board"}},
			{Filter: f, HQCountries: []string{"Germany", "United States"}, CompanyIDs: []uint64{2000, 3000, 7000, 12000, 5}},
		} {
			q.Limit = all
			var wantQ []*Req
			for _, ord := range x.bySeq {
				if r := &x.reqs[ord]; refQualifies(x, &q, r) {
					wantQ = append(wantQ, r)
				}
			}
			require.Equal(t, wantQ, x.Qualified(q).Rows, "%+v", q)
			require.Equal(t, Count{N: len(wantQ), Exact: true}, x.CountQualified(q))
			m := x.Qualifier(&q)
			for _, r := range wantQ {
				require.True(t, m.Qualifies(r))
			}
			n := 0
			for i := range x.reqs {
				if m.Qualifies(&x.reqs[i]) {
					n++
				}
			}
			require.Equal(t, len(wantQ), n)
		}
	}
}

// BenchmarkManyIndustryTerms is the costliest filter: 100 industry_terms (and 100
// q_excludes, boards and domains for reqs/qualified) that match nothing, so every query walks
// every req of a 200,000-req index:
//
//	go test -run XXX -bench ManyIndustryTerms -benchtime 20x ./read/searchindex/
func BenchmarkManyIndustryTerms(b *testing.B) {
	x := synthetic(b, 10000, 20)
	f := Filter{IndustryTerms: many(100, "zzterm")}
	b.Run("reqs/search page", func(b *testing.B) {
		for range b.N {
			require.Empty(b, x.SearchCompanies(CompanyQuery{Filter: f, Limit: 20}).Companies)
		}
	})
	b.Run("reqs/search total", func(b *testing.B) {
		for range b.N {
			x.CountCompanies(CompanyQuery{Filter: f})
		}
	})
	b.Run("jobs/search page", func(b *testing.B) {
		for range b.N {
			x.SearchJobs(JobQuery{Filter: f, Limit: 20})
		}
	})
	b.Run("jobs/search recency q", func(b *testing.B) {
		q := strings.Repeat("senior backend engineer developer data ", 4)
		for range b.N {
			x.SearchJobs(JobQuery{Q: q, Filter: f, Sort: SortRecency, Limit: 20})
		}
	})
	b.Run("reqs/qualified terms", func(b *testing.B) {
		for range b.N {
			x.Qualified(QualifiedQuery{Filter: f, Limit: 20})
		}
	})
	b.Run("reqs/qualified boards domains", func(b *testing.B) {
		q := QualifiedQuery{Boards: many(100, "zzboard"), Domains: many(100, "zz.example"), QExcludes: many(100, "zzqx"), Limit: 20}
		for range b.N {
			x.Qualified(q)
		}
	})
}

// A filter's company facts (100 industry_terms, and reqs/qualified's domains) are checked once
// per company and query, however many reqs the company has, and no two queries share the
// answers: checked on every req a query examined, a filter matching nothing cost 100 substring
// searches per req of the world.
func TestCompanyFactsAreAskedOncePerCompanyAndQuery(t *testing.T) {
	// Not parallel: it sets the package's onCompile hook, which every query of a sibling would call.
	x := synthetic(t, 30, 40)
	var seen []*compiled
	onCompile = func(c *compiled) { seen = append(seen, c) }
	defer func() { onCompile = nil }()
	terms := many(100, "zzterm")
	f := Filter{IndustryTerms: terms, IncludeClosed: true}
	queries := map[string]func(){
		"reqs/search page":   func() { x.SearchCompanies(CompanyQuery{Filter: f, Limit: 20}) },
		"reqs/search total":  func() { x.CountCompanies(CompanyQuery{Filter: f}) },
		"jobs/search page":   func() { x.SearchJobs(JobQuery{Filter: f, Limit: 20}) },
		"jobs/search recent": func() { x.SearchJobs(JobQuery{Filter: f, Sort: SortRecency, Limit: 20}) },
		"jobs/search q":      func() { x.SearchJobs(JobQuery{Q: "engineer", Filter: f, Sort: SortRecency, Limit: 20}) },
		"jobs/search rel":    func() { x.SearchJobs(JobQuery{Q: "engineer", Filter: f, Sort: SortRelevance, Limit: 20}) },
		"jobs/search total":  func() { x.CountJobs(JobQuery{Filter: f}) },
		"reqs/qualified":     func() { x.Qualified(QualifiedQuery{Filter: f, Limit: 20}) },
		"reqs/qualified domains": func() {
			x.Qualified(QualifiedQuery{Domains: many(100, "zz.example"), Filter: Filter{IncludeClosed: true}, Limit: 20})
		},
		"reqs/qualified total": func() { x.CountQualified(QualifiedQuery{Filter: f}) },
	}
	for name, run := range queries {
		seen = nil
		run()
		run() // a second query asks again: nothing is kept between queries
		require.Len(t, seen, 2, name)
		require.NotSame(t, seen[0], seen[1], name)
		for _, c := range seen {
			require.Positive(t, c.evals, name)
			require.LessOrEqual(t, c.evals, len(x.companies), "%s: company facts asked once per req, not once per company", name)
		}
	}

	// A Qualifier goroutines share keeps no memo.
	m := x.Qualifier(&QualifiedQuery{Filter: f})
	for i := range x.reqs {
		require.False(t, m.Qualifies(&x.reqs[i]))
	}
	require.Nil(t, m.c.memo)
	require.Zero(t, m.c.evals)
}
