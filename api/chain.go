package api

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api/admission"
)

// Header names and values the chain sets on every call, canonical (SetCanonical: not normalized
// again per call).
var (
	headerCacheControl = []byte(fasthttp.HeaderCacheControl)
	noStore            = []byte("no-store")
	headerUnitsCharged = []byte(UnitsChargedHeader)
	headerMeterClass   = []byte(MeterClassHeader)
)

// handler wraps one route in the chain every /v1 route shares:
//
//	calls in flight per client address (key_throttled) → authenticate (X-API-Key / Bearer, demo
//	key, keyless per IP) → scope → pause (billable) → key_throttled (per-key concurrency) → rate
//	limit (60 s) → read the body (bounded) → validate (422) → plan gate → idempotency replay
//	→ daily quota → spend cap → handler → metering (+ idempotent store)
//
// Store calls get a deadline (Config.StoreTimeout, from the start and again once the body is
// read); a 500 caused by a store running out of time answers 503.
func (s *Server) handler(rt *Route) fasthttp.RequestHandler {
	m := newRouteMetrics(s.metrics, rt.Name)
	return func(rc *fasthttp.RequestCtx) {
		c := &Call{Ctx: rc, Route: rt, srv: s}
		// Every /v1 answer is the caller's own and some carry secrets (an issued key, a webhook
		// secret, a quickstart's snippets): no cache along the way may keep one.
		rc.Response.Header.SetCanonical(headerCacheControl, noStore)
		s.setHistoryHeaders(rc)
		// The call's one reading of the clock before its answer (a reading costs about a quarter
		// of a microsecond here): when fasthttp handed the request over, else now. The chain's
		// steps take their time from it (callStart).
		start := rc.Time()
		if start.IsZero() { // an in-process call (Execute) or a RequestCtx built by hand
			start = time.Now()
		}
		c.startDeadlineAt(start)
		defer c.endDeadline()
		defer func() { m.observe(rc.Response.StatusCode(), start) }() // runs last: sees a recovered panic's 500
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("handler panic", "route", rt.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				writeError(rc, Internal(nil))
			}
		}()
		if e := s.run(c, start); e != nil {
			e = s.timedOut(c, e)
			switch {
			case e.Status == fasthttp.StatusServiceUnavailable:
				// A store outage fails every request: WARN, one line per route per interval.
				s.unavailableLog.log(s.log, slog.LevelWarn, rt.Name, time.Now(), "request answered 503", "route", rt.Name, "err", e)
			case e.Status >= 500:
				s.log.Error("request failed", "route", rt.Name, "status", e.Status, "err", e)
			}
			writeError(rc, e)
		}
	}
}

// run admits the call (steps 1 to 6) and serves it; start is when the call began.
func (s *Server) run(c *Call, start time.Time) *Error {
	now := s.callTime(start)

	// 0-4. Calls in flight per address, authenticate, scope, pause, calls in flight per key.
	e := s.enterAt(c, start)
	defer c.leave()
	if e != nil {
		return e
	}

	// 5. Rate limit: per key by plan, per IP for the demo key and keyless calls.
	if e := s.rateLimit(c, now); e != nil {
		return e
	}

	// The body of an admitted caller (bounded); store calls from here on get a fresh deadline.
	release, e := s.readBody(c)
	defer release()
	if e != nil {
		return e
	}
	if c.Ctx.Request.Header.ContentLength() != 0 { // a body was read: that took time
		c.startDeadline()
	}

	// 6. Validate parameters and body before anything is written.
	if e := c.validateParams(); e != nil {
		return e
	}
	if c.Route.Body != nil && !c.IsCSV() {
		if e := c.validateBody(); e != nil {
			return e
		}
	}
	return s.serve(c, now)
}

