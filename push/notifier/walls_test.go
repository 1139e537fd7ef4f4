package notifier_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// accountEventDelivery is a delivery of an account event as stored.
type accountEventDelivery struct {
	endpoint int64
	status   string
	body     payload.Body
}

// accountEvents reads the account events of a, oldest first, and their deliveries.
func (e *env) accountEvents(a oltp.NewAccount) ([]oltp.AccountEvent, []accountEventDelivery) {
	e.t.Helper()
	ctx := context.Background()
	account := a.AccountID
	evs, err := oltp.ListAccountEvents(ctx, e.pool, a.CustomerID, account, e.at.AddDate(0, -2, 0), 100)
	require.NoError(e.t, err)
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	rows, err := e.pool.Query(ctx, `SELECT endpoint_id, status, body FROM webhook_deliveries WHERE account_id = $1 AND account_event_id IS NOT NULL
		ORDER BY delivery_id`, account)
	require.NoError(e.t, err)
	defer rows.Close()
	var ds []accountEventDelivery
	for rows.Next() {
		var d accountEventDelivery
		var body []byte
		require.NoError(e.t, rows.Scan(&d.endpoint, &d.status, &body))
		require.NoError(e.t, json.Unmarshal(body, &d.body))
		ds = append(ds, d)
	}
	require.NoError(e.t, rows.Err())
	return evs, ds
}

func events(company uint64, n int) []ev {
	out := make([]ev, n)
	for i := range out {
		out[i] = ev{company, "opened", "Germany"}
	}
	return out
}

// A watch crossing its account's wall warns before it stops: the batch that brings the month's
// admitted deliveries to 80% of the plan's allowance raises one allowance_warning, delivered to
// every live endpoint of the customer (not a deleted one), the batch that reaches 100% another,
// and the changes past it are wall_blocked without a third. Before, the 1,501st change of a Growth
// account was wall_blocked with nothing said anywhere.
func TestAWatchCrossingItsWallIsWarnedAt80AndThen100Percent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	free, ep := e.account("free")
	second, _, err := oltp.RegisterEndpoint(ctx, e.pool, e.box, free.CustomerID, "https://hooks.example.com/second-"+free.CustomerID, oltp.EndpointSecret{Secret: "whsec_test"})
	require.NoError(t, err)
	gone, _, err := oltp.RegisterEndpoint(ctx, e.pool, e.box, free.CustomerID, "https://hooks.example.com/gone-"+free.CustomerID, oltp.EndpointSecret{Secret: "whsec_test"})
	require.NoError(t, err)
	_, err = e.pool.Exec(ctx, "UPDATE webhook_endpoints SET deleted_at = now() WHERE endpoint_id = $1", gone.ID)
	require.NoError(t, err)
	w := e.watch(free, ep, 1, "", types, 1000)
	n := e.start(0)
	const wall = 50 // the Free plan's delivered changes a month

	e.commit(events(1, 39)...)
	e.caughtUp(n)
	evs, _ := e.accountEvents(free)
	require.Empty(t, evs, "39 of 50 is below 80%")

	e.commit(events(1, 1)...)
	e.caughtUp(n)
	evs, ds := e.accountEvents(free)
	require.Len(t, evs, 1)
	warn := evs[0]
	require.Equal(t, payload.EventAllowanceWarning, warn.Type)
	require.Equal(t, plans.AllowanceDeliveredChanges, warn.Allowance)
	require.Equal(t, 80, warn.Threshold)
	require.EqualValues(t, wall, warn.Limit)
	require.EqualValues(t, 40, warn.Used)
	require.Equal(t, plans.OverflowStop, warn.Overflow)
	require.Equal(t, plans.MonthStart(time.Now()), warn.PeriodStart, "the notifier's billing month")
	require.Equal(t, plans.NextMonth(warn.PeriodStart), warn.ResetsAt)
	require.Len(t, ds, 2, "one delivery per live endpoint, none to the deleted one")
	for i, d := range ds {
		require.Equal(t, []int64{ep, second.ID}[i], d.endpoint)
		require.Equal(t, oltp.DeliveryPending, d.status)
		require.Equal(t, payload.EventAllowanceWarning, d.body.Event)
		require.Equal(t, payload.AccountEventKey(warn.ID, d.endpoint), d.body.IdempotencyKey)
		require.NotNil(t, d.body.AccountEvent)
		require.Equal(t, 80, d.body.AccountEvent.ThresholdPercent)
		require.Contains(t, d.body.AccountEvent.Message, "40 of your 50 delivered changes")
		require.Nil(t, d.body.WatchID)
	}

	e.commit(events(1, 10)...)
	e.caughtUp(n)
	evs, ds = e.accountEvents(free)
	require.Len(t, evs, 2)
	require.Equal(t, 100, evs[1].Threshold)
	require.EqualValues(t, wall, evs[1].Used)
	require.Len(t, ds, 4)
	require.Contains(t, ds[3].body.AccountEvent.Message, "not delivered")

	e.commit(events(1, 5)...)
	e.caughtUp(n)
	got := e.deliveries()
	require.Len(t, seqsOf(got, w, oltp.DeliveryPending), wall)
	require.Len(t, seqsOf(got, w, oltp.DeliveryWallBlocked), 5)
	evs, ds = e.accountEvents(free)
	require.Len(t, evs, 2, "each warning is raised once a month")
	require.Len(t, ds, 4)

	// A restarted notifier (which forgot what it raised) raises nothing again.
	require.NoError(t, n.Stop(ctx))
	n = e.start(0)
	e.commit(events(1, 1)...)
	e.caughtUp(n)
	evs, _ = e.accountEvents(free)
	require.Len(t, evs, 2)

	// An upgrade warns again at the new limit when it is reached: Starter's 250.
	_, err = e.pool.Exec(ctx, "UPDATE accounts SET tier = 'tier_2' WHERE account_id = $1", free.AccountID)
	require.NoError(t, err)
	e.commit(events(1, 150)...)
	e.caughtUp(n)
	evs, _ = e.accountEvents(free)
	require.Len(t, evs, 3)
	require.Equal(t, 80, evs[2].Threshold)
	require.EqualValues(t, 250, evs[2].Limit)
	require.EqualValues(t, 200, evs[2].Used)
}

