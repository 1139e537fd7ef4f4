package outcomes_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type attribution struct {
	Labels []struct {
		OutcomeID      int64     `json:"outcome_id"`
		CompanyID      int64     `json:"company_id"`
		Outcome        string    `json:"outcome"`
		Signals        int       `json:"signals"`
		Signals14d     int       `json:"signals_14d"`
		FirstSignalAt  time.Time `json:"first_signal_at"`
		LastSignalAt   time.Time `json:"last_signal_at"`
		LastDeliveryID int64     `json:"last_delivery_id"`
		Attributed     bool      `json:"attributed"`
	} `json:"labels"`
	NextCursor *int64 `json:"next_cursor"`
	HasMore    bool   `json:"has_more"`
	Signalled  int    `json:"signalled_labels"`
	Attributed int    `json:"attributed_14d"`
	ByOutcome  map[string]struct {
		Labels        int `json:"labels"`
		Attributed14d int `json:"attributed_14d"`
	} `json:"by_outcome"`
	WindowDays int `json:"window_days"`
}

func (h *harness) attribution(t *testing.T, key string, q url.Values) attribution {
	t.Helper()
	r := h.Get(t, "/v1/attribution", key, q)
	h.Conforms(t, "GET", "/v1/attribution", r)
	var out attribution
	r.Decode(t, 200, &out)
	return out
}

// Attribution joins the caller's labels to the deliveries its endpoints accepted for the same
// company before the outcome: 13 days after a delivery is attributed, 15 days after is listed but
// not attributed, a label before any delivery, of a company never signalled or only signalled by
// a failed delivery is absent; another customer sees none of it, even for the same company.
func TestAttributionJoinsOwnLabelsToOwnAcceptedDeliveriesWithin14Days(t *testing.T) {
	t.Parallel()
	h := start(t)
	a, b := h.account(t, "growth"), h.account(t, "growth")
	f := h.f
	x, y, z, never := f.scorable[0], f.scorable[1], f.scorable[2], f.scorable[3]
	ep := h.endpoint(t, a.Key, "a")
	wx, wz := h.watch(t, a.Key, x, ep), h.watch(t, a.Key, z, ep)
	wy := h.watch(t, a.Key, y, ep)
	t0 := time.Now().UTC().Add(-30 * 24 * time.Hour).Truncate(time.Second)
	dx := h.deliver(t, a, ep, wx, x, t0)
	h.deliver(t, a, ep, wy, y, t0.Add(-20*24*time.Hour))
	h.deliver(t, a, ep, wz, z, time.Time{}) // failed: never accepted

	var company int64
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT company_id FROM webhook_deliveries WHERE delivery_id = $1", dx).Scan(&company))
	require.Equal(t, int64(x), company, "the trigger takes the company from the body")

	at := func(d time.Duration) string { return t0.Add(d).Format(time.RFC3339) }
	day := 24 * time.Hour
	var in13, in15, before, onY, onZ, onNever label
	h.post(t, a.Key, x, map[string]any{"outcome": "won", "occurred_at": at(13 * day)}).Decode(t, 201, &in13)
	h.post(t, a.Key, x, map[string]any{"outcome": "meeting", "occurred_at": at(15 * day)}).Decode(t, 201, &in15)
	h.post(t, a.Key, x, map[string]any{"outcome": "lost", "occurred_at": at(-day)}).Decode(t, 201, &before)
	h.post(t, a.Key, y, map[string]any{"outcome": "won", "occurred_at": at(-6 * day)}).Decode(t, 201, &onY) // 14 days after y's delivery
	h.post(t, a.Key, z, map[string]any{"outcome": "won", "occurred_at": at(day)}).Decode(t, 201, &onZ)
	h.post(t, a.Key, never, map[string]any{"outcome": "won", "occurred_at": at(day)}).Decode(t, 201, &onNever)
	// b labels the same company after a's delivery: a's signals are not b's.
	h.post(t, b.Key, x, map[string]any{"outcome": "won", "occurred_at": at(2 * day)}).Decode(t, 201, &label{})

	got := h.attribution(t, a.Key, nil)
	require.Equal(t, 14, got.WindowDays)
	ids := []int64{}
	for _, l := range got.Labels {
		ids = append(ids, l.OutcomeID)
	}
	require.Equal(t, []int64{onY.OutcomeID, in15.OutcomeID, in13.OutcomeID}, ids, "newest label first; before, onZ and onNever absent")
	byID := map[int64]int{}
	for i, l := range got.Labels {
		byID[l.OutcomeID] = i
	}
	l13 := got.Labels[byID[in13.OutcomeID]]
	require.True(t, l13.Attributed)
	require.Equal(t, 1, l13.Signals)
	require.Equal(t, 1, l13.Signals14d)
	require.Equal(t, dx, l13.LastDeliveryID)
	require.True(t, t0.Equal(l13.LastSignalAt))
	l15 := got.Labels[byID[in15.OutcomeID]]
	require.False(t, l15.Attributed, "15 days after the delivery is outside the window")
	require.Equal(t, 1, l15.Signals)
	require.Zero(t, l15.Signals14d)
	require.True(t, got.Labels[byID[onY.OutcomeID]].Attributed, "exactly 14 days after is inside the window")
	require.Equal(t, 3, got.Signalled)
	require.Equal(t, 2, got.Attributed)
	require.Equal(t, 2, got.ByOutcome["won"].Labels)
	require.Equal(t, 2, got.ByOutcome["won"].Attributed14d)
	require.Equal(t, 1, got.ByOutcome["meeting"].Labels)
	require.Zero(t, got.ByOutcome["meeting"].Attributed14d)
	require.NotContains(t, got.ByOutcome, "lost")

	// Pages: one label each, by cursor, neither missing nor repeating one; totals on every page.
	var paged []int64
	q := url.Values{"limit": {"1"}}
	for {
		p := h.attribution(t, a.Key, q)
		require.Equal(t, 2, p.Attributed)
		for _, l := range p.Labels {
			paged = append(paged, l.OutcomeID)
		}
		if !p.HasMore {
			require.Nil(t, p.NextCursor)
			break
		}
		q.Set("cursor", itoa(*p.NextCursor))
	}
	require.Equal(t, ids, paged)
	r := h.Get(t, "/v1/attribution", a.Key, url.Values{"limit": {"201"}})
	require.Equal(t, 422, r.Status)

	other := h.attribution(t, b.Key, nil)
	require.Empty(t, other.Labels, "b's endpoints accepted nothing")
	require.Zero(t, other.Signalled)
	require.Zero(t, other.Attributed)
}
