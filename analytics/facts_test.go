package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// A req's facts ride on its events and read back as written (the crawl's attributes, the read
// snapshot's stream); its description is stored once per distinct text and read by the hash the
// latest event names.
func TestFactsAndDescriptionsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics_facts")
	t0 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	const key, bare = "00000000000000aa", "00000000000000bb"
	v1, v2 := "Build the payments API in Go.\n\nRequirements\n\n- 5+ years of Go", "Build the payments API in Go and Rust."
	years := uint8(5)
	yes := true
	lo, hi := 90000.0, 120000.0
	facts := analytics.Facts{Technologies: []string{"go", "postgresql", "rust"},
		TechKinds: []uint8{analytics.TechRequired, analytics.TechNamed, analytics.TechNiceToHave},
		Seniority: "senior", EmploymentType: "full_time", WorkplaceType: "remote", RemoteCountries: []string{"Germany", "Poland"},
		RemoteRegions: []string{"emea", "europe"}, YearsMin: &years, Visa: &yes,
		StatedPay:       &analytics.StatedPay{Min: &lo, Max: &hi, Currency: "CAD", CurrencyInferred: true, Period: "year", Text: "$90,000 - $120,000 per year"},
		DescriptionHash: analytics.DescriptionHash(v1)}
	ev := func(seq uint64, typ, k string, at time.Time, f analytics.Facts) analytics.Event {
		return analytics.Event{Seq: seq, Type: typ, ReqKey: k, CompanyID: 7, Region: "test", Tick: uint32(seq), OccurredAt: at,
			ObservedAt: at, FirstSeen: t0, RawTitle: "Senior Backend Engineer", Country: "Germany", Board: "lever", Facts: f}
	}
	write := func(tick uint32, at time.Time, evs []analytics.Event, ds []analytics.Description) {
		require.NoError(t, analytics.WriteDescriptions(ctx, ch, ds, at), "written ahead of the cycle that names them")
		c := analytics.Cycle{Region: "test", Tick: tick, CycleTime: at, StartedAt: at, Events: uint64(len(evs)), SeqFrom: evs[0].Seq, SeqTo: evs[len(evs)-1].Seq}
		require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: evs, Cycle: c}, 1000))
	}
	write(1, t0, []analytics.Event{ev(1, analytics.EventOpened, key, t0, facts), ev(2, analytics.EventOpened, bare, t0, analytics.Facts{})},
		[]analytics.Description{{ReqKey: key, Hash: facts.DescriptionHash, Text: v1}})

	last, err := analytics.LatestEvents(ctx, ch, 2, []string{key, bare})
	require.NoError(t, err)
	require.Equal(t, facts, last[key].Facts, "the crawl reads the facts back as written")
	require.Equal(t, analytics.Facts{}, last[bare].Facts, "a posting that says nothing has empty facts")

	stream := func() map[string]analytics.Facts {
		wm, asOf, err := analytics.Watermark(ctx, ch)
		require.NoError(t, err)
		out := map[string]analytics.Facts{}
		require.NoError(t, analytics.StreamLedgerReqs(ctx, ch, analytics.AtWatermark(wm, asOf), func(r *analytics.LedgerReq) error {
			out[r.ReqKey] = r.Facts
			return nil
		}))
		return out
	}
	require.Equal(t, facts, stream()[key], "the read snapshot reads them too")

	got, err := analytics.ReadDescriptions(ctx, ch, map[string]uint64{key: facts.DescriptionHash, bare: 0})
	require.NoError(t, err)
	require.Equal(t, map[string]string{key: v1}, got, "a req without a description has none")

	// The text changes: the next event names the new hash, and the new text is read by it.
	f2 := facts
	f2.DescriptionHash = analytics.DescriptionHash(v2)
	t1 := t0.Add(3 * time.Hour)
	write(2, t1, []analytics.Event{ev(3, analytics.EventReobserved, key, t1, f2)}, []analytics.Description{{ReqKey: key, Hash: f2.DescriptionHash, Text: v2}})
	require.Equal(t, f2.DescriptionHash, stream()[key].DescriptionHash)
	got, err = analytics.ReadDescriptions(ctx, ch, map[string]uint64{key: f2.DescriptionHash})
	require.NoError(t, err)
	require.Equal(t, v2, got[key])
	got, err = analytics.ReadDescriptions(ctx, ch, map[string]uint64{key: facts.DescriptionHash})
	require.NoError(t, err)
	require.Equal(t, v1, got[key], "the earlier text stays readable by its hash")

	// What a ledger row must not hold is refused before anything is written.
	bad := facts
	bad.TechKinds = bad.TechKinds[:1]
	c := analytics.Cycle{Region: "test", Tick: 3, CycleTime: t1, StartedAt: t1, Events: 1, SeqFrom: 4, SeqTo: 4}
	require.ErrorContains(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: []analytics.Event{ev(4, analytics.EventReobserved, key, t1, bad)}, Cycle: c}, 10), "kinds")
	require.ErrorContains(t, analytics.WriteDescriptions(ctx, ch, []analytics.Description{{ReqKey: key, Hash: 12, Text: v1}}, t1), "hash")
	_, err = analytics.ReadDescriptions(ctx, ch, map[string]uint64{"x' OR 1=1 --": 1})
	require.ErrorContains(t, err, "not a req_key")
}

func TestDescriptionHash(t *testing.T) {
	t.Parallel()
	require.Zero(t, analytics.DescriptionHash(""))
	require.NotZero(t, analytics.DescriptionHash("a"))
	require.Equal(t, analytics.DescriptionHash("same text"), analytics.DescriptionHash("same text"))
	require.NotEqual(t, analytics.DescriptionHash("text a"), analytics.DescriptionHash("text b"))
}
