package searchindex_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// benchWorld opens the crawled world named by HS_SEARCH_BENCH_DB (read only), or skips.
func benchWorld(b *testing.B) driver.Conn {
	db := os.Getenv("HS_SEARCH_BENCH_DB")
	if db == "" {
		b.Skip("set HS_SEARCH_BENCH_DB to the ClickHouse database of a crawled world")
	}
	ch, err := analytics.Open(analytics.Options{Addr: storetest.ClickHouseAddr(), Database: db})
	require.NoError(b, err)
	b.Cleanup(func() { ch.Close() })
	return ch
}

// BenchmarkBuildSnapshot measures a build of the read snapshot (the company read model and the
// search index from one ledger read) on a crawled world already in ClickHouse. Besides ns/op it
// reports what the snapshot holds (companies, live_reqs of the model; reqs, index_live_reqs,
// index_companies and tech_entries (12 bytes each, technologies.go) of the index), the heap it retains (retained_MiB), the heap the runtime held at
// the end of a build (heap_sys_MiB) and what a build allocates (alloc_MiB/op); -v logs the last
// build's phases. Its name does not match -bench LargeWorld, which runs the queries:
//
//	HS_SEARCH_BENCH_DB=hs_bench100k go test -run XXX -bench BuildSnapshot -benchtime 1x -v ./read/searchindex/
func BenchmarkBuildSnapshot(b *testing.B) {
	ch := benchWorld(b)
	var snap *snapshot.Snapshot
	var retained, heapSys, alloc int64
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		snap = nil //nolint:ineffassign // drops the previous build before the GC below measures
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		var err error
		snap, err = snapshot.Build(context.Background(), ch)
		b.StopTimer()
		require.NoError(b, err)
		runtime.ReadMemStats(&after)
		heapSys = max(heapSys, int64(after.HeapSys))
		alloc += int64(after.TotalAlloc - before.TotalAlloc)
		runtime.GC()
		runtime.ReadMemStats(&after)
		retained = int64(after.HeapAlloc) - int64(before.HeapAlloc)
	}
	st := snap.Index.Stats()
	b.ReportMetric(float64(snap.Model.Companies()), "companies")
	b.ReportMetric(float64(snap.Model.LiveReqs()), "live_reqs")
	b.ReportMetric(float64(st.Reqs), "reqs")
	b.ReportMetric(float64(st.LiveReqs), "index_live_reqs")
	b.ReportMetric(float64(st.Companies), "index_companies")
	b.ReportMetric(float64(st.TechCompanies), "tech_entries")
	b.ReportMetric(float64(retained)/(1<<20), "retained_MiB")
	b.ReportMetric(float64(heapSys)/(1<<20), "heap_sys_MiB")
	b.ReportMetric(float64(alloc)/float64(b.N)/(1<<20), "alloc_MiB/op")
	b.Log(snap.Phases)
	runtime.KeepAlive(snap)
}

// BenchmarkLargeWorld measures the index's queries on a crawled world already in ClickHouse (the
// snapshot is built once, untimed; BenchmarkBuildSnapshot measures the build):
//
//	HS_SEARCH_BENCH_DB=hs_bench100k go test -run XXX -bench LargeWorld -benchtime 200x ./read/searchindex/
func BenchmarkLargeWorld(b *testing.B) {
	ch := benchWorld(b)
	snap, err := snapshot.Build(context.Background(), ch)
	require.NoError(b, err)
	x := snap.Index
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
			x.Qualified(searchindex.QualifiedQuery{Q: "staff engineer", Filter: searchindex.Filter{Seniority: []string{"staff"}}, Limit: 20})
		}
	})
}
