package sources_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// dropWorld is a registry of Greenhouse tenants whose boards answer as many jobs as the test
// sets (the board endpoint always answers), read by workers and committed by a committer that
// each have their own crawler, on a clock whose window 1 is the current one and has reached
// every tenant's offset, with at least 14 minutes left.
type dropWorld struct {
	t         *testing.T
	pool      *pgxpool.Pool
	jobs      map[string]*atomic.Int32
	clock     sources.Clock
	committer *sources.Crawl
	newWorker func(owner string) *sources.Crawl
}

func newDropWorld(t *testing.T, tenants ...string) *dropWorld {
	t.Helper()
	return newDropWorldOn(t, sources.DefaultWindowLength, 5*time.Minute, tenants...)
}

// newDropWorldOn is newDropWorld on windows of length, its crawls' RefetchAfter refetchAfter
// (0: the clock's default).
func newDropWorldOn(t *testing.T, length, refetchAfter time.Duration, tenants ...string) *dropWorld {
	t.Helper()
	clock := sources.Clock{Length: length}
	ctx := context.Background()
	w := &dropWorld{t: t, jobs: map[string]*atomic.Int32{}}
	mux := http.NewServeMux()
	csv := "domain,name,vendor,tenant,hq_country\n"
	var latest time.Duration
	for _, tenant := range tenants {
		n := &atomic.Int32{}
		w.jobs[tenant] = n
		mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/"+tenant+"/jobs", func(rw http.ResponseWriter, r *http.Request) {
			var parts []string
			for i := range int(n.Load()) {
				parts = append(parts, fmt.Sprintf(`{"id":%d,"title":"Engineer %s","absolute_url":"https://job-boards.greenhouse.io/%s/jobs/%d","location":{"name":"Berlin, Germany"},"updated_at":"2026-11-20T10:00:00Z"}`,
					100+i, strings.Repeat("I", i+1), tenant, 100+i))
			}
			fmt.Fprintf(rw, `{"jobs":[%s],"meta":{"total":%d}}`, strings.Join(parts, ","), len(parts))
		})
		mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/"+tenant, func(rw http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(rw, `{"name":%q,"content":""}`, tenant)
		})
		csv += fmt.Sprintf("%s.de,%s,greenhouse,%s,DE\n", tenant, tenant, tenant)
		latest = max(latest, clock.Offset("greenhouse:"+tenant))
	}
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), nil)
	w.pool = storetest.Postgres(t, "sources")
	ch, _ := storetest.ClickHouse(t, "sources")
	_, err := sources.Import(ctx, w.pool, strings.NewReader(csv), sources.ImportOptions{File: "drop.csv", By: "test", Apply: true})
	require.NoError(t, err)
	clock.Epoch = time.Now().Add(-clock.Window() - latest - time.Minute)
	w.clock = clock
	crawl := func(owner string) *sources.Crawl {
		c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler),
			Fetch: pipeline.FetchConfig{ConnectTo: connectTo, CAFile: pem}})
		require.NoError(t, err)
		return &sources.Crawl{Pool: w.pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: w.clock, Owner: owner, RefetchAfter: refetchAfter}
	}
	w.committer, w.newWorker = crawl("committer"), crawl
	return w
}

// commit commits window tick at cycle time at (zero: its latest read) and returns its dach cycle.
func (w *dropWorld) commit(tick int, at time.Time) pipeline.CycleStats {
	w.t.Helper()
	stats, err := w.committer.Commit(context.Background(), tick, at)
	require.NoError(w.t, err)
	for _, st := range stats {
		if st.Region == "dach" {
			return st
		}
	}
	w.t.Fatal("no dach cycle")
	return pipeline.CycleStats{}
}

// readRow is what crawl_reads holds of a source in window tick.
type readRow struct {
	worker        string
	postings      int
	refetchDue    *time.Time
	suspectReadAt *time.Time
}

func (w *dropWorld) read(tick int, key string) readRow {
	w.t.Helper()
	var r readRow
	err := w.pool.QueryRow(context.Background(), `SELECT worker, postings, refetch_due, suspect_read_at FROM crawl_reads
		WHERE tick = $1 AND source_key = $2`, tick, key).Scan(&r.worker, &r.postings, &r.refetchDue, &r.suspectReadAt)
	require.NoError(w.t, err)
	return r
}

// refetchTimeComes moves every refetch asked in window tick, and its source's due time, to now:
// the minutes of Crawl.RefetchAfter pass.
func (w *dropWorld) refetchTimeComes(tick int) {
	w.t.Helper()
	ctx := context.Background()
	_, err := w.pool.Exec(ctx, `UPDATE crawl_sources SET next_due_at = now() - interval '1 second' WHERE source_key IN
		(SELECT source_key FROM crawl_reads WHERE tick = $1 AND refetch_due IS NOT NULL)`, tick)
	require.NoError(w.t, err)
	_, err = w.pool.Exec(ctx, `UPDATE crawl_reads SET refetch_due = now() - interval '1 second' WHERE tick = $1 AND refetch_due IS NOT NULL`, tick)
	require.NoError(w.t, err)
}

func (w *dropWorld) status(key string) string {
	w.t.Helper()
	s, _, err := oltp.GetSource(context.Background(), w.pool, key)
	require.NoError(w.t, err)
	return s.Status
}

