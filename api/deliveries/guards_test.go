package deliveries_test

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// detailBody is the body GET /v1/webhook-deliveries/{id} answers for id (checked against the
// document).
func (h *harness) detailBody(t *testing.T, key string, id int64) json.RawMessage {
	t.Helper()
	r := h.Get(t, "/v1/webhook-deliveries/"+itoa(id), key, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	h.Conforms(t, "GET", "/v1/webhook-deliveries/{delivery_id}", r)
	return r.Fields(t)["body"]
}

// sinceMonth is how long ago the billing month began.
func sinceMonth() time.Duration {
	return time.Since(oltp.MonthStart(time.Now()))
}

// A delivery neither admitted against the allowance and the cap nor ever sent gives nothing
// away: a blocked one (rate_limited, wall_blocked, cap_blocked) and a failed one without any
// attempt (its endpoint was disabled) answer body null. Before, a Free key read every blocked
// change's title, url and company past its 50 delivered changes a month, unbilled.
func TestDetailServesNoBodyForADeliveryNeitherAdmittedNorSent(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "free")
	ep := h.endpoint(t, a.Key, "nobody")
	w := h.watch(t, a.Key, ep)
	for _, r := range []row{
		{watch: w, endpoint: ep, status: oltp.DeliveryWallBlocked},
		{watch: w, endpoint: ep, status: oltp.DeliveryCapBlocked},
		{watch: w, endpoint: ep, status: oltp.DeliveryRateLimited},
		{watch: w, endpoint: ep, status: oltp.DeliveryFailed}, // failed unsent: the endpoint was disabled
	} {
		id := h.insert(t, a, r)
		require.Equal(t, "null", string(h.detailBody(t, a.Key, id)), r.status)
	}
	// What was admitted or sent keeps its body.
	for _, r := range []row{
		{watch: w, endpoint: ep, status: oltp.DeliveryPending},
		{watch: w, endpoint: ep, status: oltp.DeliveryRetrying, attempts: 1},
		{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 1, deliveredAt: true, billed: true},
		{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 12},
		{endpoint: ep, status: oltp.DeliveryFailed, attempts: 1},
	} {
		id := h.insert(t, a, r)
		var stored []byte
		require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT body FROM webhook_deliveries WHERE delivery_id = $1", id).Scan(&stored))
		require.JSONEq(t, string(stored), string(h.detailBody(t, a.Key, id)), r.status)
	}
	// The list never carries a body; the blocked rows show as rows (watch, event, status).
	blocked := h.list(t, a.Key, url.Values{"status": {"wall_blocked", "cap_blocked", "rate_limited"}})
	require.Len(t, blocked.Deliveries, 3)

	// Nothing can store a blocked delivery's body (migration 0022's CHECK).
	_, err := h.Pool.Exec(context.Background(), "UPDATE webhook_deliveries SET body = '{}' WHERE delivery_id = $1", blocked.Deliveries[0].ID)
	require.ErrorContains(t, err, "webhook_deliveries_blocked_without_body")
}

