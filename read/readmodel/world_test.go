package readmodel_test

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/snapshot"
	"github.com/planehq/hiringsignal/sim"
)

// TestModelMatchesTheCrawledWorld crawls nine weeks of a world (one cycle a day) and checks the
// model against the simulator's truth as the crawl saw it.
func TestModelMatchesTheCrawledWorld(t *testing.T) {
	t.Parallel()
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 7, Companies: 120, First: 300, Last: 300 + 8*64, Step: 8})
	ctx := context.Background()
	st := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: slog.New(slog.DiscardHandler), Poll: time.Hour})
	installed, err := st.Refresh(ctx, false)
	require.NoError(t, err)
	require.True(t, installed)
	again, err := st.Refresh(ctx, false)
	require.NoError(t, err)
	require.False(t, again, "an unchanged watermark must not rebuild")
	m := st.Current().Model
	require.Equal(t, w.Now, m.AsOf)
	require.Equal(t, len(w.Companies), m.Companies())

	t.Run("the high-motion company changed most in the last 4 weeks", func(t *testing.T) {
		flow := func(id uint64) int {
			n := 0
			for _, wk := range m.PulseOf(m.Company(id), true).Momentum {
				if !wk.BucketStart.Before(readmodeltest.Monday(m.AsOf.Add(-28 * 24 * time.Hour))) {
					n += wk.Opened + wk.Reposted + wk.Closed
				}
			}
			return n
		}
		hm := m.HighMotion()
		require.NotNil(t, hm)
		require.True(t, hm.Covered())
		best := flow(hm.ID)
		require.Positive(t, best)
		for id := range w.Companies {
			if m.Company(id).Covered() {
				require.LessOrEqual(t, flow(id), best, "company %d", id)
			}
		}
	})

	t.Run("the most-live company has the most live reqs (dev's printed company)", func(t *testing.T) {
		ml := m.MostLive()
		require.NotNil(t, ml)
		require.NotEmpty(t, ml.Live)
		for id := range w.Companies {
			c := m.Company(id)
			require.True(t, len(c.Live) < len(ml.Live) || (len(c.Live) == len(ml.Live) && c.ID >= ml.ID), "company %d", id)
		}
		require.Nil(t, readmodel.Empty().MostLive())
	})

	t.Run("live reqs and is_hiring equal the truth at the last tick", func(t *testing.T) {
		total := 0
		for id := range w.Companies {
			c := m.Company(id)
			require.NotNil(t, c)
			want := w.Live[id]
			got := map[string]bool{}
			for i := range c.Live {
				r := &c.Live[i]
				got[r.Key] = true
				require.NotEmpty(t, r.RawTitle())
				require.NotEmpty(t, r.Boards())
				require.True(t, r.Live)
				if r.Country() != "" {
					require.Equal(t, normalize.CountryCode(r.Country()), r.CountryCode())
					require.Len(t, r.CountryCode(), 2)
				}
				if n := r.FunctionName(); n != "" {
					require.NotEqual(t, r.Function(), n)
				}
			}
			wantKeys := map[string]bool{}
			for k := range want {
				wantKeys[k] = true
			}
			require.Equal(t, wantKeys, got, "company %s", c.Domain)
			p, ok := m.Pulse(id)
			require.True(t, ok)
			if !w.Covered[id] {
				continue
			}
			require.Equal(t, readmodel.CoverageCovered, p.CoverageStatus)
			require.Equal(t, len(want), *p.OpenReqCount)
			require.Equal(t, len(want) > 0, *p.IsHiring)
			require.Equal(t, len(want), *p.ActiveReqs, "every live req was confirmed by this week's reads")
			total += len(want)
		}
		require.Equal(t, total, m.LiveReqs())
		require.Positive(t, total)
	})

	t.Run("no coverage gives no_ats_signal and null motion, never zero", func(t *testing.T) {
		n := 0
		for id := range w.Companies {
			if w.Covered[id] {
				continue
			}
			n++
			p, _ := m.Pulse(id)
			require.Equal(t, readmodel.CoverageNoATSSignal, p.CoverageStatus)
			require.Nil(t, p.IsHiring)
			require.Nil(t, p.OpenReqCount)
			require.Nil(t, p.ActiveReqs)
			require.Nil(t, p.NewRoles30d)
			require.Nil(t, p.Velocity)
			require.Nil(t, p.Direction)
			require.Nil(t, p.IsSurge)
			require.Nil(t, p.Momentum)
			require.Nil(t, p.MotionAsOf)
		}
		require.Positive(t, n, "the world must have uncovered companies")
	})

	t.Run("momentum is the weekly flow over the whole history, zero-filled", func(t *testing.T) {
		for id := range w.Companies {
			if !w.Covered[id] {
				continue
			}
			p, _ := m.Pulse(id)
			got := map[time.Time]int{}
			for i, b := range p.Momentum {
				require.Equal(t, time.Monday, b.BucketStart.Weekday())
				if i > 0 {
					require.Equal(t, p.Momentum[i-1].BucketStart.Add(readmodel.Week), b.BucketStart, "weeks are contiguous")
				}
				if b.Opened > 0 {
					got[b.BucketStart] = b.Opened
				}
			}
			want := w.OpenedByWeek[id]
			if len(want) == 0 {
				want = map[time.Time]int{}
			}
			require.Equal(t, want, got)
			if len(p.Momentum) > 0 {
				require.Equal(t, readmodeltest.Monday(w.Now), p.Momentum[len(p.Momentum)-1].BucketStart)
			}
		}
	})

	t.Run("windows follow the documented rules", func(t *testing.T) {
		dirs := map[string]int{}
		for id := range w.Companies {
			if !w.Covered[id] {
				continue
			}
			var new30, cur, prev, last2, prior6 int
			for _, fs := range w.FirstSeen[id] {
				age := w.Now.Sub(fs)
				if age < 30*readmodel.Day {
					new30++
				}
				if age < 4*readmodel.Week {
					cur++
				} else if age < 8*readmodel.Week {
					prev++
				}
				if age < 2*readmodel.Week {
					last2++
				} else if age < 8*readmodel.Week {
					prior6++
				}
			}
			p, _ := m.Pulse(id)
			require.NotNil(t, p.NewRoles30d)
			require.Equal(t, new30, *p.NewRoles30d)
			require.InDelta(t, float64(cur)/4, *p.Velocity, 0.005)
			d := "steady"
			if cur-prev >= 2 && float64(cur) > 1.25*float64(prev) {
				d = "accelerating"
			} else if prev-cur >= 2 && float64(cur) < 0.75*float64(prev) {
				d = "decelerating"
			}
			require.Equal(t, d, *p.Direction)
			dirs[d]++
			require.Equal(t, last2 >= 5 && float64(last2)/2 >= 2*float64(prior6)/6, *p.IsSurge)
		}
		t.Logf("directions: %v", dirs)
	})

	t.Run("a window reaching before the first read is null", func(t *testing.T) {
		c := *m.Company(anyCovered(t, w))
		c.SetObservedFrom(m.AsOf.Add(-20 * readmodel.Day))
		p := m.PulseOf(&c, false)
		require.NotNil(t, p.OpenReqCount)
		require.Nil(t, p.NewRoles30d)
		require.Nil(t, p.Velocity)
		require.Nil(t, p.Direction)
		require.Nil(t, p.IsSurge)
	})

	t.Run("first hires are the first req of each function", func(t *testing.T) {
		ledger, err := analytics.FirstHires(ctx, w.CH, m.Watermark)
		require.NoError(t, err)
		want := map[uint64]map[string]time.Time{}
		for _, f := range ledger {
			if want[f.CompanyID] == nil {
				want[f.CompanyID] = map[string]time.Time{}
			}
			want[f.CompanyID][f.Function] = f.FirstSeen.UTC()
		}
		for id := range w.Companies {
			got := map[string]time.Time{}
			for _, f := range m.Company(id).FirstHires() {
				got[f.Function] = f.FirstSeen
			}
			if want[id] == nil {
				require.Empty(t, got)
				continue
			}
			require.Equal(t, want[id], got, "company %d", id)
		}
		for id := range w.Companies {
			c := m.Company(id)
			byFn := map[string]time.Time{}
			for _, f := range c.FirstHires() {
				require.NotEmpty(t, f.Function)
				require.NotEmpty(t, f.RawTitle)
				byFn[f.Function] = f.FirstSeen
			}
			censored := c.CensoredFunctions() // including reqs live at the coverage start that closed since
			for i := range c.Live {
				if r := &c.Live[i]; c.LeftCensored(r) && r.Function() != "" {
					require.True(t, censored[r.Function()], "a left-censored live req's function is censored")
				}
			}
			for _, f := range c.FirstHires() {
				require.True(t, f.FirstSeen.After(c.ObservedFrom()), "no first hire at or before the coverage start (%s)", c.ObservedFrom())
			}
			for i := range c.Live {
				r := &c.Live[i]
				if r.Function() == "" || censored[r.Function()] {
					continue
				}
				first, ok := byFn[r.Function()]
				require.True(t, ok, "function %s of a live req has a first hire", r.Function())
				require.False(t, first.After(r.FirstSeenTime()))
			}
		}
	})

	t.Run("ATS migrations equal the vendor changes the crawl read", func(t *testing.T) {
		want := map[uint64][]string{}
		last := map[uint64]string{}
		for _, tick := range w.Ticks {
			for _, s := range w.Sim.Directory(tick).Sources {
				if s.Kind != sim.KindATSTenant {
					continue
				}
				id := pipeline.CompanyID(s.CompanyDomain)
				if l, ok := last[id]; ok && l != s.Vendor {
					want[id] = append(want[id], l+">"+s.Vendor)
				}
				last[id] = s.Vendor
			}
		}
		got := map[uint64][]string{}
		for id := range w.Companies {
			for _, mg := range m.Company(id).Migrations() {
				got[id] = append(got[id], mg.FromVendor+">"+mg.ToVendor)
				require.False(t, mg.ObservedAt.After(m.AsOf))
			}
		}
		require.Equal(t, want, got)
		t.Logf("%d migrating companies", len(want))
	})

	t.Run("resolve by domain and by name with legal-suffix variants", func(t *testing.T) {
		for id, co := range w.Companies {
			byDomain := m.ByDomain("https://www." + strings.ToUpper(co.Domain) + "/careers")
			require.Len(t, byDomain, 1)
			require.Equal(t, id, byDomain[0].ID)

			exact := m.ResolveName("  "+co.Name+" ", 5)
			require.NotEmpty(t, exact)
			require.Equal(t, id, exact[0].Company.ID)
			require.Equal(t, readmodel.ConfidenceExact, exact[0].Confidence)

			base, stripped := normalize.StripLegalSuffix(co.Name)
			require.True(t, stripped, co.Name)
			loose := m.ResolveName(base, 5)
			var found bool
			for _, cand := range loose {
				if cand.Company.ID == id {
					found = true
					require.Equal(t, readmodel.ConfidenceLegalForms, cand.Confidence)
				}
			}
			require.True(t, found, "%q resolves %q", base, co.Name)
			require.LessOrEqual(t, len(loose), 5)
		}
		require.Empty(t, m.ResolveName("Nonexistent Zyxw Holdings", 5))
		require.Empty(t, m.ByDomain("nonexistent.example"))
	})

	t.Run("enrichment boards are the boards that carried the company's reqs", func(t *testing.T) {
		for id := range w.Companies {
			c := m.Company(id)
			have := map[string]bool{}
			for _, b := range c.Boards() {
				have[b.Board] = true
				require.False(t, b.FirstSeen.After(m.AsOf))
			}
			for i := range c.Live {
				for _, b := range c.Live[i].Boards() {
					require.True(t, have[b], "board %s of a live req", b)
				}
			}
			boards := c.Boards()
			require.True(t, sort.SliceIsSorted(boards, func(i, j int) bool { return boards[i].FirstSeen.Before(boards[j].FirstSeen) }))
		}
	})
}

func anyCovered(t *testing.T, w *readmodeltest.World) uint64 {
	for id := range w.Companies {
		if w.Covered[id] && len(w.Live[id]) > 0 {
			return id
		}
	}
	t.Fatal("no covered company")
	return 0
}