// TestASuspectDropIsRefetchedInItsWindowByAnyWorker: two Greenhouse boards of 6 jobs fall to
// none in window 1. The worker that read them asks a refetch of each 5 minutes later
// (RefetchAfter) instead of leaving the drop to the next window; when that time comes another
// worker claims both refetches through the leases. acme is still empty (the board endpoint
// answering): the window's commit closes its 6 reqs at once and the source stays active. bolt's
// jobs are back: nothing closes, nothing is suspect.
func TestASuspectDropIsRefetchedInItsWindowByAnyWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newDropWorld(t, "acme", "bolt")
	a, b := w.newWorker("worker-a"), w.newWorker("worker-b")

	w.jobs["acme"].Store(6)
	w.jobs["bolt"].Store(6)
	n, err := a.ReadDue(ctx, 0, true)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, 12, w.commit(0, w.clock.Start(0).Add(time.Hour)).ByType["opened"])

	w.jobs["acme"].Store(0)
	w.jobs["bolt"].Store(0)
	n, err = a.ReadDue(ctx, 1, false)
	require.NoError(t, err)
	require.Equal(t, 2, n, "each source's first read of the window; the refetches are not due yet")
	for _, key := range []string{"greenhouse:acme", "greenhouse:bolt"} {
		r := w.read(1, key)
		require.Zero(t, r.postings)
		require.NotNil(t, r.refetchDue, "%s: a read that fell from 6 postings to none asks for a refetch", key)
		require.WithinDuration(t, time.Now().Add(5*time.Minute), *r.refetchDue, time.Minute)
		require.Nil(t, r.suspectReadAt)
	}
	n, err = b.ReadDue(ctx, 1, false)
	require.NoError(t, err)
	require.Zero(t, n, "a refetch is not claimed before its time")

	w.jobs["bolt"].Store(6) // bolt's drop was a glitch
	w.refetchTimeComes(1)
	n, err = b.ReadDue(ctx, 1, false)
	require.NoError(t, err)
	require.Equal(t, 2, n, "the other worker claims both refetches")
	acme, bolt := w.read(1, "greenhouse:acme"), w.read(1, "greenhouse:bolt")
	require.Equal(t, "worker-b", acme.worker)
	require.Nil(t, acme.refetchDue)
	require.NotNil(t, acme.suspectReadAt, "the refetch replaced the read that fell, keeping its time")
	require.Equal(t, 6, bolt.postings)
	n, err = a.ReadDue(ctx, 1, false)
	require.NoError(t, err)
	require.Zero(t, n, "a window asks one refetch of a source")

	st := w.commit(1, time.Time{})
	require.Zero(t, st.SourcesSuspect, "acme's refetch confirmed its drop; bolt's cleared it")
	require.Equal(t, 6, st.ByType["closed"], "acme's reqs close in the window they went")
	require.Equal(t, oltp.SourceActive, w.status("greenhouse:acme"))
	require.Equal(t, oltp.SourceActive, w.status("greenhouse:bolt"))
}

// TestAWindowClosingBeforeItsRefetchCommitsTheDropSuspect: a refetch asked in window 1 that no
// worker made before the window's commit does not hold the commit: the source is suspect, its
// reqs stay open, and the next window's read confirms the drop and closes them.
func TestAWindowClosingBeforeItsRefetchCommitsTheDropSuspect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newDropWorld(t, "acme")
	a := w.newWorker("worker-a")

	w.jobs["acme"].Store(6)
	_, err := a.ReadDue(ctx, 0, true)
	require.NoError(t, err)
	require.Equal(t, 6, w.commit(0, w.clock.Start(0).Add(time.Hour)).ByType["opened"])

	w.jobs["acme"].Store(0)
	_, err = a.ReadDue(ctx, 1, false)
	require.NoError(t, err)
	require.NotNil(t, w.read(1, "greenhouse:acme").refetchDue)
	st := w.commit(1, time.Time{}) // the refetch is still 5 minutes away
	require.Equal(t, 1, st.SourcesSuspect)
	require.Zero(t, st.ByType["closed"], "a drop no refetch confirmed closes nothing")
	require.Equal(t, oltp.SourceSuspect, w.status("greenhouse:acme"))

	_, err = a.ReadDue(ctx, 2, true)
	require.NoError(t, err)
	st = w.commit(2, w.clock.Start(2).Add(time.Hour)) // a window later
	require.Zero(t, st.SourcesSuspect)
	require.Equal(t, 6, st.ByType["closed"], "the next window's read confirms the drop")
	require.Equal(t, oltp.SourceActive, w.status("greenhouse:acme"))
}

// TestTheDefaultRefetchFollowsTheWindowLength: on windows of an hour (crawl --window-length 1h) a drop
// is refetched a twelfth of the window later, 5 minutes, where the default 3-hour window waits
// 15: the default refetch follows the window's length.
func TestTheDefaultRefetchFollowsTheWindowLength(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newDropWorldOn(t, time.Hour, 0, "acme")
	require.Greater(t, w.clock.Start(2), time.Now().Add(6*time.Minute), "room for the refetch in window 1")
	a := w.newWorker("worker-a")

	w.jobs["acme"].Store(6)
	_, err := a.ReadDue(ctx, 0, true)
	require.NoError(t, err)
	require.Equal(t, 6, w.commit(0, w.clock.Start(0).Add(time.Minute)).ByType["opened"])

	w.jobs["acme"].Store(0)
	_, err = a.ReadDue(ctx, 1, false)
	require.NoError(t, err)
	r := w.read(1, "greenhouse:acme")
	require.NotNil(t, r.refetchDue)
	require.WithinDuration(t, time.Now().Add(5*time.Minute), *r.refetchDue, time.Minute)
}