// A replay of a watch delivery never accepted (not billed) is admitted as the notifier admits a
// new one: past the plan's monthly allowance it is 409 changes_wall_reached and nothing changes.
// Before, a receiver answering 410 once had every later delivery failed unsent, outside the
// allowance, and re-registering the url and replaying them delivered all of them past the wall.
func TestReplayOfANeverBilledDeliveryIsHeldToTheWall(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "free")
	const url0 = "https://hooks.example.com/gone"
	ep := h.Endpoint(t, a.Key, url0)
	w := h.watch(t, a.Key, ep)
	const wall = 50 // the Free plan's delivered changes a month
	for range wall - 2 {
		h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 1, deliveredAt: true, billed: true})
	}
	billed := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 1, deliveredAt: true, billed: true})
	// The receiver answered 410: the endpoint is disabled and the deliveries after it failed unsent.
	var failed []int64
	for range 3 {
		failed = append(failed, h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed}))
	}
	_, err := h.Pool.Exec(context.Background(), "UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'gone' WHERE endpoint_id = $1", ep)
	require.NoError(t, err)
	require.Equal(t, admit.ReasonEndpointOff, conflictOf(t, h.replay(t, a.Key, failed[0])).Reason)
	require.Equal(t, ep, h.Endpoint(t, a.Key, url0), "registering the url again enables the same endpoint")

	// One slot is left: the first replay takes it, the next are refused and left as they are.
	r := h.replay(t, a.Key, failed[0])
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, oltp.DeliveryPending, apitest.Object(t, r)["status"])
	for _, id := range failed[1:] {
		before := h.state(t, id)
		c := conflictOf(t, h.replay(t, a.Key, id))
		require.Equal(t, admit.ReasonWallReached, c.Reason, c.Message)
		require.Equal(t, oltp.DeliveryFailed, c.Status)
		require.Contains(t, c.Message, "50 delivered changes")
		require.Equal(t, before, h.state(t, id))
	}

	// A slot given back (a delivery failed, never accepted) is taken again by the next replay.
	_, err = h.Pool.Exec(context.Background(), "UPDATE webhook_deliveries SET status = 'failed', attempt_count = 12 WHERE delivery_id = $1", failed[0])
	require.NoError(t, err)
	require.Equal(t, 200, h.replay(t, a.Key, failed[1]).Status)
	require.Equal(t, admit.ReasonWallReached, conflictOf(t, h.replay(t, a.Key, failed[2])).Reason)

	// A delivery already billed replays free of the wall; so does a test delivery.
	require.Equal(t, 200, h.replay(t, a.Key, billed).Status)
	test := h.insert(t, a, row{endpoint: ep, status: oltp.DeliveryFailed, attempts: 1})
	require.Equal(t, 200, h.replay(t, a.Key, test).Status)
	// A billed delivery whose replay failed (the receiver answered 410 again) keeps its slot:
	// failing replays of accepted deliveries does not make room for new changes.
	_, err = h.Pool.Exec(context.Background(), "UPDATE webhook_deliveries SET status = 'failed' WHERE delivery_id IN ($1, $2)", billed, failed[1])
	require.NoError(t, err)
	require.Equal(t, 200, h.replay(t, a.Key, failed[2]).Status, "the slot failed[1] gave back")
	require.Equal(t, admit.ReasonWallReached, conflictOf(t, h.replay(t, a.Key, failed[1])).Reason)

	// The dashboard counts only the notifier's blocked rows: a refused replay is not one.
	d := h.Get(t, "/v1/usage/dashboard", a.Key, nil)
	require.Equal(t, 200, d.Status, string(d.Body))
	require.Equal(t, map[string]any{"wall_blocked": 0.0, "cap_blocked": 0.0}, apitest.Object(t, d)["blocked_deliveries"])
}

// A delivery created in an earlier billing month and replayed now counts against this month's
// allowance (readmitted_at), so replays of last month's failures cannot pass the wall together.
func TestReplaysOfEarlierMonthsCountAgainstThisMonth(t *testing.T) {
	t.Parallel()
	age := sinceMonth() + time.Hour
	if age > admit.ReplayWindow-time.Hour {
		t.Skip("the billing month is as long as the replay window: no delivery of last month is still replayable")
	}
	h := start(t)
	a := h.RoomyAccount(t, "free")
	ep := h.endpoint(t, a.Key, "months")
	w := h.watch(t, a.Key, ep)
	for range 48 {
		h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 1, deliveredAt: true, billed: true})
	}
	var old []int64
	for range 4 {
		old = append(old, h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 12, age: age}))
	}
	require.Equal(t, 200, h.replay(t, a.Key, old[0]).Status)
	require.Equal(t, 200, h.replay(t, a.Key, old[1]).Status)
	require.Equal(t, admit.ReasonWallReached, conflictOf(t, h.replay(t, a.Key, old[2])).Reason)
	var readmitted int
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_deliveries WHERE account_id = $1 AND readmitted_at IS NOT NULL",
		a.AccountID).Scan(&readmitted))
	require.Equal(t, 2, readmitted)
}

