package events_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// gapLedger commits cycles of its region at ticks 0..3 and, when down, 20 (else 4): the first
// cycle after the 4..19 outage opens a req, closes one ordinarily and closes one whose sources
// were retired, each with the gap's bounds. It answers a server whose history headers come from
// the read snapshot as the binary's do (cmd/hiringsignal pushDeps.history).
func gapLedger(t *testing.T, down bool) (*ledger, *apitest.Server) {
	t.Helper()
	l := newLedger(t)
	for range 4 {
		l.commit(t, 2, "Engineer")
	}
	after := uint32(4)
	if down {
		after = 20
	}
	at := l.cycleTime(after)
	evs := synth(l.next, l.next+2, at, "after")
	evs[0].Type = analytics.EventOpened
	evs[1].Type, evs[1].ReqKey = analytics.EventClosed, fmt.Sprintf("%016x", 1)
	evs[2].Type, evs[2].ReqKey = analytics.EventClosed, fmt.Sprintf("%016x", 2)
	evs[2].CloseReason = analytics.CloseSourceRetired
	if down {
		for i := range evs {
			evs[i].GapFrom, evs[i].GapTo = l.cycleTime(3), at
		}
	}
	c := analytics.Cycle{Region: "test", Tick: after, CycleTime: at, StartedAt: at, Events: 3, SeqFrom: l.next, SeqTo: l.next + 2}
	require.NoError(t, analytics.WriteCycle(context.Background(), l.ch, &analytics.CycleWrite{Events: evs, Cycle: c}, 1000))
	l.next += 3

	l.snaps = snapshot.New(snapshot.Config{ClickHouse: l.ch, Log: apitest.Quiet(), Poll: time.Hour})
	l.refresh(t)
	srv := apitest.StartServer(t, apitest.Options{DB: "events",
		Config: func(cfg *api.Config) {
			cfg.History = func() api.History {
				cur := l.snaps.Current()
				h := api.History{Complete: true, From: cur.Model.Since, Through: cur.AsOf}
				if g, ok := cur.LatestGap(); ok {
					h.GapFrom, h.GapTo = g.From, g.To
				}
				return h
			}
		},
		Register: func(s *api.Server, _ *pgxpool.Pool) {
			events.Register(s, events.Deps{Snapshots: l.snaps, ClickHouse: l.ch, Log: apitest.Quiet()})
		}})
	return l, srv
}

// Events first seen after a gap carry after_gap, a close of retired sources its close_reason,
// as the document declares them; the answer's history headers say the history is incomplete and
// name the gap. The same ledger without the gap serves neither and reads complete.
func TestEventsAfterAGapSayWhenTheyMayHaveHappenedAndClosesSayWhy(t *testing.T) {
	t.Parallel()
	for _, down := range []bool{true, false} {
		t.Run(fmt.Sprintf("down=%v", down), func(t *testing.T) {
			t.Parallel()
			l, srv := gapLedger(t, down)
			c := newCaller(t, srv, "growth")
			p := c.page(t, 8, 10, nil) // conforms to the served document
			require.Len(t, p.Events, 3)
			r := srv.Get(t, "/v1/events", c.key, map[string][]string{"since": {"8"}})
			srv.Conforms(t, "GET", "/v1/events", r)

			require.Equal(t, analytics.CloseSourceRetired, p.Events[2].CloseReason)
			require.Empty(t, p.Events[1].CloseReason, "an ordinary close")
			require.Empty(t, p.Events[0].CloseReason)
			if !down {
				for _, e := range p.Events {
					require.Nil(t, e.AfterGap)
				}
				require.NotContains(t, string(r.Body), "after_gap")
				require.Equal(t, "true", r.Header[api.HeaderHistoryComplete])
				require.NotContains(t, r.Header, api.HeaderHistoryGap)
				return
			}
			from, to := l.cycleTime(3).Format(time.RFC3339), l.cycleTime(20).Format(time.RFC3339)
			for _, e := range p.Events {
				require.NotNil(t, e.AfterGap, "event %d", e.EventSeq)
				require.Equal(t, from, e.AfterGap.From)
				require.Equal(t, to, e.AfterGap.To)
			}
			before := c.page(t, 0, 8, everyType) // the 8 events of the cycles before the gap
			for _, e := range before.Events {
				require.Nil(t, e.AfterGap, "an event of an ordinary cycle")
				require.Empty(t, e.CloseReason)
			}
			require.Equal(t, "false", r.Header[api.HeaderHistoryComplete])
			require.Equal(t, from+"/"+to, r.Header[api.HeaderHistoryGap])
			require.Equal(t, "2026-03-02T09:00:00Z/2026-03-04T12:00:00Z", r.Header[api.HeaderHistoryGap])
		})
	}
}
