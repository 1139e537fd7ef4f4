package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

func truthKey(r sim.TruthReq) string {
	country, _ := normalize.CountryName(r.Country)
	return pipeline.ReqKey(pipeline.CompanyID(r.CompanyDomain), normalize.TitleKey(r.Title), country)
}

// firstMigration finds a tick after `from` where some company's ATS vendor changes.
func firstMigration(w *sim.World, from int) (int, string) {
	vendorAt := func(tick int) map[string]string {
		m := map[string]string{}
		for _, s := range w.Directory(tick).Sources {
			if s.Kind == "ats_tenant" {
				m[s.CompanyDomain] = s.Vendor
			}
		}
		return m
	}
	prev := vendorAt(from)
	for tick := from + 1; tick < from+5000; tick++ {
		cur := vendorAt(tick)
		for d, v := range cur {
			if p, ok := prev[d]; ok && p != v {
				return tick, d
			}
		}
		prev = cur
	}
	return -1, ""
}

// TestReadsMatchTheCrawledWorld crawls a fault-free world across an ATS migration and checks the
// aggregates the reads serve against the simulator's ground truth.
func TestReadsMatchTheCrawledWorld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The ATS migration is found before the crawl, on a world of the same seed.
	migTick, migDomain := firstMigration(sim.New(sim.Config{Seed: 11, Companies: 150}), 300)
	require.Positive(t, migTick, "the world must have an ATS migration to test")
	first, last := migTick-40, migTick+16

	crawled := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 11, Companies: 150, First: first, Last: last, Step: 1})
	world, ch := crawled.Sim, crawled.CH
	wantOpenedByWeek := map[uint64]map[time.Time]uint64{} // company → week → reqs first observed
	seen := map[string]bool{}
	for tick := first; tick <= last; tick++ {
		week := mondayOf(world.CycleTime(tick))
		for _, r := range world.Truth(tick).Reqs {
			k := truthKey(r)
			if seen[k] {
				continue
			}
			seen[k] = true
			if tick == first {
				continue // live when the crawl began: left-censored, no opening
			}
			id := pipeline.CompanyID(r.CompanyDomain)
			if wantOpenedByWeek[id] == nil {
				wantOpenedByWeek[id] = map[time.Time]uint64{}
			}
			wantOpenedByWeek[id][week]++
		}
	}
	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)

	// The live set equals the world's at the last tick.
	live := map[string]bool{}
	require.NoError(t, analytics.CurrentReqs(ctx, ch, wm, func(r *analytics.Req) error {
		require.NotEmpty(t, r.RawTitle)
		require.NotEmpty(t, r.Boards)
		if r.Live() {
			live[r.ReqKey] = true
		}
		return nil
	}))
	truthLive := map[string]bool{}
	for _, r := range world.Truth(last).Reqs {
		truthLive[truthKey(r)] = true
	}
	require.Equal(t, truthLive, live)

	// Momentum: the weekly openings per company equal the world's first appearances per week.
	mom, err := analytics.Momentum(ctx, ch, wm)
	require.NoError(t, err)
	got := map[uint64]map[time.Time]uint64{}
	var total uint64
	for _, w := range mom {
		require.Equal(t, time.Monday, w.BucketStart.Weekday())
		if w.Opened == 0 {
			continue
		}
		if got[w.Key] == nil {
			got[w.Key] = map[time.Time]uint64{}
		}
		got[w.Key][w.BucketStart.UTC()] = w.Opened
		total += w.Opened
	}
	require.Equal(t, wantOpenedByWeek, got)

	// Role demand is the same flow, market-wide.
	rd, err := analytics.RoleDemand(ctx, ch, wm)
	require.NoError(t, err)
	var rdTotal uint64
	for _, w := range rd {
		rdTotal += w.Opened
	}
	require.Equal(t, total, rdTotal)

	// The migrating company shows both vendors, the old one first.
	hist, err := analytics.ATSHistory(ctx, ch)
	require.NoError(t, err)
	var vendors []string
	for _, h := range hist {
		if h.CompanyID == pipeline.CompanyID(migDomain) {
			vendors = append(vendors, h.Vendor)
		}
	}
	require.Len(t, vendors, 2, "company %s migrated at tick %d", migDomain, migTick)
	require.NotEqual(t, vendors[0], vendors[1])

	fh, err := analytics.FirstHires(ctx, ch, wm)
	require.NoError(t, err)
	require.NotEmpty(t, fh)
	start := world.CycleTime(first).UTC()
	for _, f := range fh {
		require.True(t, f.FirstSeen.After(start), "no first hire at the coverage start %s: %+v", start, f)
		_, named := normalize.FunctionName(f.Function)
		_, resolvable := normalize.ResolveFunction(f.Function)
		require.True(t, named || resolvable, "function id %q", f.Function)
	}
}

func mondayOf(t time.Time) time.Time {
	t = t.UTC().Truncate(24 * time.Hour)
	for t.Weekday() != time.Monday {
		t = t.Add(-24 * time.Hour)
	}
	return t
}
