package dispatch

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
)

func TestDeliversSignedAndBillsOnceWhenAcceptedTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.start(Config{})
	id, key := f.deliver(f.acct, f.endpoint, f.watch)
	r := f.waitStatus(id, oltp.DeliveryDelivered, 1)
	require.True(t, r.delivered)
	require.True(t, r.billed)
	require.Equal(t, intp(200), r.responseStatus)
	require.Nil(t, r.nextInSeconds)
	keys, bad := f.rc.seen()
	require.Empty(t, bad, "both signatures verify with the reference library and VerifyPlane")
	require.Equal(t, []string{key}, keys)
	events, monthly := f.units(key)
	require.EqualValues(t, 1, events)
	require.EqualValues(t, 1, monthly)
	var keyID int64
	var class string
	var units, calls int64
	require.NoError(t, f.pool.QueryRow(f.ctx, "SELECT key_id, meter_class, units, calls FROM usage_events WHERE unit_id = $1",
		oltp.DeliveryUnitPrefix+key).Scan(&keyID, &class, &units, &calls))
	require.Equal(t, f.acct.KeyID, keyID, "metered to the watch's key")
	require.Equal(t, oltp.MeterDeliveredChange, class)
	require.EqualValues(t, 1, units)
	require.EqualValues(t, 0, calls)

	// A rotation with an overlap: the next attempt carries a signature per secret.
	newSecret := signing.NewSecret()
	_, err := oltp.RotateEndpointSecret(f.ctx, f.pool, f.box, f.acct.CustomerID, f.endpoint, newSecret, time.Hour)
	require.NoError(t, err)
	f.rc.mu.Lock()
	f.rc.secrets = []string{f.secret, newSecret}
	f.rc.mu.Unlock()

	// A replay reopens it; the receiver accepts it again: one unit still, billed once.
	_, err = f.pool.Exec(f.ctx, "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() WHERE delivery_id = $1", id)
	require.NoError(t, err)
	f.notify()
	f.waitStatus(id, oltp.DeliveryDelivered, 2)
	keys, bad = f.rc.seen()
	require.Empty(t, bad, "old and new secret both verify during the overlap")
	require.Equal(t, []string{key, key}, keys, "the same idempotency key on every attempt")
	events, monthly = f.units(key)
	require.EqualValues(t, 1, events, "accepted twice, billed once")
	require.EqualValues(t, 1, monthly)
	require.Len(t, f.attempts(id), 2)
}

func TestTestDeliveriesAreNotBilled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.start(Config{})
	id, key := f.deliver(f.acct, f.endpoint, 0)
	r := f.waitStatus(id, oltp.DeliveryDelivered, 1)
	require.False(t, r.billed)
	events, monthly := f.units(key)
	require.Zero(t, events)
	require.Zero(t, monthly)
}