// enter runs the chain's first steps for c, which Mount runs too: too many calls of its client
// address in flight on this instance (0, key_throttled), authenticate, scope and pause (1-3), too
// many calls of its key in flight (4, key_throttled; not the demo key, counted per address in
// step 0). c.leave undoes what entered and must be called on every way out, refused or not.
func (s *Server) enter(c *Call) *Error { return s.enterAt(c, time.Now()) }

// enterAt is enter for a call that began at start (the real clock's time, as the key cache keeps
// it, whatever Config.Now says).
func (s *Server) enterAt(c *Call, start time.Time) *Error {
	if s.pool == nil {
		return Unavailable("Postgres (not configured)", nil)
	}
	if in := inProcessOf(c.Ctx); in != nil && in.admitted != nil {
		// An in-process call of a mounted request in flight (Execute): that request's address and
		// key are counted in flight and its key was authenticated (Mount), so the call is counted
		// and looked up no more. The route's scope and pause apply to it as to any call.
		c.Caller.IP = in.ip
		return s.admit(c, in.admitted)
	}
	c.Caller.IP = s.clientIP(c.Ctx)

	// 0. Too many calls of one client address in flight on this instance (key_throttled).
	if max := s.cfg.IPMaxInFlight; max > 0 {
		n, ok := s.ipCalls.enter(c.Caller.IP, max)
		if !ok {
			return ipThrottled(c, max)
		}
		c.entered.ip = n
	}

	// 1-3. Authenticate, scope, pause.
	if e := s.authenticate(c, start); e != nil {
		return e
	}

	// 4. key_throttled: too many calls of one key in flight on this instance.
	if k := c.key; k != nil && !c.Caller.Demo {
		n := k.Enter()
		c.entered.key = k
		if n > int64(s.cfg.KeyMaxInFlight) {
			return &Error{Status: fasthttp.StatusTooManyRequests, Detail: rateDetail{Reason: ReasonKeyThrottled, Endpoint: c.Route.Path,
				Message: fmt.Sprintf("more than %d calls of this key are in flight; retry when one completes", s.cfg.KeyMaxInFlight)}}
		}
	}
	return nil
}

// leave undoes what enter counted in (a Call is entered once).
func (c *Call) leave() {
	if k := c.entered.key; k != nil {
		k.Leave()
		c.entered.key = nil
	}
	if n := c.entered.ip; n != nil {
		c.srv.ipCalls.leave(n)
		c.entered.ip = nil
	}
}

// callTime is the time the chain's steps take for a call that began at start: start itself,
// unless the server's clock is another (Config.Now, in tests).
func (s *Server) callTime(start time.Time) time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return start
}

// serve runs an admitted call (steps 7 to 12). The daily quota taken in step 9 is refunded on
// every way out unless the call was metered.
func (s *Server) serve(c *Call, now time.Time) *Error {
	rt := c.Route
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
		c.unitsCharged(0) // the answer was metered when it was first given
		return nil
	}
	ok := false
	defer func() {
		if idem != "" {
			s.idemEnd(c, idem, ok)
		}
	}()

	// 9-10. Daily quota and spend cap (the call's page is reserved against the hard cap until
	// metering settles it; released on every other way out).
	var quota *admission.Quota
	var spend *admission.Reservation
	if metered {
		if quota, e = s.takeQuota(c, now); e != nil {
			return e
		}
		defer quota.Refund()
		if spend, e = s.reserveSpend(c, now); e != nil {
			return e
		}
		defer spend.Release()
	}

	// 11. Handler.
	units, err := rt.Handler(c)
	if err != nil {
		if ae := (*Error)(nil); errors.As(err, &ae) {
			return ae
		}
		return Internal(err)
	}
	status := c.Ctx.Response.StatusCode()
	success := status == fasthttp.StatusOK || status == fasthttp.StatusCreated
	// A forced-fresh read answered 202 (crawling) started real work: it counts as a call, with no
	// units, and is recorded as forced_fresh in usage.
	success = success || (status == fasthttp.StatusAccepted && c.forcedFresh)

	// 12. Metering: durable before the response leaves; only then does the quota keep the call
	// (a call the handler marked NotBilled gives it back).
	if metered && success {
		if err := s.meter(c, units, now, spend); err != nil {
			return Unavailable("Usage metering", err)
		}
		if !c.notBilled {
			quota.Commit()
		}
	}
	if status >= 200 && status < 300 {
		if !metered || !success || rt.Meter == MeterCall || units < 0 {
			units = 0
		}
		c.unitsCharged(units)
	}
	ok = success
	return nil
}