// Racing replays of never-billed deliveries take exactly the slots left.
func TestRacingReplaysHoldTheWall(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "free")
	ep := h.endpoint(t, a.Key, "race-wall")
	w := h.watch(t, a.Key, ep)
	for range 45 {
		h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 1, deliveredAt: true, billed: true})
	}
	var failed []int64
	for range 12 {
		failed = append(failed, h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 1}))
	}
	var paths []string
	for _, id := range failed {
		paths = append(paths, "/v1/webhook-deliveries/"+itoa(id)+"/replay")
	}
	require.Equal(t, map[int]int{200: 5, 409: 7}, h.postAtOnce(t, a.Key, paths...))
}

// A replay of a never-billed delivery is refused at the account's hard spend cap (its units of
// the month plus its unsent deliveries, as the notifier counts them): 409 hard_cap_reached. A
// billed one replays free.
func TestReplayOfANeverBilledDeliveryIsHeldToTheSpendCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "cap")
	w := h.watch(t, a.Key, ep)
	require.NoError(t, h.API.FlushUsage(ctx))
	hard := int64(5)
	require.NoError(t, oltp.SetCaps(ctx, h.Pool, a.AccountID, nil, &hard))
	_, err := h.Pool.Exec(ctx, `INSERT INTO usage_monthly (account_id, month, calls, units) VALUES ($1, $2, 0, 3)
		ON CONFLICT (account_id, month) DO UPDATE SET units = 3`, a.AccountID, oltp.MonthStart(time.Now()))
	require.NoError(t, err)
	first := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 2})
	second := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 2})
	require.Equal(t, 200, h.replay(t, a.Key, first).Status, "3 units + 0 unsent < 5")
	// A billed delivery reopened is unsent but bills nothing: it takes no room under the cap.
	billed := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 1, deliveredAt: true, billed: true})
	require.Equal(t, 200, h.replay(t, a.Key, billed).Status)
	require.Equal(t, 200, h.replay(t, a.Key, second).Status, "3 units + 1 unsent < 5")
	third := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 2})
	before := h.state(t, third)
	c := conflictOf(t, h.replay(t, a.Key, third))
	require.Equal(t, admit.ReasonCapReached, c.Reason, c.Message)
	require.Contains(t, c.Message, "hard spend cap")
	require.Equal(t, before, h.state(t, third))
}

