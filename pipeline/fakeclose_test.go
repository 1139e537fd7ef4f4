package pipeline_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
)

// board is a Greenhouse-format feed whose job count and answer the test sets between cycles.
type board struct {
	jobs   atomic.Int32
	status atomic.Int32 // 0: 200 with the jobs
	hits   atomic.Int32
}

func (b *board) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/robots.txt" {
		b.hits.Add(1)
	}
	if s := b.status.Load(); s != 0 {
		w.WriteHeader(int(s))
		return
	}
	var parts []string
	for i := range int(b.jobs.Load()) {
		parts = append(parts, fmt.Sprintf(`{"id":%d,"title":"Engineer %s","absolute_url":"https://job-boards.greenhouse.io/acme/jobs/%d","location":{"name":"Berlin, Germany"},"updated_at":"2026-01-14T10:55:28Z"}`,
			1000+i, strings.Repeat("I", i+1), 1000+i))
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jobs":[%s],"meta":{"total":%d}}`, strings.Join(parts, ","), len(parts))
}

func oneTenantDirectory(url string, tick int, at time.Time) *pipeline.Directory {
	return &pipeline.Directory{Tick: tick, CycleTime: at, Regions: []string{"dach"},
		Companies: []pipeline.Company{{Domain: "acme.example", Name: "Acme", HQCountry: "Germany", Region: "dach", AgencyKind: "none"}},
		Sources: []pipeline.Source{{Key: "greenhouse:acme", Vendor: "greenhouse", Kind: "ats_tenant", Region: "dach", Tenant: "acme",
			CompanyDomain: "acme.example", URL: url}}}
}

// TestOnlyAnOKReadCloses: a failed source, and a board that falls from 8 reqs to none, close
// nothing; the drop closes the reqs only once a read at least 15 minutes later shows it again.
func TestOnlyAnOKReadCloses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := &board{}
	srv := httptest.NewServer(b)
	defer srv.Close()
	ch, _ := storetest.ClickHouse(t, "pipeline")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	t0 := time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)
	run := func(tick int) pipeline.CycleStats {
		t.Helper()
		st, err := c.RunCycle(ctx, oneTenantDirectory(srv.URL+"/v1/boards/acme/jobs?content=true", tick, t0.Add(time.Duration(tick)*3*time.Hour)), "dach")
		require.NoError(t, err)
		return st
	}
	live := func() int { _, l := c.State().Reqs(); return l }

	b.jobs.Store(8)
	st := run(0)
	require.Equal(t, 8, st.ByType["opened"])

	b.status.Store(http.StatusInternalServerError) // failed: unknown, never empty
	st = run(1)
	require.Equal(t, 1, st.SourcesFailed)
	require.Zero(t, st.ByType["closed"])
	require.Equal(t, 8, live())

	b.status.Store(0)
	b.jobs.Store(0) // a 200 with no jobs: suspect
	st = run(2)
	require.Equal(t, 1, st.SourcesSuspect)
	require.Equal(t, []string{"greenhouse:acme"}, st.SuspectSources)
	require.Zero(t, st.ByType["closed"])
	require.Equal(t, 8, live())

	b.jobs.Store(1) // still a drop of more than 80% (8 → 1), 3 hours later: confirmed
	st = run(3)
	require.Zero(t, st.SourcesSuspect)
	require.Equal(t, 7, st.ByType["closed"])
	require.Equal(t, 1, live())

	b.jobs.Store(8) // a drop that recovers before confirmation closes nothing
	run(4)
	require.Equal(t, 8, live())
	b.jobs.Store(0)
	st = run(5)
	require.Equal(t, 1, st.SourcesSuspect)
	b.jobs.Store(8)
	st = run(6)
	require.Zero(t, st.SourcesSuspect)
	require.Zero(t, st.ByType["closed"])
	require.Equal(t, 8, live())

	// A source an operator paused is not read at all, and closes nothing.
	b.jobs.Store(0)
	dir := oneTenantDirectory(srv.URL+"/v1/boards/acme/jobs?content=true", 7, t0.Add(7*3*time.Hour))
	dir.Sources[0].Status = "paused"
	before := b.hits.Load()
	st, err = c.RunCycle(ctx, dir, "dach")
	require.NoError(t, err)
	require.Equal(t, before, b.hits.Load(), "a paused source is not fetched")
	require.Equal(t, 1, st.NotFetched)
	require.Zero(t, st.ByType["closed"])
	require.Equal(t, 8, live())

	// Retired by an operator: out of the directory, its reqs close and say why.
	dir = oneTenantDirectory(srv.URL+"/v1/boards/acme/jobs?content=true", 8, t0.Add(8*3*time.Hour))
	dir.Retired, dir.Sources = []string{dir.Sources[0].Key}, nil
	st, err = c.RunCycle(ctx, dir, "dach")
	require.NoError(t, err)
	require.Equal(t, 8, st.ByType["closed"])
	require.Zero(t, live())
	var reasons []string
	rows, err := ch.Query(ctx, "SELECT close_reason FROM events WHERE tick = 8 AND event_type = 'closed'")
	require.NoError(t, err)
	for rows.Next() {
		var r string
		require.NoError(t, rows.Scan(&r))
		reasons = append(reasons, r)
	}
	require.NoError(t, rows.Err())
	require.Len(t, reasons, 8)
	for _, r := range reasons {
		require.Equal(t, "source_retired", r)
	}
}
