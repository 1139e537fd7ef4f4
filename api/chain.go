package api

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/plans"
)

// route is a contract entry and its current handler (nil: 501 until the handler lands).
type route struct {
	rt *Route
	h  HandlerFunc
}

// handler wraps one route in the chain every /v1 route shares:
//
//	authenticate (X-API-Key / Bearer, demo key, keyless per IP) → scope → pause (billable)
//	→ key_throttled (per-key concurrency) → rate limit (60 s) → validate (422) → plan gate
//	→ idempotency replay → daily quota → spend cap → handler → metering (+ idempotent store)
func (s *Server) handler(r *route) fasthttp.RequestHandler {
	return func(rc *fasthttp.RequestCtx) {
		c := &Call{Ctx: rc, Route: r.rt, srv: s}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("handler panic", "route", r.rt.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				writeError(rc, Internal(nil))
			}
		}()
		if e := s.run(c, r); e != nil {
			if e.Status >= 500 && e.Status != 501 {
				s.log.Error("request failed", "route", r.rt.Name, "status", e.Status, "err", e)
			}
			writeError(rc, e)
		}
	}
}

func (s *Server) run(c *Call, r *route) *Error {
	rt := c.Route
	if s.pool == nil {
		return Unavailable("Postgres (not configured)", nil)
	}
	now := s.now()
	c.Caller.IP = s.clientIP(c.Ctx)

	// 1. Authenticate.
	var entry *keyEntry
	key, sent := presentedKey(c.Ctx)
	switch {
	case !sent && !rt.Keyless:
		return &Error{Status: fasthttp.StatusUnauthorized, Detail: DetailMissingKey, Headers: map[string]string{"WWW-Authenticate": `Bearer realm="hiringsignal"`}}
	case !sent:
		c.Caller.Keyless = true
		c.Caller.Tier = "tier_0"
	default:
		e, err := s.auth.lookup(c.Context(), key)
		if err != nil {
			return Unavailable("Key verification", err)
		}
		if e == nil {
			return &Error{Status: fasthttp.StatusForbidden, Detail: DetailInvalidKey}
		}
		entry = e
		c.entry = e
		a := e.auth
		c.Caller = Caller{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID, Tier: a.Tier, TierName: e.plan.Name,
			Scopes: a.Scopes, Demo: a.IsDemo, IP: c.Caller.IP}
	}

	// 2. Scope.
	if entry != nil && rt.Scope != "" && !slices.Contains(c.Caller.Scopes, rt.Scope) {
		return &Error{Status: fasthttp.StatusForbidden, Detail: reasonDetail{Reason: ReasonInsufficientScope, Endpoint: rt.Path, RequiredScope: rt.Scope,
			Message: "this key lacks the " + rt.Scope + " scope: use a key that has it or mint one with POST /v1/keys"}}
	}

	// 3. Pause: billable routes of a paused account answer 403; everything else keeps working.
	if entry != nil && rt.Billable() && entry.auth.Paused {
		return &Error{Status: fasthttp.StatusForbidden, Detail: reasonDetail{Reason: ReasonAccountPaused, Endpoint: rt.Path,
			Message: "the account is paused: resume it with POST /v1/account/resume"}}
	}

	// 4. key_throttled: too many calls of one key in flight on this instance.
	if entry != nil && !c.Caller.Demo {
		n := entry.inflight.Add(1)
		defer entry.inflight.Add(-1)
		if n > int64(s.cfg.KeyMaxInFlight) {
			return &Error{Status: fasthttp.StatusTooManyRequests, Detail: rateDetail{Reason: ReasonKeyThrottled, Endpoint: rt.Path,
				Message: fmt.Sprintf("more than %d calls of this key are in flight; retry when one completes", s.cfg.KeyMaxInFlight)}}
		}
	}

	// 5. Rate limit: per key by plan, per IP for the demo key and keyless calls.
	scope, limit := s.rateScope(c, entry)
	d := s.limiter.take(c.Context(), scope, limit, plans.WindowSeconds*time.Second, now)
	h := &c.Ctx.Response.Header
	h.Set("RateLimit-Limit", strconv.FormatInt(d.limit, 10))
	h.Set("RateLimit-Remaining", strconv.FormatInt(d.remaining, 10))
	h.Set("RateLimit-Reset", strconv.FormatInt(d.resetSeconds(now), 10))
	if !d.ok {
		h.Set("Retry-After", strconv.FormatInt(d.resetSeconds(now), 10))
		det := rateDetail{Reason: ReasonRateLimited, Endpoint: rt.Path, Message: fmt.Sprintf("more than %d calls in %d seconds; wait Retry-After seconds", d.limit, plans.WindowSeconds)}
		if c.Caller.Demo {
			det.SignupURL = s.links(c).Signup
		}
		return &Error{Status: fasthttp.StatusTooManyRequests, Detail: det}
	}

	// 6. Validate parameters and body before anything is written.
	if e := c.validateParams(); e != nil {
		return e
	}
	if rt.Body != nil {
		if e := c.validateBody(); e != nil {
			return e
		}
	}
	if r.h == nil {
		return NotImplemented(rt)
	}

	metered := rt.Billable() && c.Caller.Metered()
	// 7. Plan gate.
	if rt.Billable() && !c.Caller.Keyless {
		if e := s.checkGate(c); e != nil {
			return e
		}
	}

	// 8. Idempotency: a stored answer is replayed, not metered again.
	idem, replayed, e := s.idemBegin(c)
	if e != nil {
		return e
	}
	if replayed {
		return nil
	}
	ok := false
	defer func() {
		if idem != "" {
			s.idemEnd(c, idem, ok)
		}
	}()

	// 9-10. Daily quota and spend cap.
	var quota *decision
	if metered {
		q, e := s.checkQuota(c, now)
		if e != nil {
			return e
		}
		quota = q
		if e := s.checkSpendCap(c, entry, now); e != nil {
			s.refundQuota(c, quota)
			return e
		}
	}

	// 11. Handler.
	units, err := r.h(c)
	if err != nil {
		s.refundQuota(c, quota)
		if ae, isAPI := err.(*Error); isAPI {
			return ae
		}
		return Internal(err)
	}
	status := c.Ctx.Response.StatusCode()
	success := status == fasthttp.StatusOK || status == fasthttp.StatusCreated
	// A forced-fresh read answered 202 (crawling) started real work: it counts as a call, with no
	// units, and is recorded as forced_fresh in usage.
	success = success || (status == fasthttp.StatusAccepted && c.forcedFresh)

	// 12. Metering: durable before the response leaves.
	if metered && success {
		if err := s.meter(c, units, now); err != nil {
			s.refundQuota(c, quota)
			return Unavailable("Usage metering", err)
		}
	} else {
		s.refundQuota(c, quota)
	}
	ok = success
	return nil
}

