package searchindex_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/storetest"
	"github.com/planehq/hiringsignal/searchindex"
)

// BenchmarkLargeWorld measures the build and the queries on a crawled world already in ClickHouse:
//
//	HS_SEARCH_BENCH_DB=hs_bench100k go test -run XXX -bench LargeWorld -benchtime 200x ./searchindex/
func BenchmarkLargeWorld(b *testing.B) {
	db := os.Getenv("HS_SEARCH_BENCH_DB")
	if db == "" {
		b.Skip("set HS_SEARCH_BENCH_DB to the ClickHouse database of a crawled world")
	}
	ctx := context.Background()
	ch, err := analytics.Open(analytics.Options{Addr: storetest.ClickHouseAddr(), Database: db})
	require.NoError(b, err)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	x, err := searchindex.Build(ctx, ch)
	require.NoError(b, err)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	st := x.Stats()
	b.Logf("build %s: %d reqs (%d live), %d companies; heap +%d MiB", time.Since(start).Round(time.Millisecond), st.Reqs, st.LiveReqs, st.Companies, (m1.HeapAlloc-m0.HeapAlloc)>>20)
	queries := []searchindex.CompanyQuery{
		{Q: "engineer"}, {Q: "senior software engineer"}, {Q: "sales"}, {Q: "product manager", Filter: searchindex.Filter{Countries: []string{"United States"}}},
		{Q: "data"}, {}, {Q: "engineers", Filter: searchindex.Filter{Countries: []string{"Germany", "France"}}},
		{Q: "manager", Filter: searchindex.Filter{ExcludeAgencies: true, Headcount: []string{"51-200"}}}, {Q: "nurse"},
	}
	for _, q := range []string{"engineer", "", "nurse"} {
		b.Run("reqs/search "+q, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				x.SearchCompanies(searchindex.CompanyQuery{Q: q, Limit: 20, MaxReqs: 50})
			}
		})
	}
	week := x.CycleTime.Add(-7 * 24 * time.Hour)
	queries = append(queries, searchindex.CompanyQuery{Q: "designer", Filter: searchindex.Filter{Since: week}},
		searchindex.CompanyQuery{Q: "account executive", Filter: searchindex.Filter{SourceType: "board"}},
		searchindex.CompanyQuery{Q: "engineer", After: 140737488355328},
		searchindex.CompanyQuery{Q: "developer", Filter: searchindex.Filter{IndustryTerms: []string{"soft"}}},
		searchindex.CompanyQuery{Q: "marketing"})
	for i, q := range queries {
		b.Run("reqs/search q"+strconv.Itoa(i)+" "+q.Q, func(b *testing.B) {
			for j := 0; j < b.N; j++ {
				q.Limit, q.MaxReqs = 20, 50
				x.SearchCompanies(q)
			}
		})
	}
	b.Run("reqs/search mix", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			q := queries[i%len(queries)]
			q.Limit, q.MaxReqs = 20, 50
			x.SearchCompanies(q)
		}
	})
	b.Run("jobs/search relevance developer", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x.SearchJobs(searchindex.JobQuery{Q: "developer", Sort: searchindex.SortRelevance, Limit: 20})
		}
	})
	b.Run("jobs/search recency", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x.SearchJobs(searchindex.JobQuery{Sort: searchindex.SortRecency, Limit: 20})
		}
	})
	b.Run("reqs/qualified narrow", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x.Qualified(searchindex.QualifiedQuery{Q: "staff engineer", Seniority: []string{"staff"}, Limit: 20})
		}
	})
}
