package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
)

// The full req read cut into req_key ranges gives every req's current state once, in req_key
// order, exactly as one read of the whole ledger does, however small the ranges: the latest
// committed version of its latest event (not a crashed cycle's row it replaced), its opening,
// its first posted_at and its board sightings.
func TestLedgerReqsReadInRangesAreTheWholeReadsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics_reqranges")
	t0 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	const reqs = 240
	key := func(i int) string { return pipeline.ReqKey(uint64(1+i%9), fmt.Sprintf("title %d", i), "Germany") }
	type latest struct{ typ, title string }
	want := map[string]latest{}
	seq := uint64(1)
	for tick := uint32(1); tick <= 3; tick++ {
		at := t0.Add(time.Duration(tick) * 3 * time.Hour)
		var evs []analytics.Event
		var boards []analytics.ReqBoard
		for i := range reqs {
			typ := analytics.EventOpened
			switch {
			case tick > 1 && i%3 == 0:
				continue // not seen again
			case tick == 2 && i%5 == 1:
				typ = analytics.EventClosed
			case tick == 3 && i%5 == 1:
				typ = analytics.EventReposted
			case tick > 1:
				typ = analytics.EventReobserved
			}
			title := fmt.Sprintf("Engineer %d at tick %d", i, tick)
			var posted *time.Time
			if i%4 == 0 && tick == 2 {
				p := at.Add(-time.Hour)
				posted = &p
			}
			evs = append(evs, analytics.Event{Seq: seq, Type: typ, ReqKey: key(i), CompanyID: uint64(1 + i%9), Region: "test", Tick: tick,
				OccurredAt: at, ObservedAt: at, FirstSeen: t0, RawTitle: title, Country: "Germany", Board: "greenhouse", PostedAt: posted})
			want[key(i)] = latest{typ, title}
			seq++
			if i%2 == 0 {
				boards = append(boards, analytics.ReqBoard{ReqKey: key(i), BoardSighting: analytics.BoardSighting{CompanyID: uint64(1 + i%9),
					Board: fmt.Sprintf("board-%d", tick), SourceType: "board", FirstSeen: at}})
			}
		}
		if tick == 3 {
			// A crashed cycle wrote these event_seqs first, for other reqs: its rows are replaced.
			crashed := make([]analytics.Event, 0, 40)
			for j := range 40 {
				crashed = append(crashed, analytics.Event{Seq: evs[j].Seq, Type: analytics.EventOpened, ReqKey: key(1000 + j),
					CompanyID: 1, Region: "test", Tick: tick, OccurredAt: at, ObservedAt: at, FirstSeen: at, RawTitle: "crashed"})
			}
			insertEvents(t, ch, 1, crashed)
		}
		var cos []analytics.Company
		for c := uint64(1); c <= 9; c++ {
			cos = append(cos, analytics.Company{CompanyID: c, Domain: fmt.Sprintf("c%d.example", c), Name: fmt.Sprint("C", c), Region: "test", UpdatedAt: at})
		}
		c := analytics.Cycle{Region: "test", Tick: tick, CycleTime: at, StartedAt: at, Events: uint64(len(evs)), SeqFrom: evs[0].Seq, SeqTo: evs[len(evs)-1].Seq}
		require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: evs, Boards: boards, Companies: cos, Cycle: c}, 1000))
	}
	wm, at, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	g := analytics.AtWatermark(wm, at)

	read := func(perRange int) []analytics.LedgerReq {
		var out []analytics.LedgerReq
		require.NoError(t, analytics.StreamLedgerReqsInRanges(ctx, ch, g, perRange, func(r *analytics.LedgerReq) error {
			out = append(out, *r)
			return nil
		}))
		return out
	}
	whole := read(0)
	require.Len(t, whole, reqs)
	for i, r := range whole {
		if i > 0 {
			require.Less(t, whole[i-1].ReqKey, r.ReqKey, "ordered by req_key")
		}
		require.Equal(t, want[r.ReqKey], latest{r.EventType, r.RawTitle}, "req %s: its latest committed event", r.ReqKey)
		require.NotZero(t, r.OpenSeq)
	}
	for _, perRange := range []int{60, 250, 1 << 30} {
		ranges, err := analytics.ReqKeyRanges(ctx, ch, wm, perRange)
		require.NoError(t, err)
		require.Equal(t, "", ranges[0].From)
		require.Equal(t, "", ranges[len(ranges)-1].To)
		for i, r := range ranges {
			if i > 0 {
				require.Equal(t, ranges[i-1].To, r.From, "ranges follow one another")
			}
			if r.From != "" && r.To != "" {
				require.Less(t, r.From, r.To)
			}
		}
		if perRange < 600 {
			require.Greater(t, len(ranges), 1, "%d events a range", perRange)
		}
		require.Equal(t, whole, read(perRange), "%d events a range: %d ranges", perRange, len(ranges))
	}
	require.Equal(t, whole, read(analytics.ReqRangeEvents))
}