// Replays are bounded: MaxReplaysPerDelivery reopenings of one delivery (409
// replay_limit_reached), MaxReplaysPerDay reopenings per customer in any 24 hours (409
// replay_budget_exhausted). Answers for a delivery already queued reopen nothing and count
// nothing. Before, a delivered delivery could be replayed without end, each an outbound POST.
func TestReplaysAreBoundedPerDeliveryAndPerCustomer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "bounded")
	w := h.watch(t, a.Key, ep)
	id := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 1, deliveredAt: true, billed: true})
	for i := range admit.MaxReplaysPerDelivery {
		require.Equal(t, 200, h.replay(t, a.Key, id).Status, "replay %d", i+1)
		require.Equal(t, 200, h.replay(t, a.Key, id).Status, "queued: answered as it is")
		// The dispatcher delivers it again.
		_, err := h.Pool.Exec(ctx, "UPDATE webhook_deliveries SET status = 'delivered', next_attempt_at = NULL WHERE delivery_id = $1", id)
		require.NoError(t, err)
	}
	before := h.state(t, id)
	c := conflictOf(t, h.replay(t, a.Key, id))
	require.Equal(t, admit.ReasonReplayLimit, c.Reason, c.Message)
	require.Equal(t, oltp.DeliveryDelivered, c.Status)
	require.Contains(t, c.Message, "at most 5 times")
	require.Equal(t, before, h.state(t, id))
	require.Equal(t, admit.MaxReplaysPerDelivery, before.ReplayCount)

	// The customer's day: its replays so far plus earlier ones of other deliveries, up to the budget.
	other := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 1})
	_, err := h.Pool.Exec(ctx, `INSERT INTO webhook_delivery_replays (customer_id, delivery_id, replayed_at)
		SELECT $1, $2, now() - interval '23 hours' FROM generate_series(1, $3)`, a.CustomerID, other, admit.MaxReplaysPerDay-admit.MaxReplaysPerDelivery-1)
	require.NoError(t, err)
	require.Equal(t, 200, h.replay(t, a.Key, other).Status, "the last replay of the day")
	last := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryFailed, attempts: 1})
	c = conflictOf(t, h.replay(t, a.Key, last))
	require.Equal(t, admit.ReasonReplayBudget, c.Reason, c.Message)
	require.Contains(t, c.Message, "at most 1000 replays a day")
	require.Equal(t, oltp.DeliveryFailed, h.state(t, last).Status)
	// Another customer has its own budget.
	b := h.RoomyAccount(t, "growth")
	bep := h.endpoint(t, b.Key, "bounded")
	theirs := h.insert(t, b, row{endpoint: bep, status: oltp.DeliveryFailed, attempts: 1})
	require.Equal(t, 200, h.replay(t, b.Key, theirs).Status)

	// A day later the earliest replays age out (and are forgotten): replays are taken again.
	_, err = h.Pool.Exec(ctx, "UPDATE webhook_delivery_replays SET replayed_at = replayed_at - interval '1 hour 1 minute' WHERE customer_id = $1", a.CustomerID)
	require.NoError(t, err)
	require.Equal(t, 200, h.replay(t, a.Key, last).Status)
	var kept int
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM webhook_delivery_replays WHERE customer_id = $1", a.CustomerID).Scan(&kept))
	require.Less(t, kept, 10, "replays older than the window are deleted")
}

// Test deliveries are bounded per customer across its endpoints: deleting an endpoint and
// registering it again starts a new endpoint's window but not a new day. Before, that reset made
// POST /v1/webhooks/{id}/test an unbounded source of outbound POSTs to any public URL.
func TestTestDeliveriesAreBoundedPerCustomerAcrossEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "amplifier")
	for range admit.MaxTestDeliveries {
		require.Equal(t, 201, h.test(t, a.Key, ep).Status)
	}
	require.Equal(t, admit.ReasonTooManyTests, conflictOf(t, h.test(t, a.Key, ep)).Reason)
	// Delete the endpoint and register the url again: a new endpoint, a new minute's window.
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/webhooks/"+itoa(ep), a.Key, nil).Status)
	ep2 := h.endpoint(t, a.Key, "amplifier")
	require.NotEqual(t, ep, ep2)
	require.Equal(t, 201, h.test(t, a.Key, ep2).Status)

	// Earlier tests of the day to other endpoints, written as the route writes them.
	ep3 := h.endpoint(t, a.Key, "elsewhere")
	_, err := h.Pool.Exec(ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, endpoint_id, event_type, body, status, created_at)
		SELECT 'earlier-test-' || g, $1, $2, $3, 'test', '{}', 'delivered', now() - interval '20 hours' FROM generate_series(1, $4) g`,
		a.CustomerID, a.AccountID, ep3, admit.MaxTestDeliveriesPerDay-admit.MaxTestDeliveries-2)
	require.NoError(t, err)
	require.Equal(t, 201, h.test(t, a.Key, ep2).Status, "the day's last test delivery")
	c := conflictOf(t, h.test(t, a.Key, ep2))
	require.Equal(t, admit.ReasonTestBudget, c.Reason, c.Message)
	require.Equal(t, "/v1/webhooks/{id}/test", c.Endpoint)
	require.Contains(t, c.Message, "at most 100 a day")
	require.Equal(t, admit.ReasonTestBudget, conflictOf(t, h.test(t, a.Key, h.endpoint(t, a.Key, "fresh"))).Reason)
	var tests int
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM webhook_deliveries WHERE customer_id = $1 AND watch_id IS NULL", a.CustomerID).Scan(&tests))
	require.Equal(t, admit.MaxTestDeliveriesPerDay, tests)

	// Another customer is not held to it; and once the earlier ones are a day old the budget refills.
	b := h.RoomyAccount(t, "growth")
	require.Equal(t, 201, h.test(t, b.Key, h.endpoint(t, b.Key, "amplifier")).Status)
	_, err = h.Pool.Exec(ctx, "UPDATE webhook_deliveries SET created_at = now() - interval '25 hours' WHERE endpoint_id = $1", ep3)
	require.NoError(t, err)
	require.Equal(t, 201, h.test(t, a.Key, ep2).Status)
}

// Racing test calls across one customer's endpoints make exactly the day's budget.
func TestRacingTestDeliveriesHoldTheCustomerBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	eps := []int64{h.endpoint(t, a.Key, "r1"), h.endpoint(t, a.Key, "r2"), h.endpoint(t, a.Key, "r3")}
	_, err := h.Pool.Exec(ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, endpoint_id, event_type, body, status, created_at)
		SELECT 'earlier-test-' || g, $1, $2, $3, 'test', '{}', 'delivered', now() - interval '2 hours' FROM generate_series(1, $4) g`,
		a.CustomerID, a.AccountID, eps[0], admit.MaxTestDeliveriesPerDay-4)
	require.NoError(t, err)
	var paths []string
	for i := range 12 {
		paths = append(paths, "/v1/webhooks/"+itoa(eps[i%3])+"/test")
	}
	require.Equal(t, map[int]int{201: 4, 409: 8}, h.postAtOnce(t, a.Key, paths...))
}

