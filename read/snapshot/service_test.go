package snapshot

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/pipeline"
)

// requireOneWatermark checks that s's model and index were built at the committed watermark
// and cycle time now in ClickHouse.
func requireOneWatermark(t *testing.T, ch driver.Conn, s *Snapshot) {
	t.Helper()
	wm, at, err := analytics.Watermark(context.Background(), ch)
	require.NoError(t, err)
	require.NotNil(t, s.Index)
	require.Equal(t, wm, s.Watermark)
	require.Equal(t, wm, s.Model.Watermark, "the model's watermark")
	require.Equal(t, wm, s.Index.Watermark, "the index's watermark")
	require.True(t, at.Equal(s.AsOf))
	require.True(t, at.Equal(s.Model.AsOf), "the model's cycle time")
	require.True(t, at.Equal(s.Index.CycleTime), "the index's cycle time")
	require.Positive(t, s.Model.Companies())
	require.Positive(t, s.Index.Stats().Reqs)
}

// TestOneSnapshotPerCommitAndCoalescedRebuilds runs the service on a crawled world: every
// snapshot it serves carries one watermark in both its model and its index, and a burst of
// nudges while a build runs (with a commit among them) costs one further build, not one each.
func TestOneSnapshotPerCommitAndCoalescedRebuilds(t *testing.T) {
	t.Parallel()
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 11, Companies: 30, First: 300, Last: 324, Step: 8})
	ctx := context.Background()
	s := New(Config{ClickHouse: w.CH, Log: slog.New(slog.DiscardHandler), Poll: time.Hour})

	// The build is the real one, counted; while hold is set, a finished build waits for release
	// before it is swapped in, so the test can commit and nudge while it "runs".
	var builds atomic.Int32
	var hold atomic.Bool
	held := make(chan struct{}, 1)
	release := make(chan struct{})
	s.build = func(ctx context.Context, ch driver.Conn) (*Snapshot, error) {
		builds.Add(1)
		snap, err := Build(ctx, ch)
		if hold.Load() {
			held <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return snap, err
	}

	require.False(t, s.Ready())
	require.Nil(t, s.Current().Index, "no index before the first build")
	require.Zero(t, s.Current().Model.Companies(), "an empty model before the first build")
	require.NoError(t, s.Stop(ctx), "a Stop before Start does nothing")

	require.NoError(t, s.Start(ctx))
	require.NoError(t, s.Start(ctx), "a second Start does nothing")
	require.Eventually(t, s.Ready, time.Minute, 10*time.Millisecond, "the first build runs in the background")
	require.Equal(t, int32(1), builds.Load())
	requireOneWatermark(t, w.CH, s.Current())

	// A commit, then a nudge: the build of that commit is held while two more cycles commit and
	// fifty nudges arrive.
	hold.Store(true)
	w.CrawlAt(t, 332)
	s.Nudge()
	select {
	case <-held:
	case <-time.After(time.Minute):
		t.Fatal("a nudge after a commit did not start a build")
	}
	during := s.Current()
	w.CrawlAt(t, 340)
	w.CrawlAt(t, 348)
	for range 50 {
		s.Nudge() // never blocks
	}
	require.Same(t, during, s.Current(), "a build in progress is not served")
	hold.Store(false)
	close(release)

	// The held build is swapped in, then one further build serves both commits that came during it.
	require.Eventually(t, func() bool { return builds.Load() == 3 && s.Current().AsOf.Equal(w.Sim.CycleTime(348)) },
		time.Minute, 10*time.Millisecond)
	requireOneWatermark(t, w.CH, s.Current())
	installed, err := s.Refresh(ctx, false)
	require.NoError(t, err)
	require.False(t, installed, "nothing left to build: the burst was coalesced")
	require.Equal(t, int32(3), builds.Load(), "two commits and fifty nudges during a build cost one further build")

	// A burst of on-demand crawls: each commits a cycle of its own and nudges, as the crawl-job
	// loop does after every job. While the build of the first is held, the others commit and
	// nudge; together they cost one further build, which serves every one of them.
	dir, err := pipeline.FetchDirectory(ctx, w.Crawler.Fetcher().Client(), w.Base, 348)
	require.NoError(t, err)
	var domains []string
	for _, src := range dir.Sources {
		if src.Kind == "ats_tenant" && len(domains) < 8 {
			domains = append(domains, src.CompanyDomain)
		}
	}
	require.Len(t, domains, 8)
	release = make(chan struct{})
	hold.Store(true)
	now := w.Sim.CycleTime(348).Add(time.Hour)
	onDemand := func(i int) time.Time {
		at := now.Add(time.Duration(i) * time.Minute)
		_, err := w.Crawler.RunCompany(ctx, dir, domains[i], at)
		require.NoError(t, err)
		s.Nudge()
		return at
	}
	onDemand(0)
	select {
	case <-held:
	case <-time.After(time.Minute):
		t.Fatal("a nudge after an on-demand commit did not start a build")
	}
	var last time.Time
	for i := 1; i < len(domains); i++ {
		last = onDemand(i)
	}
	hold.Store(false)
	close(release)
	require.Eventually(t, func() bool { return builds.Load() == 5 && s.Current().AsOf.Equal(last) }, time.Minute, 10*time.Millisecond)
	requireOneWatermark(t, w.CH, s.Current())
	for i, d := range domains {
		co := s.Current().Model.Company(pipeline.CompanyID(d))
		require.NotNil(t, co)
		require.True(t, now.Add(time.Duration(i)*time.Minute).Equal(co.LastRead()), "the snapshot serves on-demand crawl %d", i)
	}
	installed, err = s.Refresh(ctx, false)
	require.NoError(t, err)
	require.False(t, installed, "nothing left to build")
	require.Equal(t, int32(5), builds.Load(), "eight on-demand commits and nudges cost two builds: the held one and one after it")
	require.NoError(t, s.Stop(ctx))
	require.NoError(t, s.Stop(ctx), "a second Stop does nothing")
}
