package snapshot_test

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/storetest"
	"github.com/planehq/hiringsignal/snapshot"
)

// TestBuildLargeWorld measures a build of the read snapshot (the company read model and the
// search index from one ledger read) on an existing crawled database (read only), e.g. the
// 100,000-company bench world: HS_SNAPSHOT_DB=hs_bench100k go test -run LargeWorld -v ./snapshot/
func TestBuildLargeWorld(t *testing.T) {
	db := os.Getenv("HS_SNAPSHOT_DB")
	if db == "" {
		t.Skip("set HS_SNAPSHOT_DB to a crawled ClickHouse database to measure a build")
	}
	ch, err := analytics.Open(analytics.Options{Addr: storetest.ClickHouseAddr(), Database: db})
	require.NoError(t, err)
	defer ch.Close()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	s, err := snapshot.Build(context.Background(), ch)
	require.NoError(t, err)
	m := s.Model
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	peak := after.HeapSys
	runtime.GC()
	runtime.ReadMemStats(&after)
	st := s.Index.Stats()
	t.Logf("build: %d companies, %d live reqs, %d indexed reqs, took %s; retained heap %d MiB (heap sys peak %d MiB, total alloc %d MiB)",
		m.Companies(), m.LiveReqs(), st.Reqs, took.Round(time.Millisecond), (after.HeapAlloc-before.HeapAlloc)>>20, peak>>20,
		(after.TotalAlloc-before.TotalAlloc)>>20)
	t.Log(s.Phases)
	runtime.KeepAlive(s)
}
