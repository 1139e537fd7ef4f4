package dispatch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/destination"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/oltp"
)

// slackHook is a loopback stand-in for a Slack incoming webhook, answering with answer (n: the
// message's number, from 0).
type slackHook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	n      int
	answer func(n int, w http.ResponseWriter)
}

func newSlackHook(t *testing.T, answer func(n int, w http.ResponseWriter)) *slackHook {
	h := &slackHook{answer: answer}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h.mu.Lock()
		n := h.n
		h.n++
		h.mu.Unlock()
		h.answer(n, w)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *slackHook) messages() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// slackEndpoint registers a Slack endpoint of the fixture's account at url and a watch on it.
func (f *fixture) slackEndpoint(url string) (endpoint, watch int64) {
	e, _, err := oltp.RegisterDestinationWithin(f.ctx, f.pool, f.box, oltp.Budgets{}, f.acct.CustomerID,
		oltp.Destination{Kind: oltp.KindSlack, Target: url, Shown: destination.MaskSlackURL(url)})
	require.NoError(f.t, err)
	company := int64(42)
	w, _, _, err := oltp.CreateWatch(f.ctx, f.pool, f.box, oltp.NewWatch{CustomerID: f.acct.CustomerID, AccountID: f.acct.AccountID, KeyID: f.acct.KeyID,
		Allowance: 100, EndpointID: e.ID, CompanyID: &company, EventTypes: []string{"opened"}, MaxFiresPerHour: 20})
	require.NoError(f.t, err)
	return e.ID, w.ID
}

func TestSlackRateLimitWaitsForRetryAfter(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hook := newSlackHook(t, func(n int, w http.ResponseWriter) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, "rate_limited")
	})
	ep, w := f.slackEndpoint(hook.srv.URL + "/services/T1/B2/abcdefghijkl")
	f.start(Config{})
	id, _ := f.deliver(f.acct, ep, w)
	r := f.waitStatus(id, oltp.DeliveryRetrying, 1)
	require.Equal(t, intp(429), r.responseStatus)
	require.Greater(t, *r.nextInSeconds, 100.0, "not retried before Slack's Retry-After (the schedule says 0)")
	require.Equal(t, "Slack answered 429 rate_limited", *f.attempts(id)[0].err)
}

func TestSlackRefusalsDisableOrFail(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status   int
		text     string
		want     string
		disabled bool
	}{
		{403, "invalid_token", oltp.DeliveryFailed, true},
		{410, "channel_is_archived", oltp.DeliveryFailed, true},
		{400, "invalid_payload", oltp.DeliveryFailed, false},
	} {
		f := newFixture(t)
		hook := newSlackHook(t, func(n int, w http.ResponseWriter) { w.WriteHeader(c.status); _, _ = io.WriteString(w, c.text) })
		ep, w := f.slackEndpoint(hook.srv.URL + "/services/T1/B2/abcdefghijkl")
		f.start(Config{})
		id, _ := f.deliver(f.acct, ep, w)
		r := f.waitStatus(id, c.want, 1)
		require.Equal(t, 1, r.attempts, "%d is not retried", c.status)
		var disabled bool
		require.NoError(t, f.pool.QueryRow(f.ctx, "SELECT disabled_at IS NOT NULL FROM webhook_endpoints WHERE endpoint_id = $1", ep).Scan(&disabled))
		require.Equal(t, c.disabled, disabled, "%d %s", c.status, c.text)
		require.Equal(t, 1, hook.messages())
	}
}

func TestProductionPolicyRefusesALoopbackSlackURLAtDialTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hook := newSlackHook(t, func(int, http.ResponseWriter) {})
	// Saved under the dev policy (or pointed at loopback since): production refuses it when dialling.
	ep, w := f.slackEndpoint(hook.srv.URL + "/services/T1/B2/abcdefghijkl")
	f.startWith(Config{Egress: egress.Policy{}, Schedule: func(n int) (time.Duration, bool) { return 0, n < 1 }})
	id, _ := f.deliver(f.acct, ep, w)
	r := f.waitStatus(id, oltp.DeliveryFailed, 1)
	require.Nil(t, r.responseStatus)
	a := f.attempts(id)
	require.Contains(t, *a[0].err, "refusing to connect")
	require.NotContains(t, *a[0].err, "abcdefghijkl", "the error never repeats the URL")
	require.Zero(t, hook.messages())
}

func TestEmailDeliveriesAreParkedNotSent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e, _, err := oltp.RegisterDestinationWithin(f.ctx, f.pool, f.box, oltp.Budgets{}, f.acct.CustomerID, oltp.Destination{Kind: oltp.KindEmail, Target: "a@example.com"})
	require.NoError(t, err)
	f.start(Config{})
	id, _ := f.deliver(f.acct, e.ID, 0)
	require.Eventually(t, func() bool {
		var parked bool
		require.NoError(t, f.pool.QueryRow(context.Background(), "SELECT status = 'pending' AND next_attempt_at IS NULL FROM webhook_deliveries WHERE delivery_id = $1", id).Scan(&parked))
		return parked
	}, 10*time.Second, 10*time.Millisecond)
	require.Empty(t, f.attempts(id), "waiting for the digest, never attempted here")
}

func TestDeletingAnEmailEndpointFailsItsParkedDeliveries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e, _, err := oltp.RegisterDestinationWithin(f.ctx, f.pool, f.box, oltp.Budgets{}, f.acct.CustomerID, oltp.Destination{Kind: oltp.KindEmail, Target: "a@example.com"})
	require.NoError(t, err)
	id, _ := f.deliver(f.acct, e.ID, 0)
	require.NoError(t, oltp.ParkForDigest(f.ctx, f.pool, []int64{id}))
	require.NoError(t, oltp.DeleteEndpoint(f.ctx, f.pool, f.acct.CustomerID, e.ID))
	require.Equal(t, oltp.DeliveryFailed, f.row(id).status, "not held as unsent for good")
}
