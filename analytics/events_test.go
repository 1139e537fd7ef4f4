package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// insertEvents writes ledger rows with an explicit version and no cycles row: what a cycle that
// crashed before its commit leaves behind.
func insertEvents(t *testing.T, ch driver.Conn, version uint64, evs []analytics.Event) {
	t.Helper()
	b, err := ch.PrepareBatch(context.Background(), `INSERT INTO events (event_seq, version, event_type, req_key, company_id, region, tick,
		occurred_at, observed_at, first_seen, raw_title, function, country, board, url)`)
	require.NoError(t, err)
	for _, e := range evs {
		require.NoError(t, b.Append(e.Seq, version, e.Type, e.ReqKey, e.CompanyID, e.Region, e.Tick, e.OccurredAt, e.ObservedAt,
			e.FirstSeen, e.RawTitle, e.Function, e.Country, e.Board, e.URL))
	}
	require.NoError(t, b.Send())
}

// synthEvents are events from..to of one cycle at at, alternating two companies and the four types.
func synthEvents(from, to uint64, at time.Time, title string) []analytics.Event {
	var out []analytics.Event
	for s := from; s <= to; s++ {
		out = append(out, analytics.Event{Seq: s, Type: analytics.EventTypes[s%4], ReqKey: fmt.Sprintf("%016x", s), CompanyID: 1 + s%2,
			Region: "test", OccurredAt: at, ObservedAt: at, FirstSeen: at, RawTitle: fmt.Sprintf("%s %d", title, s), Board: "greenhouse"})
	}
	return out
}

// commit writes evs as a committed cycle at tick (WriteCycle: its version is the wall clock).
// An empty cycle is numbered as the crawler numbers one: seq_from is the next event_seq, seq_to
// the one before.
func commit(t *testing.T, ch driver.Conn, tick uint32, at time.Time, next uint64, evs []analytics.Event) {
	t.Helper()
	c := analytics.Cycle{Region: "test", Tick: tick, CycleTime: at, StartedAt: at, Events: uint64(len(evs)), SeqFrom: next, SeqTo: next - 1}
	if len(evs) > 0 {
		c.SeqFrom, c.SeqTo = evs[0].Seq, evs[len(evs)-1].Seq
	}
	require.NoError(t, analytics.WriteCycle(context.Background(), ch, &analytics.CycleWrite{Events: evs, Cycle: c}, 1000))
}

func seqs(evs []analytics.FeedEvent) []uint64 {
	out := make([]uint64, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func span(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func TestReadFeedServesTheHighestVersionBelowTheBoundInPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	t0 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	// A crashed cycle wrote 1..60; its rerun commits 1..50 (higher version, other titles).
	insertEvents(t, ch, 1, synthEvents(1, 60, t0, "crashed"))
	commit(t, ch, 1, t0, 1, synthEvents(1, 50, t0, "rerun"))
	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, uint64(50), wm)

	var got []analytics.FeedEvent
	after := uint64(0)
	for range 10 {
		p, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: after, Upper: wm, Limit: 7})
		require.NoError(t, err)
		require.GreaterOrEqual(t, p.Next, after)
		got = append(got, p.Events...)
		if p.Next == after {
			break
		}
		after = p.Next
	}
	require.Equal(t, span(1, 50), seqs(got), "every committed event once, in order, none above the watermark")
	for _, e := range got {
		require.Equal(t, fmt.Sprintf("rerun %d", e.Seq), e.RawTitle, "the rerun's higher version")
	}

	// The same cursor replays the same page.
	a, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 21, Upper: wm, Limit: 7})
	require.NoError(t, err)
	b, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 21, Upper: wm, Limit: 7})
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.Equal(t, span(22, 28), seqs(a.Events))
	require.Equal(t, uint64(28), a.Next)

	// At the head: an empty page keeps the cursor.
	p, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 50, Upper: wm, Limit: 7})
	require.NoError(t, err)
	require.Empty(t, p.Events)
	require.Equal(t, uint64(50), p.Next)
}