// A paused account's deliveries wait until it resumes, so a test delivery or a replay taken while
// paused would pile up unsent and go out in one burst on resume (a Free key paused for days
// would store 100 test deliveries a day to any public URL). Both are refused
// with 403 account_paused, nothing written, and taken again once the account resumes.
func TestTestDeliveriesAndReplaysAreRefusedWhilePaused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.endpoint(t, a.Key, "paused")
	w := h.watch(t, a.Key, ep)
	done := h.insert(t, a, row{watch: w, endpoint: ep, status: oltp.DeliveryDelivered, attempts: 1, deliveredAt: true, billed: true})
	count := func() (n int) {
		require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM webhook_deliveries WHERE customer_id = $1", a.CustomerID).Scan(&n))
		return n
	}
	before, state := count(), h.state(t, done)

	require.Equal(t, 200, h.Post(t, "/v1/account/pause", a.Key, nil).Status)
	test := h.Post(t, "/v1/webhooks/"+itoa(ep)+"/test", a.Key, nil)
	require.Equal(t, 403, test.Status, string(test.Body))
	h.Conforms(t, "POST", "/v1/webhooks/{id}/test", test)
	replay := h.replay(t, a.Key, done)
	require.Equal(t, 403, replay.Status, string(replay.Body))
	h.Conforms(t, "POST", "/v1/webhook-deliveries/{delivery_id}/replay", replay)
	for _, r := range []apitest.Response{test, replay} {
		d := apitest.Object(t, r)["detail"].(map[string]any)
		require.Equal(t, "account_paused", d["reason"])
		require.Contains(t, d["message"], "POST /v1/account/resume")
	}
	require.Equal(t, before, count(), "nothing was written while paused")
	require.Equal(t, state, h.state(t, done), "the delivery was not reopened")

	require.Equal(t, 200, h.Post(t, "/v1/account/resume", a.Key, nil).Status)
	test = h.Post(t, "/v1/webhooks/"+itoa(ep)+"/test", a.Key, nil)
	require.Equal(t, 201, test.Status, string(test.Body))
	require.Equal(t, 200, h.replay(t, a.Key, done).Status)
	require.Equal(t, oltp.DeliveryPending, h.state(t, done).Status)
}