// unitsCharged says on a billable route's answer what the call was metered: units of the route's
// meter class (UnitsChargedHeader, MeterClassHeader).
func (c *Call) unitsCharged(units int) {
	if !c.Route.Billable() {
		return
	}
	var b [20]byte
	c.Ctx.Response.Header.SetCanonical(headerUnitsCharged, strconv.AppendInt(b[:0], int64(units), 10))
	c.Ctx.Response.Header.SetCanonical(headerMeterClass, append(b[:0], c.Route.Meter...))
}

// authenticate resolves the caller from the presented key, or as keyless where the route allows
// it, then checks the route's scope and, on billable routes, the account's pause.
func (s *Server) authenticate(c *Call, start time.Time) *Error {
	rt := c.Route
	key, sent := presentedKey(c.Ctx)
	switch {
	case !sent && !rt.Keyless:
		return &Error{Status: fasthttp.StatusUnauthorized, Detail: DetailMissingKey, Headers: map[string]string{"WWW-Authenticate": `Bearer realm="hiringsignal"`}}
	case !sent:
		c.Caller.Keyless = true
		c.Caller.Tier = "tier_0"
		return nil
	}
	k, err := s.auth.LookupAt(c.lazy(), key, c.Caller.IP, start)
	if ml, limited := admission.MissLimited(err); limited {
		return missLimited(c, ml)
	}
	if err != nil {
		return Unavailable("Key verification", err)
	}
	if k == nil {
		return &Error{Status: fasthttp.StatusForbidden, Detail: DetailInvalidKey}
	}
	return s.admit(c, k)
}

// admit makes the holder of k, an authenticated key, c's caller, then checks the route's scope
// and, on billable routes, the account's pause.
func (s *Server) admit(c *Call, k *admission.Key) *Error {
	rt := c.Route
	c.key = k
	a := k.Auth
	c.Caller = Caller{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID, Tier: a.Tier, TierName: k.Plan.Name,
		Scopes: a.Scopes, Demo: a.IsDemo, IP: c.Caller.IP}
	if rt.Scope != "" && !slices.Contains(c.Caller.Scopes, rt.Scope) {
		return &Error{Status: fasthttp.StatusForbidden, Detail: reasonDetail{Reason: ReasonInsufficientScope, Endpoint: rt.Path, RequiredScope: rt.Scope,
			Message: "this key lacks the " + rt.Scope + " scope: use a key that has it or mint one with POST /v1/keys"}}
	}
	// Billable routes of a paused account answer 403; everything else keeps working.
	if rt.Billable() && a.Paused {
		return AccountPaused(rt.Path, "the account is paused: resume it with POST /v1/account/resume")
	}
	return nil
}

// presentedKey returns the key of X-API-Key or Authorization: Bearer (X-API-Key wins when both
// are sent) and whether any was sent.
func presentedKey(ctx *fasthttp.RequestCtx) (string, bool) {
	if v := bytes.TrimSpace(ctx.Request.Header.Peek("X-API-Key")); len(v) > 0 {
		return string(v), true
	}
	if v := bytes.TrimSpace(ctx.Request.Header.Peek("Authorization")); len(v) > 7 && bytes.EqualFold(v[:7], []byte("bearer ")) {
		if k := bytes.TrimSpace(v[7:]); len(k) > 0 {
			return string(k), true
		}
	}
	return "", false
}
