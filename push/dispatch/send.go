package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/planehq/hiringsignal/internal/destination"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
)

// HeaderIdempotencyKey carries the delivery's idempotency key (= webhook-id) on every attempt.
const HeaderIdempotencyKey = "X-Plane-Idempotency-Key"

// maxDrain is how much of a response body is read (and dropped) so the connection is reused.
const maxDrain = 64 << 10

// newClient is the delivery HTTP client: dials through the egress policy (the private-address
// check on the address actually dialled), never follows a redirect (the 3xx is the answer, a
// failure), gives up on an attempt after timeout, and keeps up to perHost connections alive per
// receiver so many deliveries in flight to one host reuse them.
func newClient(p egress.Policy, timeout time.Duration, perHost int) *http.Client {
	t := p.Transport(min(timeout, 10*time.Second))
	t.MaxIdleConns = max(100, 2*perHost)
	t.MaxIdleConnsPerHost = perHost
	t.MaxConnsPerHost = perHost
	return &http.Client{
		Transport:     t,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// attempt is what one POST came to, before the schedule decides what follows.
type attempt struct {
	status     int // 0: no HTTP response
	retryAfter string
	err        string // never the URL (it may carry a token) nor a secret
	kind       string // metrics label: delivered, http_error, timeout, refused, network_error, sign_error
	gone       bool   // the destination no longer takes anything (410; Slack's 403, 404, 410): disable it
	bad        bool   // the destination refused this message itself (Slack's 400): failed, not retried
}

// send POSTs d's body once, signed, and reports what came back. ok is false when ctx ended
// (the dispatcher is stopping): nothing is to be recorded.
func (x *Dispatcher) send(ctx context.Context, d *oltp.DueDelivery) (a attempt, ok bool) {
	if d.SecretErr != nil {
		x.cfg.Log.Warn("cannot open a webhook endpoint's secret; the delivery is retried", "endpoint_id", d.EndpointID, "delivery_id", d.ID, "err", d.SecretErr)
		return attempt{err: "cannot open the endpoint's signing secret (is --webhook-secret-keys the key that sealed it?)", kind: "sign_error"}, true
	}
	now := time.Now()
	sig, err := signing.Sign(d.Secrets, d.IdempotencyKey, now, d.Body)
	if err != nil {
		return attempt{err: err.Error(), kind: "sign_error"}, true
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return attempt{err: "cannot make a request of the endpoint's URL", kind: "network_error"}, true
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "hiringsignal-webhooks/1")
	h.Set(signing.HeaderPlaneSignature, signing.PlaneSignature(d.Secrets, d.Body))
	h.Set(HeaderIdempotencyKey, d.IdempotencyKey)
	h.Set(signing.HeaderID, d.IdempotencyKey)
	h.Set(signing.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(signing.HeaderSignature, sig)
	resp, err := x.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return attempt{}, false
		}
		return x.failure(err), true
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()
	a = attempt{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), kind: "http_error"}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		a.kind = "delivered"
	} else {
		a.err = fmt.Sprintf("the endpoint answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return a, true
}

// maxSlackAnswer is how much of Slack's answer is read: "ok" or an error code.
const maxSlackAnswer = 256

// sendSlack posts ds, claimed together for one Slack endpoint, as one Block Kit message
// (destination.SlackMessage) and reports Slack's answer: 200 delivers every change in it. No
// signature: Slack checks none, and the URL is the secret. ok is false when ctx ended.
func (x *Dispatcher) sendSlack(ctx context.Context, ds []oltp.DueDelivery) (a attempt, ok bool) {
	d := &ds[0]
	if d.SecretErr != nil {
		x.cfg.Log.Warn("cannot open a Slack endpoint's URL; the delivery is retried", "endpoint_id", d.EndpointID, "delivery_id", d.ID, "err", d.SecretErr)
		return attempt{err: "cannot open the endpoint's Slack URL (is --webhook-secret-keys the key that sealed it?)", kind: "sign_error"}, true
	}
	bodies := make([]payload.Body, len(ds))
	for i := range ds {
		if err := json.Unmarshal(ds[i].Body, &bodies[i]); err != nil {
			return attempt{err: "cannot read the stored delivery body to render it for Slack", kind: "sign_error", bad: true}, true
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(destination.SlackMessage(bodies)))
	if err != nil {
		return attempt{err: "cannot make a request of the endpoint's Slack URL", kind: "network_error"}, true
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hiringsignal-webhooks/1")
	resp, err := x.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return attempt{}, false
		}
		return x.failure(err), true
	}
	text, _ := io.ReadAll(io.LimitReader(resp.Body, maxSlackAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()
	a = attempt{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), kind: "http_error"}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		a.kind = "delivered"
		return a, true
	}
	a.gone, a.bad, a.err = destination.SlackAnswer(resp.StatusCode, string(text))
	return a, true
}

// failure describes an attempt without an HTTP response, without the URL.
func (x *Dispatcher) failure(err error) attempt {
	var ref *egress.Refusal
	if errors.As(err, &ref) {
		return attempt{err: ref.Msg, kind: "refused"}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return attempt{err: fmt.Sprintf("no answer within %s (--delivery-timeout)", x.cfg.Timeout), kind: "timeout"}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // *url.Error repeats the URL
	}
	return attempt{err: err.Error(), kind: "network_error"}
}

// result turns an attempt of d into what is recorded: delivered on a 2xx; failed with the
// endpoint disabled on a 410; else (a signing failure too: the operator may fix the keys)
// retried on the schedule (not before a Retry-After of a 429 or 503, bounded by MaxRetryAfter)
// or failed when no attempt is left.
func (x *Dispatcher) result(d *oltp.DueDelivery, a attempt, started time.Time, took time.Duration) oltp.AttemptResult {
	r := oltp.AttemptResult{DeliveryID: d.ID, EndpointID: d.EndpointID, StartedAt: started, ResponseStatus: a.status,
		ResponseMS: int(took.Milliseconds()), Error: a.err}
	switch {
	case a.kind == "delivered":
		r.Outcome = oltp.OutcomeDelivered
		return r
	case a.status == http.StatusGone || a.gone:
		r.Outcome, r.Gone = oltp.OutcomeFailed, true
		return r
	case a.bad:
		r.Outcome = oltp.OutcomeFailed
		return r
	}
	delay, more := x.cfg.Schedule(d.AttemptCount + 1)
	if !more {
		r.Outcome = oltp.OutcomeFailed
		return r
	}
	if a.status == http.StatusTooManyRequests || a.status == http.StatusServiceUnavailable {
		if ra, ok := retryAfter(a.retryAfter, time.Now()); ok {
			delay = max(delay, min(ra, x.cfg.MaxRetryAfter))
		}
	}
	r.Outcome, r.RetryIn = oltp.OutcomeRetry, delay
	return r
}
