package searchindex

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The totals count exactly the rows the pages serve, and stop at MaxCount.
func TestCountsAreWhatThePagesServe(t *testing.T) {
	t.Parallel()
	x := synthetic(t, 60, 12)
	for _, q := range []JobQuery{
		{}, {Q: "engineer"}, {Q: "engineer", MinRelevance: 0}, {Q: "developer", MinRelevance: 0.5}, {Q: "sales", Sort: SortRecency, MinRelevance: 0.3},
		{Q: "account executive", Literal: true}, {Filter: Filter{Countries: []string{"Germany"}}}, {Q: "pm", Sort: SortRelevance},
	} {
		if q.Sort == "" && q.Q != "" {
			q.Sort = SortRelevance
		}
		q.Limit = 7
		served := 0
		for {
			p := x.SearchJobs(q)
			served += len(p.Jobs)
			for _, j := range p.Jobs {
				if j.Relevance != nil {
					require.GreaterOrEqual(t, *j.Relevance, q.MinRelevance)
				}
			}
			if p.Next == nil {
				break
			}
			q.After = p.Next
		}
		n := x.CountJobs(q)
		require.True(t, n.Exact)
		require.Equal(t, served, n.N, "%+v", q)
	}
	for _, q := range []CompanyQuery{{}, {Q: "engineer"}, {Q: "pm"}, {Q: "pm", Literal: true}, {Filter: Filter{Countries: []string{"France"}}}} {
		q.Limit = 9
		served := 0
		for {
			p := x.SearchCompanies(q)
			served += len(p.Companies)
			if !p.More {
				break
			}
			q.After = p.Companies[len(p.Companies)-1].Company.ID
		}
		require.Equal(t, Count{N: served, Exact: true}, x.CountCompanies(q), "%+v", q)
	}
	for _, q := range []QualifiedQuery{{Q: "engineer"}, {Filter: Filter{Countries: []string{"Germany", "France"}}},
		{Filter: Filter{Functions: []string{syntheticFunctions[0]}, Countries: []string{"United States"}}, Q: "engineer"},
		{Filter: Filter{Functions: []string{syntheticFunctions[1], syntheticFunctions[2]}, IncludeClosed: true}}} {
		q.Limit = 11
		var cursors []uint64 // each page's cursor: the count after it is what the pages after it serve
		served := []int{}
		for {
			cursors = append(cursors, q.After)
			p := x.Qualified(q)
			served = append(served, len(p.Rows))
			if !p.More {
				break
			}
			q.After = p.Next
		}
		for i, after := range cursors {
			rest := 0
			for _, n := range served[i:] {
				rest += n
			}
			q.After = after
			require.Equal(t, Count{N: rest, Exact: true}, x.CountQualified(q), "%+v", q)
		}
	}

	big := synthetic(t, 1000, 14) // 14,000 reqs, 11,200 live (every fifth closed)
	est := big.CountJobs(JobQuery{})
	require.False(t, est.Exact)
	require.InDelta(t, 11200, est.N, 11200*0.1, "past MaxCount the total is an estimate")
}

// Another spelling of a word is the word ("pm" is "product manager", "sre" is "site reliability
// engineer"); literal matching (expand=false) keeps to the word's own stem.
func TestOtherSpellingsMatchAsTheWord(t *testing.T) {
	t.Parallel()
	x := synthetic(t, 10, 10)
	titles := func(q CompanyQuery) map[string]bool {
		q.Limit = 100
		out := map[string]bool{}
		for _, h := range x.SearchCompanies(q).Companies {
			for _, r := range h.Reqs {
				out[r.Title.Raw] = true
			}
		}
		return out
	}
	require.Equal(t, map[string]bool{"Product Manager": true}, titles(CompanyQuery{Q: "pm"}))
	require.Empty(t, titles(CompanyQuery{Q: "pm", Literal: true}))
	require.Equal(t, map[string]bool{"Staff Site Reliability Engineer": true}, titles(CompanyQuery{Q: "staff sre"}))
	require.Equal(t, map[string]bool{"Product Manager": true}, titles(CompanyQuery{Q: "product manager"}))
	page := x.Qualified(QualifiedQuery{Q: "sre", Limit: 100})
	require.NotEmpty(t, page.Rows)
	for _, r := range page.Rows {
		require.Equal(t, "Staff Site Reliability Engineer", r.Title.Raw)
	}
	jobs := x.SearchJobs(JobQuery{Q: "pm", Sort: SortRelevance, Limit: 100})
	require.NotEmpty(t, jobs.Jobs)
	require.GreaterOrEqual(t, *jobs.Jobs[0].Relevance, 0.85, "another spelling is a direct match")
}

// BenchmarkCounts sets the cost of a total beside the page it comes with, on a 40,000-req index:
//
//	go test -run XXX -bench Counts ./read/searchindex/
func BenchmarkCounts(b *testing.B) {
	x := synthetic(b, 2000, 20)
	for _, q := range []string{"", "engineer", "account executive"} {
		b.Run("reqs/search page q="+q, func(b *testing.B) {
			for range b.N {
				x.SearchCompanies(CompanyQuery{Q: q, Limit: 20, MaxReqs: 5})
			}
		})
		b.Run("reqs/search total q="+q, func(b *testing.B) {
			for range b.N {
				x.CountCompanies(CompanyQuery{Q: q})
			}
		})
		b.Run("jobs/search page q="+q, func(b *testing.B) {
			for range b.N {
				x.SearchJobs(JobQuery{Q: q, Sort: map[bool]string{true: SortRelevance}[q != ""], MinRelevance: DefaultMinRelevance, Limit: 20})
			}
		})
		b.Run("jobs/search total q="+q, func(b *testing.B) {
			for range b.N {
				x.CountJobs(JobQuery{Q: q, MinRelevance: DefaultMinRelevance})
			}
		})
	}
}
