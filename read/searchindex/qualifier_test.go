package searchindex

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// every returns every req of x in ledger order (a query asking nothing, closed reqs included).
func every(x *Index) []*Req {
	return x.Qualified(QualifiedQuery{Filter: Filter{IncludeClosed: true}, Limit: len(x.reqs) + 1}).Rows
}

// The per-req predicate is the one Qualified pages with: over every req it selects exactly the
// rows Qualified serves when paged to the end, whatever the paging, and it ignores the
// freshness floor and the cursor.
func TestQualifiesIsWhatQualifiedServes(t *testing.T) {
	t.Parallel()
	x := synthetic(t, 40, 12)
	all := every(x)
	require.Len(t, all, len(x.reqs))
	lo, hi := 60000.0, 100000.0
	for _, q := range []QualifiedQuery{
		{},
		{Filter: Filter{IncludeClosed: true}},
		{Q: "engineer"},
		{Q: "engineer zzqxnomatch"},
		{QExcludes: []string{"senior", "zzqxnomatch"}},
		{Filter: Filter{Countries: []string{"Germany", "France"}, Functions: []string{"fn_7k2q"}}},
		{Filter: Filter{Countries: []string{"Atlantis"}}},
		{Filter: Filter{Since: syntheticAt.Add(-50 * time.Hour), Industry: []string{"software"}, Headcount: []string{"51-200"}}},
		{Filter: Filter{Seniority: []string{"senior", "staff"}}, Boards: []string{"INDEED"}, SourceTypes: []string{"board"}},
		{Filter: Filter{Technologies: []string{"go", "python"}, WorkplaceTypes: []string{"remote", "hybrid"}, EmploymentTypes: []string{"full_time"}}},
		{HQCountries: []string{"Germany"}, Domains: []string{"co1.example", "co5.example"}, AgencyKinds: []string{"employer"}},
		{CompanyIDs: []uint64{3000, 7000, 5}, Filter: Filter{IncludeClosed: true}},
		{SalaryMin: &lo, SalaryMax: &hi},
	} {
		var want []*Req
		q.Limit = 7
		for {
			page := x.Qualified(q)
			want = append(want, page.Rows...)
			if !page.More && page.Next == q.After {
				break
			}
			q.After = page.Next
		}
		q.After, q.Limit = 25, 1
		q.Filter.FreshBefore = syntheticAt.Add(-100 * time.Hour)
		m := x.Qualifier(&q)
		var got []*Req
		for _, r := range all {
			if m.Qualifies(r) {
				got = append(got, r)
			}
			require.Equal(t, m.Qualifies(r), x.Qualifies(r, &q))
		}
		require.Equal(t, want, got, "%+v", q)
	}
}

// A Qualifier is immutable: changing the query it was compiled from changes nothing, and any
// number of goroutines may share it.
func TestQualifierIsImmutableAndShared(t *testing.T) {
	t.Parallel()
	x := synthetic(t, 20, 5)
	q := QualifiedQuery{Filter: Filter{Countries: []string{"Germany"}}}
	m := x.Qualifier(&q)
	q.Filter.Countries = []string{"France"}
	q.Q = "zzqxnomatch"
	type count struct{ germany, other int }
	done := make(chan count)
	for range 4 {
		go func() {
			var n count
			for _, r := range every(x) {
				switch {
				case !m.Qualifies(r):
				case r.Country() == "Germany":
					n.germany++
				default:
					n.other++
				}
			}
			done <- n
		}()
	}
	for range 4 {
		n := <-done
		require.Positive(t, n.germany)
		require.Zero(t, n.other)
	}
	require.Same(t, x, m.Index())
}
