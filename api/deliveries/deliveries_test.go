package deliveries_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/deliveries"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

// The list is the caller's deliveries, most recent first, and every filter selects exactly its
// subset; another customer's deliveries never show.
func TestListIsMostRecentFirstAndEveryFilterSelects(t *testing.T) {
	t.Parallel()
	h := start(t)
	a, other := h.RoomyAccount(t, "growth"), h.RoomyAccount(t, "growth")
	ep1, ep2 := h.endpoint(t, a.Key, "one"), h.endpoint(t, a.Key, "two")
	w1, w2 := h.watch(t, a.Key, ep1), h.watch(t, a.Key, ep2)
	theirs := h.endpoint(t, other.Key, "one")
	theirWatch := h.watch(t, other.Key, theirs)
	h.insert(t, other, row{watch: theirWatch, endpoint: theirs, status: oltp.DeliveryDelivered})

	type made struct {
		id int64
		r  row
	}
	var all []made
	for _, r := range []row{
		{watch: w1, endpoint: ep1, status: oltp.DeliveryDelivered, age: 10 * 24 * time.Hour, attempts: 1, respStatus: ptr(200), respMS: ptr(12), deliveredAt: true, billed: true},
		{watch: w1, endpoint: ep1, status: oltp.DeliveryFailed, age: 9 * 24 * time.Hour, attempts: 8, respStatus: ptr(500), respMS: ptr(40)},
		{watch: w2, endpoint: ep2, status: oltp.DeliveryRateLimited, age: 5 * 24 * time.Hour},
		{watch: w2, endpoint: ep2, status: oltp.DeliveryWallBlocked, age: 4 * 24 * time.Hour},
		{watch: w1, endpoint: ep1, status: oltp.DeliveryCapBlocked, age: 3 * 24 * time.Hour},
		{watch: w2, endpoint: ep2, status: oltp.DeliveryRetrying, age: 2 * time.Hour, attempts: 2},
		{endpoint: ep1, status: oltp.DeliveryPending, age: time.Minute},
		{watch: w1, endpoint: ep1, status: oltp.DeliveryPending},
	} {
		all = append(all, made{h.insert(t, a, r), r})
	}
	want := func(keep func(row) bool) []int64 {
		var out []int64
		for i := len(all) - 1; i >= 0; i-- {
			if keep(all[i].r) {
				out = append(out, all[i].id)
			}
		}
		if out == nil {
			out = []int64{}
		}
		return out
	}

	p := h.list(t, a.Key, nil)
	require.Equal(t, want(func(row) bool { return true }), ids(p.Deliveries), "most recent first")
	require.False(t, p.HasMore)
	require.Nil(t, p.NextCursor)

	// Each delivery carries its fields as written.
	byID := map[int64]delivery{}
	for _, d := range p.Deliveries {
		byID[d.ID] = d
	}
	first := byID[all[0].id]
	require.Equal(t, payload.EventKey(w1, uint64(all[0].id)), first.IdempotencyKey)
	require.Equal(t, w1, *first.WatchID)
	require.Equal(t, ep1, first.EndpointID)
	require.Equal(t, "opened", first.EventType)
	require.Equal(t, all[0].id, *first.EventSeq)
	require.Equal(t, oltp.DeliveryDelivered, first.Status)
	require.Equal(t, 1, first.AttemptCount)
	require.Equal(t, 200, *first.ResponseStatus)
	require.Equal(t, 12, *first.ResponseMS)
	require.NotNil(t, first.DeliveredAt)
	require.Nil(t, first.NextAttemptAt)
	require.Nil(t, first.ReplayedAt)
	require.WithinDuration(t, time.Now().Add(-10*24*time.Hour), first.CreatedAt, time.Minute)
	test := byID[all[6].id]
	require.Nil(t, test.WatchID)
	require.Nil(t, test.EventSeq)
	require.Equal(t, "test", test.EventType)
	require.Nil(t, test.ResponseStatus)
	require.Nil(t, test.DeliveredAt)
	require.NotNil(t, test.NextAttemptAt)

	cases := []struct {
		q    url.Values
		keep func(row) bool
	}{
		{url.Values{"status": {"delivered"}}, func(r row) bool { return r.status == oltp.DeliveryDelivered }},
		{url.Values{"status": {"wall_blocked", "cap_blocked", "wall_blocked"}}, func(r row) bool {
			return r.status == oltp.DeliveryWallBlocked || r.status == oltp.DeliveryCapBlocked
		}},
		{url.Values{"status": {"pending", "retrying"}}, func(r row) bool {
			return r.status == oltp.DeliveryPending || r.status == oltp.DeliveryRetrying
		}},
		{url.Values{"watch_id": {itoa(w1)}}, func(r row) bool { return r.watch == w1 }},
		{url.Values{"watch_id": {itoa(w2)}, "status": {"rate_limited"}}, func(r row) bool { return r.watch == w2 && r.status == oltp.DeliveryRateLimited }},
		{url.Values{"webhook_endpoint_id": {itoa(ep1)}}, func(r row) bool { return r.endpoint == ep1 }},
		{url.Values{"webhook_endpoint_id": {itoa(ep2)}}, func(r row) bool { return r.endpoint == ep2 }},
		{url.Values{"created_since": {time.Now().Add(-6 * 24 * time.Hour).UTC().Format(time.RFC3339)}}, func(r row) bool { return r.age < 6*24*time.Hour }},
		{url.Values{"created_since": {time.Now().Add(-3 * time.Hour).UTC().Format(time.RFC3339)}, "webhook_endpoint_id": {itoa(ep1)}},
			func(r row) bool { return r.age < 3*time.Hour && r.endpoint == ep1 }},
		{url.Values{"created_since": {time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}}, func(row) bool { return false }},
		// Another customer's watch or endpoint selects nothing, like a missing one.
		{url.Values{"watch_id": {itoa(theirWatch)}}, func(row) bool { return false }},
		{url.Values{"webhook_endpoint_id": {itoa(theirs)}}, func(row) bool { return false }},
		{url.Values{"webhook_endpoint_id": {"999999"}}, func(row) bool { return false }},
	}
	for _, c := range cases {
		got := h.list(t, a.Key, c.q)
		require.Equal(t, want(c.keep), ids(got.Deliveries), "%v", c.q)
	}
	require.Len(t, h.list(t, other.Key, nil).Deliveries, 1)

	// Bad parameters are 422 in the framework's shape, never a partial answer.
	for _, q := range []url.Values{{"status": {"sent"}}, {"limit": {"0"}}, {"limit": {"101"}}, {"cursor": {"0"}}, {"cursor": {"x"}},
		{"watch_id": {"0"}}, {"created_since": {"yesterday"}}, {"webhook_endpoint_id": {"-1"}}, {"limit": {"5", "6"}}} {
		r := h.Get(t, "/v1/webhook-deliveries", a.Key, q)
		require.Equal(t, 422, r.Status, "%v: %s", q, r.Body)
		h.Conforms(t, "GET", "/v1/webhook-deliveries", r)
	}
}