func TestReadFeedFiltersTheLatestVersionWithinABoundedSpan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	t0 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	evs := synthEvents(1, 40, t0, "first")
	insertEvents(t, ch, 1, evs)
	// A higher version of event 9 (company 2, reobserved) makes it company 1, closed.
	changed := evs[8]
	changed.CompanyID, changed.Type = 1, analytics.EventClosed
	insertEvents(t, ch, 2, []analytics.Event{changed})

	// Company 2's events are the odd seqs, except 9 which is company 1's now.
	p, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{Upper: 40, Limit: 100, Span: 100, CompanyIDs: []uint64{2}})
	require.NoError(t, err)
	var want []uint64
	for s := uint64(1); s <= 40; s += 2 {
		if s != 9 {
			want = append(want, s)
		}
	}
	require.Equal(t, want, seqs(p.Events))
	require.Equal(t, uint64(40), p.Next, "not full: the end of the span")

	// closed and company 1: seq%4 == 3 with an even seq never happens, so only the changed 9.
	p, err = analytics.ReadFeed(ctx, ch, analytics.FeedQuery{Upper: 40, Limit: 100, Span: 100, CompanyIDs: []uint64{1},
		Types: []string{analytics.EventClosed}})
	require.NoError(t, err)
	require.Equal(t, []uint64{9}, seqs(p.Events))
	require.Equal(t, analytics.EventClosed, p.Events[0].Type)

	// A full filtered page ends at its last event; a span bounds what a page examines.
	p, err = analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 10, Upper: 40, Limit: 3, Span: 100, Types: []string{analytics.EventOpened}})
	require.NoError(t, err)
	require.Equal(t, []uint64{12, 16, 20}, seqs(p.Events))
	require.Equal(t, uint64(20), p.Next)
	p, err = analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: 12, Upper: 40, Limit: 3, Span: 3, Types: []string{analytics.EventOpened}})
	require.NoError(t, err)
	require.Empty(t, p.Events)
	require.Equal(t, uint64(15), p.Next, "an empty filtered page advances over the span it examined")

	_, err = analytics.ReadFeed(ctx, ch, analytics.FeedQuery{Upper: 40, Limit: 3, Span: 3, Types: []string{"x') OR 1 --"}})
	require.Error(t, err)
}

func TestFlooredWatermarkStopsBeforeTheFirstCycleNewerThanTheCutoff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	t0 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	commit(t, ch, 1, t0, 1, synthEvents(1, 10, t0, "a"))
	commit(t, ch, 2, t0.Add(3*time.Hour), 11, nil) // an empty cycle
	commit(t, ch, 3, t0.Add(6*time.Hour), 11, synthEvents(11, 20, t0.Add(6*time.Hour), "b"))
	// Committed after tick 3 but observed earlier (cycle times need not follow event_seq).
	commit(t, ch, 4, t0.Add(4*time.Hour), 21, synthEvents(21, 25, t0.Add(4*time.Hour), "c"))
	wm, at, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	g := analytics.AtWatermark(wm, at)

	for _, c := range []struct {
		cutoff time.Time
		want   uint64
	}{
		{t0.Add(-time.Hour), 0},
		{t0, 10},
		{t0.Add(5 * time.Hour), 10}, // tick 4 (21..25) is old enough but tick 3 (11..20) is not: stop at 10
		{t0.Add(6 * time.Hour), 25},
	} {
		got, err := analytics.FlooredWatermark(ctx, ch, g, c.cutoff)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "cutoff %s", c.cutoff)
	}
	// Never above the bound's own watermark.
	got, err := analytics.FlooredWatermark(ctx, ch, analytics.AtWatermark(20, t0.Add(6*time.Hour)), t0.Add(6*time.Hour))
	require.NoError(t, err)
	require.Equal(t, uint64(20), got)
}

func TestReadFeedCarriesTheLocationAndTheWriteVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics")
	t0 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	evs := synthEvents(1, 3, t0, "located")
	evs[0].Location, evs[0].Country = "Berlin, Germany", "Germany"
	before := uint64(time.Now().UnixNano())
	commit(t, ch, 1, t0, 1, evs)
	p, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{Upper: 3, Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Events, 3)
	require.Equal(t, "Berlin, Germany", p.Events[0].Location)
	require.Empty(t, p.Events[1].Location, "a posting without location text")
	for _, e := range p.Events {
		require.GreaterOrEqual(t, e.Version, before, "WriteCycle's version is the wall clock of the write")
		require.LessOrEqual(t, e.Version, uint64(time.Now().UnixNano()))
	}
}
