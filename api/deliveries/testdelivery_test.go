package deliveries_test

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

func (h *harness) test(t *testing.T, key string, ep int64) apitest.Response {
	t.Helper()
	r := h.Post(t, "/v1/webhooks/"+itoa(ep)+"/test", key, nil)
	h.Conforms(t, "POST", "/v1/webhooks/{id}/test", r)
	return r
}

// POST /v1/webhooks/{id}/test writes a pending test delivery, due now, with its body built
// around its own id, and wakes the dispatcher; it is bounded per endpoint and never billed.
func TestTestDeliveriesAreQueuedDueNowAndBounded(t *testing.T) {
	// Not parallel: it listens on DeliveriesChannel, the database's, which sibling tests' replays
	// and test deliveries would wake.
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "test")
	l := listen(t, h)

	r := h.test(t, a.Key, ep)
	require.Equal(t, 201, r.Status, string(r.Body))
	var d delivery
	require.NoError(t, json.Unmarshal(r.Body, &d))
	l.woken(t)
	require.Equal(t, payload.TestKey(d.ID), d.IdempotencyKey)
	require.Equal(t, payload.EventTest, d.EventType)
	require.Nil(t, d.WatchID)
	require.Nil(t, d.EventSeq)
	require.Equal(t, ep, d.EndpointID)
	require.Equal(t, oltp.DeliveryPending, d.Status)
	require.Zero(t, d.AttemptCount)
	require.NotNil(t, d.NextAttemptAt)

	// The row as the dispatcher will find it: due now, the caller's key and account, the body.
	var (
		due     bool
		keyID   *int64
		account int64
		body    []byte
	)
	require.NoError(t, h.Pool.QueryRow(context.Background(), `SELECT status IN ('pending', 'retrying') AND next_attempt_at <= now(), key_id, account_id, body
		FROM webhook_deliveries WHERE delivery_id = $1`, d.ID).Scan(&due, &keyID, &account, &body))
	require.True(t, due)
	require.Equal(t, a.KeyID, *keyID)
	require.Equal(t, a.AccountID, account)
	var b payload.Body
	require.NoError(t, json.Unmarshal(body, &b))
	require.Equal(t, payload.EventTest, b.Event)
	require.Equal(t, d.ID, b.DeliveryID)
	require.Equal(t, d.IdempotencyKey, b.IdempotencyKey)
	require.Equal(t, ep, b.WebhookID)
	require.Nil(t, b.WatchID)
	require.Nil(t, b.EventSeq)
	occurred, err := time.Parse(time.RFC3339, b.OccurredAt)
	require.NoError(t, err)
	require.WithinDuration(t, d.CreatedAt, occurred, time.Second)

	// It is listed and detailed like any delivery.
	got := h.list(t, a.Key, url.Values{"webhook_endpoint_id": {itoa(ep)}})
	require.Equal(t, []int64{d.ID}, ids(got.Deliveries))
	det := h.Get(t, "/v1/webhook-deliveries/"+itoa(d.ID), a.Key, nil)
	require.Equal(t, 200, det.Status)
	require.JSONEq(t, string(body), string(det.Fields(t)["body"]))

	// The bound: MaxTestDeliveries per endpoint per window, then 409; another endpoint has its own.
	for i := 1; i < admit.MaxTestDeliveries; i++ {
		require.Equal(t, 201, h.test(t, a.Key, ep).Status)
		l.woken(t)
	}
	c := conflictOf(t, h.test(t, a.Key, ep))
	require.Equal(t, admit.ReasonTooManyTests, c.Reason)
	require.Equal(t, "/v1/webhooks/{id}/test", c.Endpoint)
	require.Empty(t, c.Status)
	l.quiet(t)
	require.Len(t, h.list(t, a.Key, url.Values{"webhook_endpoint_id": {itoa(ep)}, "limit": {"100"}}).Deliveries, admit.MaxTestDeliveries)
	ep2 := h.endpoint(t, a.Key, "test2")
	require.Equal(t, 201, h.test(t, a.Key, ep2).Status)
	l.woken(t)
	// Once the window passed (the rows aged), the endpoint takes tests again.
	_, err = h.Pool.Exec(context.Background(), "UPDATE webhook_deliveries SET created_at = created_at - interval '61 seconds' WHERE endpoint_id = $1", ep)
	require.NoError(t, err)
	require.Equal(t, 201, h.test(t, a.Key, ep).Status)
	l.woken(t)

	// Not billed: no usage unit of any kind.
	require.NoError(t, h.API.FlushUsage(context.Background()))
	var units int64
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM usage_events WHERE account_id = $1 AND meter_class <> $2",
		a.AccountID, oltp.MeterWatch).Scan(&units))
	require.Zero(t, units)
}