// Past the wall a paid account's overflow decides: queue keeps each change's body (unserved) to
// replay once there is room, overage delivers it marked for its bill; the hard spend cap still
// stops an overage delivery.
func TestOverflowQueuesOrDeliversPastTheWall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	queue, qep := e.account("starter")
	_, err := oltp.SetWallOverflow(ctx, e.pool, queue.CustomerID, queue.AccountID, plans.OverflowQueue)
	require.NoError(t, err)
	qw := e.watch(queue, qep, 1, "", types, 1000)
	over, oep := e.account("starter")
	_, err = oltp.SetWallOverflow(ctx, e.pool, over.CustomerID, over.AccountID, plans.OverflowOverage)
	require.NoError(t, err)
	hard := int64(253)
	require.NoError(t, oltp.SetCaps(ctx, e.pool, over.AccountID, nil, &hard))
	ow := e.watch(over, oep, 2, "", types, 1000)
	// Free may have chosen nothing but stop: a stored queue is ignored on a plan without it.
	free, fep := e.account("free")
	_, err = e.pool.Exec(ctx, "UPDATE accounts SET wall_overflow = 'queue' WHERE account_id = $1", free.AccountID)
	require.NoError(t, err)
	fw := e.watch(free, fep, 3, "", types, 1000)
	n := e.start(0)

	e.commit(append(append(events(1, 255), events(2, 255)...), events(3, 52)...)...)
	e.caughtUp(n)
	got := e.deliveries()
	count := func(id int64, status string) int { return len(seqsOf(got, id, status)) }
	require.Equal(t, 250, count(qw, oltp.DeliveryPending), "Starter's 250 delivered changes a month")
	require.Equal(t, 5, count(qw, oltp.DeliveryWallBlocked))
	require.Equal(t, 253, count(ow, oltp.DeliveryPending), "overage delivers past the wall, up to the hard cap")
	require.Equal(t, 2, count(ow, oltp.DeliveryCapBlocked))
	require.Equal(t, 50, count(fw, oltp.DeliveryPending))
	require.Equal(t, 2, count(fw, oltp.DeliveryWallBlocked))

	flags := func(watch int64) (queued, withBody, overage int) {
		t.Helper()
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE queued), count(*) FILTER (WHERE queued AND body IS NOT NULL),
			count(*) FILTER (WHERE overage) FROM webhook_deliveries WHERE watch_id = $1`, watch).Scan(&queued, &withBody, &overage))
		return
	}
	q, b, o := flags(qw)
	require.Equal(t, []int{5, 5, 0}, []int{q, b, o}, "the queued changes keep their body for their replay")
	q, _, o = flags(ow)
	require.Equal(t, []int{0, 3}, []int{q, o}, "the three admitted past 250 are overage")
	q, b, _ = flags(fw)
	require.Equal(t, []int{0, 0}, []int{q, b}, "Free stops: nothing is queued or kept")

	// A queued delivery's body is never served while it is queued.
	var id int64
	require.NoError(t, e.pool.QueryRow(ctx, "SELECT min(delivery_id) FROM webhook_deliveries WHERE watch_id = $1 AND queued", qw).Scan(&id))
	d, err := oltp.GetDelivery(ctx, e.pool, queue.CustomerID, id)
	require.NoError(t, err)
	require.True(t, d.Queued)
	require.Nil(t, d.Body)

	// Overage past the wall still raises the 100% warning, saying what it costs.
	evs, _ := e.accountEvents(over)
	require.Len(t, evs, 2)
	require.Equal(t, plans.OverflowOverage, evs[1].Overflow)
}
