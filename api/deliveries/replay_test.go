package deliveries_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// listener holds a LISTEN on oltp.DeliveriesChannel, as the dispatcher does.
type listener struct{ conn *pgxpool.Conn }

func listen(t *testing.T, h *harness) *listener {
	t.Helper()
	conn, err := h.Pool.Acquire(context.Background())
	require.NoError(t, err)
	t.Cleanup(conn.Release)
	_, err = conn.Exec(context.Background(), "LISTEN "+oltp.DeliveriesChannel)
	require.NoError(t, err)
	return &listener{conn: conn}
}

// woken requires a notification on the channel (it was sent with the commit that made a row due).
func (l *listener) woken(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := l.conn.Conn().WaitForNotification(ctx)
	require.NoError(t, err, "no NOTIFY %s", oltp.DeliveriesChannel)
	require.Equal(t, oltp.DeliveriesChannel, n.Channel)
}

// quiet requires no notification pending: the bounded wait only ends early if one arrived.
func (l *listener) quiet(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := l.conn.Conn().WaitForNotification(ctx)
	require.Error(t, err, "an unexpected NOTIFY %s", oltp.DeliveriesChannel)
}

func (h *harness) replay(t *testing.T, key string, id int64) apitest.Response {
	t.Helper()
	r := h.Post(t, "/v1/webhook-deliveries/"+itoa(id)+"/replay", key, nil)
	h.Conforms(t, "POST", "/v1/webhook-deliveries/{delivery_id}/replay", r)
	return r
}