// Cursor paging serves every matching delivery exactly once, in order, for any page size and
// filter, and the default page is DefaultLimit.
func TestCursorPagingHasNoGapsOrRepeats(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "page")
	w := h.watch(t, a.Key, ep)
	var made, failed []int64
	for i := 0; i < 53; i++ {
		st := oltp.DeliveryDelivered
		if i%3 == 0 {
			st = oltp.DeliveryFailed
		}
		id := h.insert(t, a, row{watch: w, endpoint: ep, status: st})
		made = append(made, id)
		if st == oltp.DeliveryFailed {
			failed = append(failed, id)
		}
	}
	slices.Reverse(made)
	slices.Reverse(failed)
	for _, limit := range []int{1, 7, 20, 53, 100} {
		require.Equal(t, made, h.all(t, a.Key, nil, limit), "limit %d", limit)
		require.Equal(t, failed, h.all(t, a.Key, url.Values{"status": {"failed"}}, limit), "limit %d", limit)
	}
	p := h.list(t, a.Key, nil)
	require.Len(t, p.Deliveries, deliveries.DefaultLimit)
	require.True(t, p.HasMore)
	require.Equal(t, made[deliveries.DefaultLimit-1], *p.NextCursor)

	// A delivery written while paging appears on no later page (it is newer than the cursor) and
	// on the first page of a new listing.
	q := url.Values{"limit": {"10"}}
	first := h.list(t, a.Key, q)
	fresh := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryPending})
	q.Set("cursor", itoa(*first.NextCursor))
	second := h.list(t, a.Key, q)
	require.Equal(t, made[10:20], ids(second.Deliveries))
	require.Equal(t, fresh, h.list(t, a.Key, url.Values{"limit": {"1"}}).Deliveries[0].ID)

	// The demo key pages at most api.DemoPageLimit and sees none of this customer's deliveries.
	demo := h.list(t, api.PublicDemoKey, nil)
	require.Empty(t, demo.Deliveries)
	r := h.Get(t, "/v1/webhook-deliveries", api.PublicDemoKey, url.Values{"limit": {"6"}})
	require.Equal(t, 422, r.Status, string(r.Body))
}