func TestFailedAttemptsAreRetriedWithTheSameKeyUntilAccepted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rc.setAnswer(func(n int, w http.ResponseWriter, _ *http.Request) {
		if n < 2 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	f.start(Config{})
	id, key := f.deliver(f.acct, f.endpoint, f.watch)
	f.waitStatus(id, oltp.DeliveryDelivered, 3)
	keys, bad := f.rc.seen()
	require.Empty(t, bad)
	require.Equal(t, []string{key, key, key}, keys)
	a := f.attempts(id)
	require.Len(t, a, 3)
	require.Equal(t, intp(500), a[0].status)
	require.Equal(t, intp(500), a[1].status)
	require.Equal(t, intp(204), a[2].status)
	require.Contains(t, *a[0].err, "500")
	var failing bool
	require.NoError(t, f.pool.QueryRow(f.ctx, "SELECT failing_since IS NOT NULL FROM webhook_endpoints WHERE endpoint_id = $1", f.endpoint).Scan(&failing))
	require.False(t, failing, "an accepted attempt ends the endpoint's failing streak")
	events, _ := f.units(key)
	require.EqualValues(t, 1, events)
}

func TestAttemptsExhaustedFail(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rc.setAnswer(func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) })
	f.start(Config{Schedule: func(n int) (time.Duration, bool) { return 0, n < 3 }})
	id, key := f.deliver(f.acct, f.endpoint, f.watch)
	r := f.waitStatus(id, oltp.DeliveryFailed, 3)
	require.Equal(t, 3, r.attempts)
	require.Nil(t, r.nextInSeconds)
	require.False(t, r.billed)
	events, _ := f.units(key)
	require.Zero(t, events, "a failed delivery costs nothing")
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rc.setAnswer(func(n int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "600")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	f.start(Config{})
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	r := f.waitStatus(id, oltp.DeliveryRetrying, 1)
	require.Equal(t, intp(429), r.responseStatus)
	require.NotNil(t, r.nextInSeconds)
	require.Greater(t, *r.nextInSeconds, 500.0, "not retried before the Retry-After (the schedule says 0)")

	// Bounded: a Retry-After of a year waits MaxRetryAfter.
	f.rc.setAnswer(func(n int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "31536000")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	id2, _ := f.deliver(f.acct, f.endpoint, f.watch)
	r = f.waitStatus(id2, oltp.DeliveryRetrying, 1)
	require.Less(t, *r.nextInSeconds, 3601.0)
	require.Greater(t, *r.nextInSeconds, 3000.0)
}

func TestGoneDisablesTheEndpointAndFailsItsDeliveries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rc.setAnswer(func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) })
	// A delivery waiting for a later retry to the same endpoint.
	waiting, _ := f.deliver(f.acct, f.endpoint, f.watch)
	_, err := f.pool.Exec(f.ctx, "UPDATE webhook_deliveries SET status = 'retrying', next_attempt_at = now() + interval '1 hour' WHERE delivery_id = $1", waiting)
	require.NoError(t, err)
	d := f.start(Config{})
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	r := f.waitStatus(id, oltp.DeliveryFailed, 1)
	require.Equal(t, intp(410), r.responseStatus)
	var reason *string
	require.NoError(t, f.pool.QueryRow(f.ctx, "SELECT disabled_reason FROM webhook_endpoints WHERE endpoint_id = $1", f.endpoint).Scan(&reason))
	require.Equal(t, oltp.DisabledGone, *reason)
	require.Equal(t, oltp.DeliveryFailed, f.row(waiting).status, "the endpoint's other deliveries fail")
	require.Zero(t, f.row(waiting).attempts)

	// A delivery made due later for the disabled endpoint fails without being sent.
	before, _ := f.rc.seen()
	n := len(before)
	later, _ := f.deliver(f.acct, f.endpoint, f.watch)
	f.waitStatus(later, oltp.DeliveryFailed, 0)
	keys, _ := f.rc.seen()
	require.Len(t, keys, n)
	require.Eventually(t, func() bool {
		return strings.Contains(metricsText(d), `hs_webhook_endpoints_disabled_total{reason="gone"} 1`)
	}, 20*time.Second, 5*time.Millisecond)
}

func TestAnEndpointFailingForDaysIsDisabled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rc.setAnswer(func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	_, err := f.pool.Exec(f.ctx, "UPDATE webhook_endpoints SET failing_since = now() - interval '4 days' WHERE endpoint_id = $1", f.endpoint)
	require.NoError(t, err)
	f.start(Config{})
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	f.waitStatus(id, oltp.DeliveryFailed, 1)
	var reason *string
	require.NoError(t, f.pool.QueryRow(f.ctx, "SELECT disabled_reason FROM webhook_endpoints WHERE endpoint_id = $1", f.endpoint).Scan(&reason))
	require.Equal(t, oltp.DisabledFailing, *reason)
}