// A disabled endpoint takes no test (409 naming its state); a deleted, missing or another
// customer's endpoint is 404; the demo key and read-only keys are refused.
func TestTestDeliveryRefusals(t *testing.T) {
	// Not parallel: it listens on DeliveriesChannel, the database's, which sibling tests' replays
	// and test deliveries would wake.
	h := start(t)
	a, other := h.RoomyAccount(t, "growth"), h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "refused")
	theirs := h.endpoint(t, other.Key, "theirs")
	l := listen(t, h)

	_, err := h.Pool.Exec(context.Background(), "UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'failing for 5 days' WHERE endpoint_id = $1", ep)
	require.NoError(t, err)
	c := conflictOf(t, h.test(t, a.Key, ep))
	require.Equal(t, admit.ReasonEndpointOff, c.Reason)
	require.Contains(t, c.Message, "disabled")

	missing := h.test(t, a.Key, 999999)
	require.Equal(t, 404, missing.Status)
	require.Equal(t, string(missing.Body), string(h.test(t, a.Key, theirs).Body))
	require.Equal(t, 404, h.test(t, a.Key, theirs).Status)
	ep2 := h.endpoint(t, a.Key, "deleted")
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/webhooks/"+itoa(ep2), a.Key, nil).Status)
	require.Equal(t, 404, h.test(t, a.Key, ep2).Status)

	r := h.test(t, api.PublicDemoKey, theirs)
	require.Equal(t, 403, r.Status)
	require.Equal(t, "insufficient_scope", apitest.Object(t, r)["detail"].(map[string]any)["reason"])
	ro := h.Post(t, "/v1/keys", other.Key, map[string]any{"scopes": []string{"read"}})
	require.Equal(t, 201, ro.Status, string(ro.Body))
	require.Equal(t, 403, h.test(t, apitest.Object(t, ro)["key"].(string), theirs).Status)
	l.quiet(t)
	require.Empty(t, h.list(t, a.Key, nil).Deliveries)
	require.Empty(t, h.list(t, other.Key, nil).Deliveries)
}

// The usage dashboard counts the wall_blocked and cap_blocked deliveries of the billing month.
func TestDashboardCountsBlockedDeliveriesOfTheMonth(t *testing.T) {
	t.Parallel()
	h := start(t)
	a, other := h.RoomyAccount(t, "growth"), h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "dash")
	w := h.watch(t, a.Key, ep)
	theirs := h.endpoint(t, other.Key, "dash")
	theirWatch := h.watch(t, other.Key, theirs)
	now := time.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	sinceMonth := now.Sub(month)
	for _, r := range []row{
		{watch: w, endpoint: ep, status: oltp.DeliveryWallBlocked},
		{watch: w, endpoint: ep, status: oltp.DeliveryWallBlocked, age: sinceMonth / 2},
		{watch: w, endpoint: ep, status: oltp.DeliveryWallBlocked, age: sinceMonth - time.Minute},
		{watch: w, endpoint: ep, status: oltp.DeliveryCapBlocked},
		{watch: w, endpoint: ep, status: oltp.DeliveryCapBlocked, age: sinceMonth / 3},
		// Not counted: last month's, other statuses.
		{watch: w, endpoint: ep, status: oltp.DeliveryWallBlocked, age: sinceMonth + time.Hour},
		{watch: w, endpoint: ep, status: oltp.DeliveryCapBlocked, age: sinceMonth + 24*time.Hour},
		{watch: w, endpoint: ep, status: oltp.DeliveryRateLimited},
		{watch: w, endpoint: ep, status: oltp.DeliveryFailed},
		{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, deliveredAt: true, billed: true},
	} {
		h.insert(t, a, r)
	}
	h.insert(t, other, row{watch: theirWatch, endpoint: theirs, status: oltp.DeliveryWallBlocked})

	blocked := func(key string) map[string]any {
		r := h.Get(t, "/v1/usage/dashboard", key, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		h.Conforms(t, "GET", "/v1/usage/dashboard", r)
		return apitest.Object(t, r)["blocked_deliveries"].(map[string]any)
	}
	require.Equal(t, map[string]any{"wall_blocked": 3.0, "cap_blocked": 2.0}, blocked(a.Key))
	require.Equal(t, map[string]any{"wall_blocked": 1.0, "cap_blocked": 0.0}, blocked(other.Key))
}

// Racing test calls on one endpoint make exactly MaxTestDeliveries deliveries; the rest are 409.
func TestRacingTestDeliveriesHoldTheBound(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "race")
	const n = 2 * admit.MaxTestDeliveries
	paths := make([]string, n)
	for i := range paths {
		paths[i] = "/v1/webhooks/" + itoa(ep) + "/test"
	}
	require.Equal(t, map[int]int{201: admit.MaxTestDeliveries, 409: n - admit.MaxTestDeliveries}, h.postAtOnce(t, a.Key, paths...))
	var rows int
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1", ep).Scan(&rows))
	require.Equal(t, admit.MaxTestDeliveries, rows)
}