func (s *Server) refundQuota(c *Call, q *decision) {
	if q != nil {
		s.limiter.refund(quotaScope(c.Caller.KeyID), *q, 24*time.Hour)
	}
}

func (s *Server) rateScope(c *Call, e *keyEntry) (string, int64) {
	if e == nil || c.Caller.Demo {
		return "ip:" + c.Caller.IP, plans.KeylessPerMinute
	}
	limit := int64(e.plan.PerMinute)
	if e.auth.CallsPerMinute != nil {
		limit = *e.auth.CallsPerMinute
	}
	if limit <= 0 {
		limit = EnterprisePerMinute
	}
	return "rk:" + strconv.FormatInt(c.Caller.KeyID, 10), limit
}

// EnterprisePerMinute is the per-key limit of a plan that lists none (Enterprise) and of an
// account without a contract override (accounts.calls_per_minute).
const EnterprisePerMinute = 10000

func (s *Server) clientIP(ctx *fasthttp.RequestCtx) string {
	if s.cfg.TrustForwardedFor {
		if v := ctx.Request.Header.Peek("X-Forwarded-For"); len(v) > 0 {
			for i, b := range v {
				if b == ',' {
					return string(v[:i])
				}
			}
			return string(v)
		}
	}
	return ctx.RemoteIP().String()
}