// The detail is one delivery with its attempts, oldest first, and its body as stored.
func TestDetailCarriesAttemptsAndBody(t *testing.T) {
	t.Parallel()
	h := start(t)
	a, other := h.RoomyAccount(t, "growth"), h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "detail")
	w := h.watch(t, a.Key, ep)
	id := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 3, respStatus: ptr(204), respMS: ptr(31), deliveredAt: true, billed: true})
	h.attempt(t, id, 1, nil, 15000, ptr("timeout after 15s"))
	h.attempt(t, id, 2, ptr(503), 20, ptr("HTTP 503"))
	h.attempt(t, id, 3, ptr(204), 31, nil)
	var stored []byte
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT body FROM webhook_deliveries WHERE delivery_id = $1", id).Scan(&stored))

	r := h.Get(t, "/v1/webhook-deliveries/"+itoa(id), a.Key, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	h.Conforms(t, "GET", "/v1/webhook-deliveries/{delivery_id}", r)
	var d struct {
		delivery
		Attempts []struct {
			Attempt        int       `json:"attempt"`
			StartedAt      time.Time `json:"started_at"`
			ResponseStatus *int      `json:"response_status"`
			ResponseMS     *int      `json:"response_ms"`
			Error          *string   `json:"error"`
		} `json:"attempts"`
		Body json.RawMessage `json:"body"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &d))
	require.Equal(t, id, d.ID)
	require.Equal(t, oltp.DeliveryDelivered, d.Status)
	require.Equal(t, 3, d.AttemptCount)
	require.Equal(t, 204, *d.ResponseStatus)
	require.JSONEq(t, string(stored), string(d.Body), "the body exactly as stored")
	var b payload.Body
	require.NoError(t, json.Unmarshal(d.Body, &b))
	require.Equal(t, id, b.DeliveryID)
	require.Equal(t, d.IdempotencyKey, b.IdempotencyKey)
	require.Len(t, d.Attempts, 3)
	for i, at := range d.Attempts {
		require.Equal(t, i+1, at.Attempt)
		if i > 0 {
			require.True(t, at.StartedAt.After(d.Attempts[i-1].StartedAt))
		}
	}
	require.Nil(t, d.Attempts[0].ResponseStatus)
	require.Equal(t, "timeout after 15s", *d.Attempts[0].Error)
	require.Equal(t, 15000, *d.Attempts[0].ResponseMS)
	require.Equal(t, 503, *d.Attempts[1].ResponseStatus)
	require.Nil(t, d.Attempts[2].Error)

	// Without attempts: an empty array. Missing, another customer's and malformed ids.
	queued := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryPending})
	r = h.Get(t, "/v1/webhook-deliveries/"+itoa(queued), a.Key, nil)
	require.Equal(t, 200, r.Status)
	require.Equal(t, []any{}, apitest.Object(t, r)["attempts"])
	missing := h.Get(t, "/v1/webhook-deliveries/999999", a.Key, nil)
	require.Equal(t, 404, missing.Status)
	h.Conforms(t, "GET", "/v1/webhook-deliveries/{delivery_id}", missing)
	require.Equal(t, 404, h.Get(t, "/v1/webhook-deliveries/"+itoa(id), other.Key, nil).Status)
	require.Equal(t, 422, h.Get(t, "/v1/webhook-deliveries/abc", a.Key, nil).Status)
	require.Equal(t, 422, h.Get(t, "/v1/webhook-deliveries/0", a.Key, nil).Status)
}