func conflictOf(t *testing.T, r apitest.Response) api.Conflict {
	t.Helper()
	require.Equal(t, 409, r.Status, string(r.Body))
	var b struct {
		Detail api.Conflict `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &b))
	return b.Detail
}

// Replay reopens a delivered or failed delivery once (pending, due now, the dispatcher woken, the
// billing left as it is); again, or on a delivery already queued, it answers the delivery as it is.
func TestReplayReopensDeliveredAndFailedDeliveriesIdempotently(t *testing.T) {
	// Not parallel: it listens on DeliveriesChannel, the database's, which sibling tests' replays
	// and test deliveries would wake.
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "replay")
	w := h.watch(t, a.Key, ep)
	l := listen(t, h)

	for _, r := range []row{
		{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, age: 29 * 24 * time.Hour, attempts: 2, respStatus: ptr(200), respMS: ptr(9), deliveredAt: true, billed: true},
		{watch: w, endpoint: ep, status: oltp.DeliveryFailed, age: 3 * 24 * time.Hour, attempts: 9, respStatus: ptr(500), respMS: ptr(30)},
		{endpoint: ep, status: oltp.DeliveryFailed, age: time.Hour, attempts: 1},
	} {
		id := h.insert(t, a, r)
		before := h.state(t, id)
		res := h.replay(t, a.Key, id)
		require.Equal(t, 200, res.Status, string(res.Body))
		var d delivery
		require.NoError(t, json.Unmarshal(res.Body, &d))
		require.Equal(t, id, d.ID)
		require.Equal(t, oltp.DeliveryPending, d.Status)
		require.NotNil(t, d.NextAttemptAt)
		require.NotNil(t, d.ReplayedAt)
		require.Equal(t, r.attempts, d.AttemptCount, "attempts made stay counted")
		l.woken(t)

		after := h.state(t, id)
		require.Equal(t, oltp.DeliveryPending, after.Status)
		require.WithinDuration(t, time.Now(), *after.NextAttemptAt, time.Minute, "due now")
		require.Equal(t, 1, after.ReplayCount)
		require.Equal(t, before.BilledAt, after.BilledAt, "billing untouched: the unit id bills it once")
		require.Equal(t, before.DeliveredAt, after.DeliveredAt)

		// Again: the delivery as it is, nothing reopened twice, nobody woken.
		again := h.replay(t, a.Key, id)
		require.Equal(t, 200, again.Status)
		require.JSONEq(t, string(res.Body), string(again.Body))
		require.Equal(t, 1, h.state(t, id).ReplayCount)
		l.quiet(t)
	}

	// Pending and retrying deliveries are answered as they are: not moved forward, not reopened.
	for _, st := range []string{oltp.DeliveryPending, oltp.DeliveryRetrying} {
		id := h.insert(t, a, row{watch: w, endpoint: ep, status: st, attempts: 1})
		before := h.state(t, id)
		res := h.replay(t, a.Key, id)
		require.Equal(t, 200, res.Status, string(res.Body))
		require.Equal(t, st, apitest.Object(t, res)["status"])
		after := h.state(t, id)
		require.Equal(t, before, after)
		l.quiet(t)
	}

	// Replay is a write: the demo key and a read-only key are refused; the row is untouched.
	id := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed})
	res := h.replay(t, api.PublicDemoKey, id)
	require.Equal(t, 403, res.Status, string(res.Body))
	require.Equal(t, "insufficient_scope", apitest.Object(t, res)["detail"].(map[string]any)["reason"])
	ro := h.Post(t, "/v1/keys", a.Key, map[string]any{"scopes": []string{"read"}})
	require.Equal(t, 201, ro.Status, string(ro.Body))
	res = h.replay(t, apitest.Object(t, ro)["key"].(string), id)
	require.Equal(t, 403, res.Status, string(res.Body))
	require.Equal(t, oltp.DeliveryFailed, h.state(t, id).Status)
}

// Deliveries never sent (rate_limited, wall_blocked, cap_blocked), past the replay window, or to
// a deleted or disabled endpoint are 409 with a reason naming why; nothing changes.
func TestReplayRefusalsNameTheirReason(t *testing.T) {
	// Not parallel: it listens on DeliveriesChannel, the database's, which sibling tests' replays
	// and test deliveries would wake.
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "refusals")
	w := h.watch(t, a.Key, ep)
	l := listen(t, h)
	refused := func(id int64, reason string) api.Conflict {
		t.Helper()
		before := h.state(t, id)
		c := conflictOf(t, h.replay(t, a.Key, id))
		require.Equal(t, reason, c.Reason, c.Message)
		require.Equal(t, "/v1/webhook-deliveries/{delivery_id}/replay", c.Endpoint)
		require.Equal(t, before.Status, c.Status)
		require.Equal(t, before, h.state(t, id))
		return c
	}
	for _, st := range []string{oltp.DeliveryRateLimited, oltp.DeliveryWallBlocked, oltp.DeliveryCapBlocked} {
		c := refused(h.insert(t, a, row{watch: w, endpoint: ep, status: st}), admit.ReasonNotReplayable)
		require.Contains(t, c.Message, st)
	}
	// The window: ReplayWindow after creation.
	old := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, age: admit.ReplayWindow + time.Hour, deliveredAt: true, billed: true})
	c := refused(old, admit.ReasonWindowExpired)
	require.Contains(t, c.Message, "30 days")
	inside := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, age: admit.ReplayWindow - time.Hour})
	require.Equal(t, 200, h.replay(t, a.Key, inside).Status)
	l.woken(t)

	// A disabled endpoint, then a deleted one.
	failed := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed})
	queued := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryRetrying})
	_, err := h.Pool.Exec(context.Background(), "UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'answered 410 Gone' WHERE endpoint_id = $1", ep)
	require.NoError(t, err)
	c = refused(failed, admit.ReasonEndpointOff)
	require.Contains(t, c.Message, itoa(ep))
	require.Equal(t, 200, h.replay(t, a.Key, queued).Status, "a queued delivery is answered as it is")
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/watches/"+itoa(w), a.Key, nil).Status)
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/webhooks/"+itoa(ep), a.Key, nil).Status)
	refused(failed, admit.ReasonEndpointDeleted)
	l.quiet(t)

	// Missing and another customer's deliveries are the same 404.
	other := h.RoomyAccount(t, "growth")
	require.Equal(t, 404, h.replay(t, other.Key, failed).Status)
	require.Equal(t, 404, h.replay(t, a.Key, 999999).Status)
}

// Racing replays of one delivery reopen it once.
func TestRacingReplaysReopenOnce(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "race")
	w := h.watch(t, a.Key, ep)
	id := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 9})
	paths := make([]string, 8)
	for i := range paths {
		paths[i] = "/v1/webhook-deliveries/" + itoa(id) + "/replay"
	}
	require.Equal(t, map[int]int{200: 8}, h.postAtOnce(t, a.Key, paths...))
	st := h.state(t, id)
	require.Equal(t, oltp.DeliveryPending, st.Status)
	require.Equal(t, 1, st.ReplayCount)
}
