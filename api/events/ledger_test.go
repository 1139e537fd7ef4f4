package events_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// ledger is a ledger of its own that a test commits cycles to, one every 3 hours from t0 on,
// each of perCycle events, and a server paging it.
type ledger struct {
	ch    driver.Conn
	t0    time.Time
	tick  uint32
	next  uint64 // the next event_seq
	snaps *snapshot.Service
}

func newLedger(t *testing.T) *ledger {
	t.Helper()
	ch, _ := storetest.ClickHouse(t, "events")
	return &ledger{ch: ch, t0: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), next: 1}
}

// cycleTime is the time of the ledger's tick.
func (l *ledger) cycleTime(tick uint32) time.Time {
	return l.t0.Add(time.Duration(tick) * 3 * time.Hour)
}

// synth are the events from..to observed at at, titled title.
func synth(from, to uint64, at time.Time, title string) []analytics.Event {
	var out []analytics.Event
	for s := from; s <= to; s++ {
		out = append(out, analytics.Event{Seq: s, Type: analytics.EventTypes[s%4], ReqKey: fmt.Sprintf("%016x", s), CompanyID: 7,
			Region: "test", OccurredAt: at, ObservedAt: at, FirstSeen: at, RawTitle: fmt.Sprintf("%s %d", title, s),
			Country: "Germany", Function: "eng", Board: "greenhouse"})
	}
	return out
}

// commit commits the next cycle with n events titled title (WriteCycle: the wall clock is its version).
func (l *ledger) commit(t *testing.T, n int, title string) {
	t.Helper()
	at := l.cycleTime(l.tick)
	evs := synth(l.next, l.next+uint64(n)-1, at, title)
	c := analytics.Cycle{Region: "test", Tick: l.tick, CycleTime: at, StartedAt: at, Events: uint64(n), SeqFrom: l.next, SeqTo: l.next + uint64(n) - 1}
	require.NoError(t, analytics.WriteCycle(context.Background(), l.ch, &analytics.CycleWrite{Events: evs, Cycle: c}, 1000))
	l.tick++
	l.next += uint64(n)
}

// crash writes n events of the next cycle at version 1 without committing it.
func (l *ledger) crash(t *testing.T, n int) {
	t.Helper()
	b, err := l.ch.PrepareBatch(context.Background(), `INSERT INTO events (event_seq, version, event_type, req_key, company_id, region, tick,
		occurred_at, observed_at, first_seen, raw_title, country, function, board)`)
	require.NoError(t, err)
	for _, e := range synth(l.next, l.next+uint64(n)-1, l.cycleTime(l.tick), "crashed") {
		require.NoError(t, b.Append(e.Seq, uint64(1), e.Type, e.ReqKey, e.CompanyID, e.Region, l.tick, e.OccurredAt, e.ObservedAt,
			e.FirstSeen, e.RawTitle, e.Country, e.Function, e.Board))
	}
	require.NoError(t, b.Send())
}

// refresh builds the read snapshot of what is committed now (the server's, once started).
func (l *ledger) refresh(t *testing.T) {
	t.Helper()
	_, err := l.snaps.Refresh(context.Background(), false)
	require.NoError(t, err)
}

func TestFreePlanSeesAnEventOnceOldEnoughWithoutSkipping(t *testing.T) {
	t.Parallel()
	l := newLedger(t)
	for range 8 { // t0 .. t0+21h: all newer than the 24 h floor
		l.commit(t, 5, "early")
	}
	srv, snaps := startServer(t, l.ch)
	l.snaps = snaps
	free := newCaller(t, srv, "free")
	paid := newCaller(t, srv, "growth")

	p := free.page(t, 0, 0, everyType)
	require.Empty(t, p.Events, "nothing is 24 h old yet")
	require.Zero(t, p.NextCursor, "the cursor waits before the first event")
	require.False(t, p.HasMore)
	all, _ := paid.all(t, 0, 0, everyType)
	require.Len(t, all, 40)

	// Three more cycles: the latest is t0+30h, so the cycles of t0 and t0+3h and t0+6h are old enough.
	for range 3 {
		l.commit(t, 5, "later")
	}
	l.refresh(t)
	got, cursor := free.all(t, 0, 4, everyType)
	require.Equal(t, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, seqsOf(got))
	require.Equal(t, uint64(15), cursor)
	for _, e := range got {
		require.Nil(t, e.CompanyName, "a company the read model does not know is null")
		require.Equal(t, "DE", *e.CountryCode)
	}

	// A day later every early event is old enough and is served after the cursor, none skipped.
	for range 8 {
		l.commit(t, 5, "later")
	}
	l.refresh(t)
	more, cursor := free.all(t, cursor, 7, everyType)
	require.Equal(t, uint64(16), more[0].EventSeq)
	require.Equal(t, uint64(55), cursor, "events of cycles up to t0+30h")
	require.Len(t, more, 40)
	for i, e := range more {
		require.Equal(t, uint64(16+i), e.EventSeq)
	}
	free.requireUnits(t)
	paid.requireUnits(t)
}

