package notifier_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/oltp"
)

// A watch's deliveries of an event after a gap say so (after_gap, as on the change feed), and a
// close of a retired source says why (close_reason); other bodies carry neither.
func TestDeliveriesSayWhenTheirEventFollowsAGapAndWhyItClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, ep := e.account("growth")
	w := e.watch(a, ep, 7, "", types, 1000)
	n := e.start(0)

	before := e.commit(ev{7, "opened", "Germany"}, ev{7, "opened", "Germany"})
	// The next cycle follows a 4-day outage: its events carry the gap's bounds; one close is a
	// retired source's.
	at := e.at.Add(time.Duration(e.tick) * time.Minute)
	from := at.Add(-4 * 24 * time.Hour)
	rows := []analytics.Event{
		{Type: analytics.EventOpened, ReqKey: "req-new", GapFrom: from, GapTo: at},
		{Type: analytics.EventClosed, ReqKey: fmt.Sprintf("req-%d", before[0]), GapFrom: from, GapTo: at, CloseReason: analytics.CloseSourceRetired},
		{Type: analytics.EventClosed, ReqKey: fmt.Sprintf("req-%d", before[1]), GapFrom: from, GapTo: at},
	}
	for i := range rows {
		r := &rows[i]
		r.Seq, r.CompanyID, r.Region, r.Tick, r.OccurredAt, r.ObservedAt, r.FirstSeen = e.next+uint64(i), 7, "test", e.tick, at, at, at
		r.RawTitle, r.Country, r.Board = "Backend Engineer", "Germany", "greenhouse"
	}
	c := analytics.Cycle{Region: "test", Tick: e.tick, CycleTime: at, StartedAt: at, Events: 3, SeqFrom: e.next, SeqTo: e.next + 2}
	require.NoError(t, analytics.WriteCycle(context.Background(), e.ch, &analytics.CycleWrite{Events: rows, Cycle: c}, 1000))
	e.next += 3
	e.tick++
	_, err := e.snaps.Refresh(context.Background(), false)
	require.NoError(t, err)
	e.caughtUp(n)

	got := e.deliveries()
	require.Equal(t, []uint64{1, 2, 3, 4, 5}, seqsOf(got, w, oltp.DeliveryPending))
	bodies := map[uint64]map[string]any{}
	for _, r := range got {
		var m map[string]any
		require.NoError(t, json.Unmarshal(r.Body, &m))
		bodies[r.Seq] = m
		var b payload.Body
		require.NoError(t, json.Unmarshal(r.Body, &b), "the body decodes as payload.Body")
	}
	gap := map[string]any{"from": from.Format(time.RFC3339), "to": at.Format(time.RFC3339)}
	for _, seq := range []uint64{1, 2} {
		require.NotContains(t, bodies[seq], "after_gap", "an event of an ordinary cycle")
		require.NotContains(t, bodies[seq], "close_reason")
	}
	require.Equal(t, gap, bodies[3]["after_gap"])
	require.NotContains(t, bodies[3], "close_reason", "an opening has no close reason")
	require.Equal(t, gap, bodies[4]["after_gap"])
	require.Equal(t, "source_retired", bodies[4]["close_reason"])
	require.Equal(t, gap, bodies[5]["after_gap"])
	require.NotContains(t, bodies[5], "close_reason", "an ordinary close")
}
