package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// A req's posted_at is the one of the first event that carried it, whatever its latest event is:
// a Greenhouse req opened with first_published keeps it through reobserved events that carry
// none, an update of its title, a close and a repost with a later date. A req no event dated
// has none.
func TestPostedAtIsKeptFromTheFirstObservationThatCarriedIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "analytics_postedat")
	t0 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	posted := time.Date(2026, 2, 20, 9, 30, 0, 0, time.UTC)
	later := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	ev := func(seq uint64, typ, key, title string, at time.Time, p *time.Time) analytics.Event {
		return analytics.Event{Seq: seq, Type: typ, ReqKey: key, CompanyID: 7, Region: "test", Tick: uint32(seq), OccurredAt: at,
			ObservedAt: at, FirstSeen: t0, RawTitle: title, Country: "Germany", Board: "greenhouse", PostedAt: p}
	}
	history := []analytics.Event{
		ev(1, analytics.EventOpened, "dated", "Data Engineer", t0, &posted),
		ev(2, analytics.EventOpened, "undated", "Recruiter", t0, nil),
	}
	commit(t, ch, 1, t0, 1, history)
	steps := []struct {
		typ, title string
		p          *time.Time
	}{
		{analytics.EventReobserved, "Data Engineer", nil},
		{analytics.EventReobserved, "Senior Data Engineer", nil}, // the title was updated at the source
		{analytics.EventReobserved, "Senior Data Engineer", nil},
		{analytics.EventClosed, "Senior Data Engineer", nil},
		{analytics.EventReposted, "Senior Data Engineer", &later},
		{analytics.EventReobserved, "Senior Data Engineer", nil},
	}
	seq := uint64(3)
	for i, s := range steps {
		at := t0.Add(time.Duration(i+1) * 3 * time.Hour)
		evs := []analytics.Event{ev(seq, s.typ, "dated", s.title, at, s.p), ev(seq+1, analytics.EventReobserved, "undated", "Recruiter", at, nil)}
		commit(t, ch, uint32(i+2), at, seq, evs)
		seq += 2

		wm, asOf, err := analytics.Watermark(ctx, ch)
		require.NoError(t, err)
		got := map[string]*time.Time{}
		latest := map[string]string{}
		require.NoError(t, analytics.StreamLedgerReqs(ctx, ch, analytics.AtWatermark(wm, asOf), func(r *analytics.LedgerReq) error {
			got[r.ReqKey], latest[r.ReqKey] = r.PostedAt, r.EventType
			return nil
		}))
		require.Equal(t, s.typ, latest["dated"])
		require.NotNil(t, got["dated"], "posted_at after a %s event (step %d)", s.typ, i+1)
		require.True(t, got["dated"].Equal(posted), "posted_at after a %s event (step %d): %s", s.typ, i+1, got["dated"])
		require.Nil(t, got["undated"], "a req no event dated has no posted_at")

		touched := map[string]*time.Time{}
		require.NoError(t, analytics.StreamTouchedLedgerReqs(ctx, ch, analytics.AtWatermark(wm, asOf), wm-2, wm, func(r *analytics.LedgerReq) error {
			touched[r.ReqKey] = r.PostedAt
			return nil
		}))
		require.Equal(t, got, touched, "the notifier's read of the touched reqs agrees")
	}
}