func TestUncommittedRowsAreNeverServedAndARerunReplacesThem(t *testing.T) {
	t.Parallel()
	l := newLedger(t)
	l.commit(t, 10, "committed")
	l.crash(t, 6) // 11..16 written, never committed
	srv, snaps := startServer(t, l.ch)
	l.snaps = snaps
	c := newCaller(t, srv, "growth")

	got, cursor := c.all(t, 0, 4, everyType)
	require.Equal(t, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, seqsOf(got))
	require.Equal(t, uint64(10), cursor)
	p := c.page(t, 10, 0, everyType)
	require.Empty(t, p.Events, "rows above the watermark are not served")
	// Not even after a cursor inside them: the head is the committed watermark, so such a cursor
	// is ahead of it.
	inv := srv.Get(t, "/v1/events", c.key, url.Values{"since": {"12"}}).Invalid(t)
	require.Equal(t, []string{"query.since"}, inv.Locs())
	require.Contains(t, inv.Detail[0].Msg, "ahead of the newest event 10")

	// The rerun writes 11..14 again (a higher version) and commits; 15 and 16 stay uncommitted.
	l.commit(t, 4, "rerun")
	// Committed but not yet in the read snapshot: a cursor there is not ahead of the head, so the
	// page is empty and keeps it until the snapshot catches up.
	p = c.page(t, 12, 0, everyType)
	require.Empty(t, p.Events)
	require.Equal(t, uint64(12), p.NextCursor)
	l.refresh(t)
	got, cursor = c.all(t, 10, 0, everyType)
	require.Equal(t, []uint64{11, 12, 13, 14}, seqsOf(got))
	require.Equal(t, uint64(14), cursor)
	for _, e := range got {
		require.Equal(t, fmt.Sprintf("rerun %d", e.EventSeq), e.RawTitle, "the rerun's version replaces the crashed one")
	}
	c.requireUnits(t)
}

// Without event_type the feed leaves reobserved out (a heartbeat: the req is still live), so a
// consumer mirroring the feed is billed change units for the changes only; a call that names
// reobserved gets it, alone or with the others, and naming every type serves the whole ledger.
// Each page meters exactly the events it served.
func TestReobservedIsServedOnlyToACallThatNamesIt(t *testing.T) {
	t.Parallel()
	l := newLedger(t)
	for range 3 {
		l.commit(t, 8, "Engineer") // synth: every fourth event (seq%4 == 1) is reobserved
	}
	srv, snaps := startServer(t, l.ch)
	l.snaps = snaps
	seqs := func(keep func(typ string) bool) []uint64 {
		var out []uint64
		for s := uint64(1); s <= 24; s++ {
			if keep(analytics.EventTypes[s%4]) {
				out = append(out, s)
			}
		}
		return out
	}
	require.Equal(t, analytics.EventReobserved, analytics.EventTypes[1])

	mirror := newCaller(t, srv, "growth")
	got, cursor := mirror.all(t, 0, 5, nil)
	require.Equal(t, seqs(func(typ string) bool { return typ != analytics.EventReobserved }), seqsOf(got))
	require.Equal(t, uint64(24), cursor, "the cursor reaches the head over the reobserved events")
	for _, e := range got {
		require.NotEqual(t, analytics.EventReobserved, e.EventType)
	}
	mirror.requireUnits(t)
	_, changes := mirror.usage(t)
	require.Equal(t, 18, changes, "no change unit for a heartbeat")

	heartbeats := newCaller(t, srv, "growth")
	got, _ = heartbeats.all(t, 0, 5, url.Values{"event_type": {analytics.EventReobserved}})
	require.Equal(t, seqs(func(typ string) bool { return typ == analytics.EventReobserved }), seqsOf(got))
	got, _ = heartbeats.all(t, 0, 5, url.Values{"event_type": {analytics.EventOpened, analytics.EventReobserved}})
	require.Equal(t, seqs(func(typ string) bool { return typ == analytics.EventOpened || typ == analytics.EventReobserved }), seqsOf(got))
	got, cursor = heartbeats.all(t, 0, 5, everyType)
	require.Equal(t, seqs(func(string) bool { return true }), seqsOf(got))
	require.Equal(t, uint64(24), cursor)
	heartbeats.requireUnits(t)
}
