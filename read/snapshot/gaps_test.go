package snapshot_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

type (
	readmodelWeek = readmodel.MomentumWeek
	indexWeek     = searchindex.Week
)

// gapWorld commits two crawl regions tick by tick from tick 0 (Monday 2026-11-02 00:00, 3 hours
// a tick) to tick 200 (Friday 2026-11-27 00:00): na every tick, with company 8; eu, with company
// 7, every tick too, or, when down, not from tick 61 to 119 (2026-11-09 12:00 to 2026-11-17
// 00:00). Each company's req 1 is live at its first cycle (left-censored), req 2 opens at tick 30
// and req 3 at tick 120, the first cycle after the gap, whose events carry its bounds.
func gapWorld(t *testing.T, down bool) driver.Conn {
	t.Helper()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "snapshot")
	epoch := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	at := func(tick uint32) time.Time { return epoch.Add(time.Duration(tick) * 3 * time.Hour) }
	next := uint64(1)
	for tick := uint32(0); tick <= 200; tick++ {
		for _, r := range []struct {
			region  string
			company uint64
		}{{"eu", 7}, {"na", 8}} {
			if r.region == "eu" && down && tick > 60 && tick < 120 {
				continue
			}
			w := &analytics.CycleWrite{}
			if tick == 0 {
				w.Companies = []analytics.Company{{CompanyID: r.company, Domain: fmt.Sprintf("c%d.com", r.company), Name: fmt.Sprintf("Company %d", r.company),
					Region: r.region, Covered: true, UpdatedAt: at(0)}}
			}
			req := map[uint32]int{0: 1, 30: 2, 120: 3}[tick]
			if req != 0 {
				e := analytics.Event{Seq: next, Type: analytics.EventOpened, ReqKey: fmt.Sprintf("%015x%d", r.company, req), CompanyID: r.company,
					Region: r.region, Tick: tick, OccurredAt: at(tick), ObservedAt: at(tick), FirstSeen: at(tick), RawTitle: "Backend Engineer",
					Function: "fn_eng", Country: "Germany", SourceType: "board", Board: "greenhouse"}
				if r.region == "eu" && down && tick == 120 {
					e.GapFrom, e.GapTo = at(60), at(120)
				}
				w.Events = append(w.Events, e)
			}
			w.Cycle = analytics.Cycle{Region: r.region, Tick: tick, CycleTime: at(tick), StartedAt: at(tick), Events: uint64(len(w.Events)),
				SeqFrom: next, SeqTo: next + uint64(len(w.Events)) - 1}
			next += uint64(len(w.Events))
			require.NoError(t, analytics.WriteCycle(ctx, ch, w, 100))
		}
	}
	return ch
}

// partialWeeks is, per Monday, whether the week is partial.
func partialWeeks[W any](ws []W, week func(W) (time.Time, bool)) map[string]bool {
	out := map[string]bool{}
	for _, w := range ws {
		start, partial := week(w)
		out[start.Format("01-02")] = partial
	}
	return out
}

// A gap in a region's crawl makes the weeks it touches partial: in the momentum of that region's
// companies, and in the market-wide role demand; the snapshot names it for the history headers.
// Without the gap the same world reads as before: only the current week is partial.
func TestTheWeeksAGapTouchesArePartial(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, down := range []bool{true, false} {
		t.Run(fmt.Sprintf("down=%v", down), func(t *testing.T) {
			t.Parallel()
			s, err := snapshot.Build(ctx, gapWorld(t, down))
			require.NoError(t, err)
			from := time.Date(2026, 11, 9, 12, 0, 0, 0, time.UTC)
			to := time.Date(2026, 11, 17, 0, 0, 0, 0, time.UTC)
			g, found := s.LatestGap()
			require.Equal(t, down, found)
			if down {
				require.Equal(t, []analytics.Gap{{Region: "eu", From: from, To: to, FromTick: 60, ToTick: 120}}, s.Gaps)
				require.Equal(t, s.Gaps[0], g)
			} else {
				require.Empty(t, s.Gaps)
			}

			momentum := func(id uint64) map[string]bool {
				p, ok := s.Model.Pulse(id)
				require.True(t, ok)
				return partialWeeks(p.Momentum, func(w readmodelWeek) (time.Time, bool) { return w.BucketStart, w.Partial })
			}
			current := map[string]bool{"11-02": false, "11-09": false, "11-16": false, "11-23": true}
			gapped := map[string]bool{"11-02": false, "11-09": true, "11-16": true, "11-23": true}
			want := current
			if down {
				want = gapped
			}
			require.Equal(t, want, momentum(7), "eu's company")
			require.Equal(t, current, momentum(8), "na's company: its region was crawled through the gap")
			p, _ := s.Model.Pulse(7)
			require.Equal(t, 1, p.Momentum[2].Opened, "the opening after the gap is counted in the week it was first seen")

			demand := s.Index.RoleDemand([]string{"fn_eng"}, nil)
			require.Equal(t, want, partialWeeks(demand, func(w indexWeek) (time.Time, bool) { return w.BucketStart, w.Partial }),
				"market-wide: a gap of any region")
			require.Equal(t, want, partialWeeks(s.Index.RoleDemand([]string{"fn_eng"}, []string{"Germany"}),
				func(w indexWeek) (time.Time, bool) { return w.BucketStart, w.Partial }), "a country's postings come from companies of any region")
		})
	}
}