func TestATimeoutIsAFailedAttemptWithoutStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rc.setAnswer(func(_ int, w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	f.start(Config{Timeout: 200 * time.Millisecond, Schedule: func(n int) (time.Duration, bool) { return 0, n < 1 }})
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	r := f.waitStatus(id, oltp.DeliveryFailed, 1)
	require.Nil(t, r.responseStatus)
	a := f.attempts(id)
	require.Len(t, a, 1)
	require.Nil(t, a[0].status)
	require.Contains(t, *a[0].err, "no answer within")
}

func TestARedirectIsAFailureAndNotFollowed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rc.setAnswer(func(_ int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			w.WriteHeader(http.StatusOK)
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	})
	f.start(Config{Schedule: func(n int) (time.Duration, bool) { return 0, n < 1 }})
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	r := f.waitStatus(id, oltp.DeliveryFailed, 1)
	require.Equal(t, intp(307), r.responseStatus)
	keys, _ := f.rc.seen()
	require.Len(t, keys, 1, "the redirect target was never asked")
}

func TestProductionPolicyRefusesALoopbackReceiverAtDialTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.startWith(Config{Egress: egress.Policy{}, Schedule: func(n int) (time.Duration, bool) { return 0, n < 1 }})
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	r := f.waitStatus(id, oltp.DeliveryFailed, 1)
	require.Nil(t, r.responseStatus)
	a := f.attempts(id)
	require.Len(t, a, 1)
	require.Contains(t, *a[0].err, "refusing to connect")
	require.NotContains(t, *a[0].err, f.rc.srv.URL, "the error never repeats the URL")
	keys, _ := f.rc.seen()
	require.Empty(t, keys)
}

func TestAPausedAccountsDeliveriesWaitUntilResume(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.start(Config{})
	_, err := oltp.SetPaused(f.ctx, f.pool, f.acct.CustomerID, f.acct.AccountID, true, "")
	require.NoError(t, err)
	paused, pausedKey := f.deliver(f.acct, f.endpoint, f.watch)
	// Another account's delivery, due after it, goes: the paused one was passed over.
	other := f.account()
	rc := newReceiver(t)
	ep, w := f.endpointAndWatch(other, rc.srv.URL+"/other", signing.NewSecret())
	id, _ := f.deliver(other, ep, w)
	f.waitStatus(id, oltp.DeliveryDelivered, 1)
	r := f.row(paused)
	require.Equal(t, oltp.DeliveryPending, r.status)
	require.Zero(t, r.attempts)
	keys, _ := f.rc.seen()
	require.Empty(t, keys, "nothing sent while paused")

	_, err = oltp.SetPaused(f.ctx, f.pool, f.acct.CustomerID, f.acct.AccountID, false, "")
	require.NoError(t, err)
	f.notify()
	f.waitStatus(paused, oltp.DeliveryDelivered, 1)
	events, _ := f.units(pausedKey)
	require.EqualValues(t, 1, events, "billed once it went")
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d, ok := retryAfter("120", now)
	require.True(t, ok)
	require.Equal(t, 2*time.Minute, d)
	d, ok = retryAfter(now.Add(time.Hour).Format(http.TimeFormat), now)
	require.True(t, ok)
	require.Equal(t, time.Hour, d)
	_, ok = retryAfter("soon", now)
	require.False(t, ok)
	_, ok = retryAfter("-5", now)
	require.False(t, ok)
}

func TestDefaultScheduleSpansAboutThreeDays(t *testing.T) {
	t.Parallel()
	var total time.Duration
	n := 0
	for {
		d, ok := DefaultSchedule(n + 1)
		if !ok {
			break
		}
		if n == 0 {
			require.Less(t, d, 10*time.Second, "the first retry comes within seconds")
		}
		total += d
		n++
	}
	require.Greater(t, total, 50*time.Hour)
	require.Less(t, total, 85*time.Hour)
}

func metricsText(d *Dispatcher) string {
	var b strings.Builder
	d.cfg.Metrics.WritePrometheus(&b)
	return b.String()
}

func TestTwoDispatchersSendEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var ids []int64
	for range 200 {
		id, _ := f.deliver(f.acct, f.endpoint, f.watch)
		ids = append(ids, id)
	}
	f.start(Config{Workers: 4})
	f.start(Config{Workers: 4})
	for _, id := range ids {
		f.waitStatus(id, oltp.DeliveryDelivered, 1)
	}
	keys, bad := f.rc.seen()
	require.Empty(t, bad)
	require.Len(t, keys, 200, "every delivery was sent exactly once")
	seen := map[string]bool{}
	for _, k := range keys {
		require.False(t, seen[k], "sent twice: %s", k)
		seen[k] = true
	}
	var units int64
	require.NoError(t, f.pool.QueryRow(f.ctx, "SELECT COALESCE(sum(units), 0) FROM usage_monthly WHERE account_id = $1", f.acct.AccountID).Scan(&units))
	require.EqualValues(t, 200, units)
}

func TestAStoppedDispatcherLeavesNothingClaimed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	release := make(chan struct{})
	f.rc.setAnswer(func(_ int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	d := f.start(Config{})
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	require.Eventually(t, func() bool { keys, _ := f.rc.seen(); return len(keys) == 1 }, 20*time.Second, 5*time.Millisecond)
	require.NoError(t, d.Stop(f.ctx))
	close(release)
	var claimed bool
	require.NoError(t, f.pool.QueryRow(f.ctx, "SELECT claimed_until IS NOT NULL FROM webhook_deliveries WHERE delivery_id = $1", id).Scan(&claimed))
	require.False(t, claimed, "an abandoned attempt is released: due again at once")
	r := f.row(id)
	require.Equal(t, oltp.DeliveryPending, r.status)
	require.Zero(t, r.attempts, "an abandoned attempt is not counted")
	next := oltp.NewLeaser(f.pool, time.Hour)
	defer next.Close()
	again, err := next.ClaimDue(f.ctx, f.box, 10)
	require.NoError(t, err)
	require.Len(t, again, 1, "the stopped dispatcher's lease ended with it")
}

func TestAHungDispatchersLeaseEndsAfterTheLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	hung := oltp.NewLeaser(f.pool, time.Second) // its connection then stays idle: the server ends it
	defer hung.Close()
	claimed, err := hung.ClaimDue(f.ctx, f.box, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	other := oltp.NewLeaser(f.pool, time.Hour)
	defer other.Close()
	require.Eventually(t, func() bool {
		again, err := other.ClaimDue(f.ctx, f.box, 10)
		require.NoError(t, err)
		return len(again) == 1 && again[0].ID == id
	}, 20*time.Second, 50*time.Millisecond)
}

func TestARowLeasedByClaimedUntilIsLeftAlone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	_, err := f.pool.Exec(f.ctx, "UPDATE webhook_deliveries SET claimed_until = now() + interval '1 hour' WHERE delivery_id = $1", id)
	require.NoError(t, err)
	l := oltp.NewLeaser(f.pool, time.Hour)
	defer l.Close()
	claimed, err := l.ClaimDue(f.ctx, f.box, 10)
	require.NoError(t, err)
	require.Empty(t, claimed, "an earlier dispatcher's lease is kept")
	_, err = f.pool.Exec(f.ctx, "UPDATE webhook_deliveries SET claimed_until = now() - interval '1 second' WHERE delivery_id = $1", id)
	require.NoError(t, err)
	claimed, err = l.ClaimDue(f.ctx, f.box, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 1, "once it ended the row goes")
}

func TestALeaseKeepsOthersOffUntilItEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	mine := oltp.NewLeaser(f.pool, time.Hour)
	defer mine.Close()
	claimed, err := mine.ClaimDue(f.ctx, f.box, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.Equal(t, id, claimed[0].ID)
	require.Equal(t, []string{f.secret}, claimed[0].Secrets)
	again, err := mine.ClaimDue(f.ctx, f.box, 10)
	require.NoError(t, err)
	require.Empty(t, again, "a dispatcher does not claim what it holds")
	other := oltp.NewLeaser(f.pool, time.Hour)
	defer other.Close()
	again, err = other.ClaimDue(f.ctx, f.box, 10)
	require.NoError(t, err)
	require.Empty(t, again, "a live lease keeps the row from other dispatchers")
	require.Equal(t, 1, mine.Held())

	// Released without a recorded attempt (a stop): due again at once, and claimed elsewhere.
	require.NoError(t, mine.Release([]int64{id}))
	require.Zero(t, mine.Held())
	again, err = other.ClaimDue(f.ctx, f.box, 10)
	require.NoError(t, err)
	require.Len(t, again, 1)

	// The claimer crashed (its connection ends): the row is due again at once and goes.
	other.Close()
	d := f.start(Config{})
	f.waitStatus(id, oltp.DeliveryDelivered, 1)
	// The counters move right after the commit the row shows.
	require.Eventually(t, func() bool {
		text := metricsText(d)
		return strings.Contains(text, "hs_deliveries_delivered_total 1") && strings.Contains(text, "hs_deliveries_billed_total 1") &&
			strings.Contains(text, `hs_delivery_attempts_total{outcome="delivered"} 1`)
	}, 20*time.Second, 5*time.Millisecond)
}

func TestASecretThatDoesNotOpenHoldsOnlyItsOwnDeliveries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rc := newReceiver(t)
	broken, w := f.endpointAndWatch(f.acct, rc.srv.URL+"/broken", signing.NewSecret())
	_, err := f.pool.Exec(f.ctx, "UPDATE webhook_endpoints SET secret_sealed = '\\x00'::bytea WHERE endpoint_id = $1", broken)
	require.NoError(t, err)
	bad, _ := f.deliver(f.acct, broken, w)
	good, _ := f.deliver(f.acct, f.endpoint, f.watch)
	f.start(Config{Schedule: func(n int) (time.Duration, bool) { return time.Hour, n < 5 }})
	f.waitStatus(good, oltp.DeliveryDelivered, 1)
	r := f.waitStatus(bad, oltp.DeliveryRetrying, 1)
	require.Nil(t, r.responseStatus)
	a := f.attempts(bad)
	require.Contains(t, *a[0].err, "--webhook-secret-keys")
	keys, _ := rc.seen()
	require.Empty(t, keys, "nothing unsigned is sent")
}

// With no poll to speak of, a new delivery is sent on its NOTIFY at once.
func TestADueDeliveryWakesTheDispatcherAtOnce(t *testing.T) {
	f := newFixture(t)
	f.start(Config{Poll: time.Hour})
	time.Sleep(50 * time.Millisecond) // the start's own claim is done: only a NOTIFY wakes it now
	start := time.Now()
	id, _ := f.deliver(f.acct, f.endpoint, f.watch)
	f.waitStatus(id, oltp.DeliveryDelivered, 1)
	require.Less(t, time.Since(start), 5*time.Second, "woken by the NOTIFY, not the hour's poll")
}

// A delivery whose NOTIFY was never heard (here: made without one, as if sent while the
// listener was down) is claimed once the listener LISTENs again after losing its connection.
func TestADeliveryUnheardIsClaimedWhenTheListenerReconnects(t *testing.T) {
	f := newFixture(t)
	l := f.listener()
	f.start(Config{Poll: time.Hour, Listener: l})
	require.Eventually(t, func() bool { return l.PID() != 0 }, 10*time.Second, 5*time.Millisecond)
	time.Sleep(50 * time.Millisecond) // the start's own claim is done
	var id int64
	require.NoError(t, f.pool.QueryRow(f.ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, key_id,
			endpoint_id, event_type, body, status, next_attempt_at)
		VALUES ('test_unheard', $1, $2, $3, $4, 'opened', '{}', 'pending', now()) RETURNING delivery_id`,
		f.acct.CustomerID, f.acct.AccountID, f.acct.KeyID, f.endpoint).Scan(&id))
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, oltp.DeliveryPending, f.row(id).status, "nothing announced it")

	pid := l.PID()
	_, err := f.pool.Exec(f.ctx, "SELECT pg_terminate_backend($1)", pid)
	require.NoError(t, err)
	f.waitStatus(id, oltp.DeliveryDelivered, 1)
	require.NotEqual(t, pid, l.PID(), "the listener reconnected")
}
