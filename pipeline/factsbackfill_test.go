package pipeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
)

// The facts backfill re-derives each req's facts from its stored text and writes them on its
// latest committed event: a dry run writes nothing, --apply rewrites only the reqs whose facts
// changed (no event added, the watermark unchanged, every other column as it was), a second run
// changes nothing, and a run resumed after a req_key reads only the reqs after it.
func TestFactsBackfillRederivesFromStoredTexts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "pipeline_factsbackfill")
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

	text := jobtext.Clean(`<p>This is a fully remote role open to candidates in Germany (Remote - EMEA). We sponsor visas.</p>
<h3>Requirements</h3><ul><li>5+ years of experience with Go and PostgreSQL</li></ul><h3>Nice to have</h3><ul><li>Kafka</li></ul>`, analytics.MaxDescription)
	hash := analytics.DescriptionHash(text)
	const n = 7
	var events []analytics.Event
	var descs []analytics.Description
	key := func(i int) string { return fmt.Sprintf("%016x", 0xa0+i) }
	for i := range n {
		// Reqs 0..4 carry stale facts (derived before the fix, or never), 5 and 6 what the text says.
		f := analytics.Facts{EmploymentType: "full_time", DescriptionHash: hash}
		if i == 0 {
			f = analytics.Facts{} // written before facts were derived: no hash on the event either
		}
		events = append(events, analytics.Event{Seq: uint64(i + 1), Type: analytics.EventOpened, ReqKey: key(i), CompanyID: 7, Region: "eu",
			Tick: 1, OccurredAt: t0, ObservedAt: t0, FirstSeen: t0, RawTitle: "Senior Backend Engineer", Title: "backend engineer",
			Country: "Germany", Location: "Berlin", SourceType: "ats_tenant", Board: "lever", Boards: []string{"lever"}, Sources: []string{"lever:acme"},
			URL: "https://jobs.lever.co/acme/" + key(i), Facts: f})
		descs = append(descs, analytics.Description{ReqKey: key(i), Hash: hash, Text: text})
	}
	require.NoError(t, analytics.WriteDescriptions(ctx, ch, descs, t0))
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: events[:5],
		Cycle: analytics.Cycle{Region: "eu", Tick: 1, CycleTime: t0, StartedAt: t0, Events: 5, SeqFrom: 1, SeqTo: 5}}, 1000))

	// What the crawl derives today, written with the last two reqs.
	years, yes := uint8(5), true
	want := analytics.Facts{Technologies: []string{"go", "postgresql", "kafka"},
		TechKinds: []uint8{analytics.TechRequired, analytics.TechRequired, analytics.TechNiceToHave}, Seniority: "senior",
		EmploymentType: "full_time", WorkplaceType: "remote", RemoteCountries: []string{"Germany"}, RemoteRegions: []string{"emea"},
		YearsMin: &years, Visa: &yes, DescriptionHash: hash}
	t1 := t0.Add(3 * time.Hour)
	for i := 5; i < n; i++ {
		events[i].Facts, events[i].Tick, events[i].OccurredAt, events[i].ObservedAt = want, 2, t1, t1
	}
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: events[5:],
		Cycle: analytics.Cycle{Region: "eu", Tick: 2, CycleTime: t1, StartedAt: t1, Events: 2, SeqFrom: 6, SeqTo: 7}}, 1000))
	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = key(i)
	}
	// The feed's employment type stands as stored; req 0 stored none, and its text states none.
	wantOf := func(k string) analytics.Facts {
		if k == key(0) {
			w := want
			w.EmploymentType = ""
			return w
		}
		return want
	}
	before, err := analytics.LatestEvents(ctx, ch, wm, keys)
	require.NoError(t, err)

	// A dry run counts and writes nothing.
	st, err := pipeline.BackfillFacts(ctx, pipeline.FactsBackfill{CH: ch, Batch: 3})
	require.NoError(t, err)
	require.Equal(t, pipeline.FactsBackfillStats{Reqs: n, Changed: 5, Last: key(n - 1)}, st)
	after, err := analytics.LatestEvents(ctx, ch, wm, keys)
	require.NoError(t, err)
	require.Equal(t, before, after)

	// Applied, in batches of 3: the five stale reqs get what the text says.
	st, err = pipeline.BackfillFacts(ctx, pipeline.FactsBackfill{CH: ch, Batch: 3, Apply: true})
	require.NoError(t, err)
	require.Equal(t, pipeline.FactsBackfillStats{Reqs: n, Changed: 5, Rewritten: 5, Last: key(n - 1)}, st)
	wm2, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, wm, wm2, "no event is added")
	after, err = analytics.LatestEvents(ctx, ch, wm, keys)
	require.NoError(t, err)
	for _, k := range keys {
		got, was := *after[k], *before[k]
		require.Equal(t, was.Seq, got.Seq, "%s: the same event", k)
		require.Equal(t, wantOf(k), got.Facts, "%s: the facts its text states", k)
		got.Facts, was.Facts = analytics.Facts{}, analytics.Facts{}
		require.Equal(t, was, got, "%s: every other column as it was", k)
	}

	// The read side reads them (FINAL): the snapshot's stream.
	got := map[string]analytics.Facts{}
	require.NoError(t, analytics.StreamLedgerReqs(ctx, ch, analytics.AtWatermark(wm, t1), func(r *analytics.LedgerReq) error {
		got[r.ReqKey] = r.Facts
		return nil
	}))
	for _, k := range keys {
		require.Equal(t, wantOf(k), got[k], k)
	}
	var rows uint64
	require.NoError(t, ch.QueryRow(ctx, "SELECT count() FROM events FINAL").Scan(&rows))
	require.EqualValues(t, n, rows, "one row per event")

	// Idempotent: a second run changes nothing; a resumed one reads only what follows.
	st, err = pipeline.BackfillFacts(ctx, pipeline.FactsBackfill{CH: ch, Apply: true})
	require.NoError(t, err)
	require.Equal(t, pipeline.FactsBackfillStats{Reqs: n, Last: key(n - 1)}, st)
	st, err = pipeline.BackfillFacts(ctx, pipeline.FactsBackfill{CH: ch, After: key(4), Apply: true})
	require.NoError(t, err)
	require.Equal(t, pipeline.FactsBackfillStats{Reqs: 2, Last: key(n - 1)}, st)

	_, err = pipeline.BackfillFacts(ctx, pipeline.FactsBackfill{CH: ch, After: "not a key"})
	require.ErrorContains(t, err, "not a req_key")
	_, err = pipeline.BackfillFacts(ctx, pipeline.FactsBackfill{CH: ch, Batch: 5000})
	require.ErrorContains(t, err, "1 to 1000")
}
