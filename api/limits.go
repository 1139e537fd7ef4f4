package api

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/internal/plans"
)

// WaitRetryAfter ends the message of a refusal that passes with time: a REST answer points to
// its Retry-After header; an agent tool result, which has no headers, says the seconds instead
// (package agent replaces it).
const WaitRetryAfter = "wait Retry-After seconds"

// The chain's limits: admission decides, these turn its decisions into answers (429 and 402 in
// the shapes of spec 7) and the RateLimit-* headers.

// The RateLimit-* header names, canonical (SetCanonical).
var (
	headerRateLimitLimit     = []byte("Ratelimit-Limit")
	headerRateLimitRemaining = []byte("Ratelimit-Remaining")
	headerRateLimitReset     = []byte("Ratelimit-Reset")
)

// rateLimit spends one call of the caller's 60-second windows (the key's and its account's) and
// sets the RateLimit-* headers of the window with fewer calls remaining (or the one refusing).
func (s *Server) rateLimit(c *Call, now time.Time) *Error {
	d := s.limiter.TakeRate(c.lazy(), c.key, c.Caller.IP, now)
	h := &c.Ctx.Response.Header
	var b [20]byte // the values are copied: no string made per call
	h.SetCanonical(headerRateLimitLimit, strconv.AppendInt(b[:0], d.Limit, 10))
	h.SetCanonical(headerRateLimitRemaining, strconv.AppendInt(b[:0], d.Remaining, 10))
	h.SetCanonical(headerRateLimitReset, strconv.AppendInt(b[:0], d.ResetSeconds(now), 10))
	if d.OK {
		return nil
	}
	h.Set("Retry-After", strconv.FormatInt(d.ResetSeconds(now), 10))
	det := rateDetail{Reason: ReasonRateLimited, Endpoint: c.Route.Path, Message: fmt.Sprintf("more than %d calls in %d seconds; "+WaitRetryAfter, d.Limit, plans.WindowSeconds)}
	if d.Account {
		det.Message = fmt.Sprintf("the account's limit: more than %d calls in %d seconds across all keys of the account (the %s plan's account limit); "+WaitRetryAfter,
			d.Limit, plans.WindowSeconds, c.Caller.Plan().Name)
	}
	if c.Caller.Demo {
		det.SignupURL = c.Links().Signup
	}
	return &Error{Status: fasthttp.StatusTooManyRequests, Detail: det}
}

// protocolLimit spends one request of the caller's protocol window (Config.ProtocolPerMinute,
// admission.ProtocolRate): 429 rate_limited with RateLimit-* and Retry-After once it is spent.
func (s *Server) protocolLimit(c *Call) *Error {
	limit := s.cfg.ProtocolPerMinute
	if limit < 0 {
		return nil
	}
	now := s.now()
	d := s.limiter.TakeProtocol(c.lazy(), c.key, c.Caller.IP, int64(limit), now)
	if d.OK {
		return nil
	}
	reset := strconv.FormatInt(d.ResetSeconds(now), 10)
	det := rateDetail{Reason: ReasonRateLimited, Endpoint: c.Route.Path,
		Message: fmt.Sprintf("more than %d protocol requests in %d seconds (everything but tool calls that run a route: those count in the key's calls of the minute instead); "+WaitRetryAfter,
			limit, plans.WindowSeconds)}
	if c.Caller.Demo {
		det.SignupURL = c.Links().Signup
	}
	return &Error{Status: fasthttp.StatusTooManyRequests, Detail: det, Headers: map[string]string{"RateLimit-Limit": strconv.Itoa(limit),
		"RateLimit-Remaining": "0", "RateLimit-Reset": reset, "Retry-After": reset}}
}

// checkGate refuses a route the caller's plan does not list in gated_endpoints (402).
func (s *Server) checkGate(c *Call) *Error {
	if c.Route.Gate == "" || c.Caller.Keyless {
		return nil
	}
	plan := c.Caller.Plan()
	if slices.Contains(plan.GatedEndpoints, c.Route.Gate) {
		return nil
	}
	g := &PlanGate{GatedEndpoint: c.Route.Gate, Plan: plan.Plan, IncludedIn: []string{}}
	var cheapest *plans.Tier
	for _, t := range plans.All() {
		if !slices.Contains(t.GatedEndpoints, c.Route.Gate) {
			continue
		}
		g.IncludedIn = append(g.IncludedIn, t.Plan)
		if cheapest == nil && t.Sellable {
			cheapest = &t
			g.UpgradeTo = &t.Plan
		}
	}
	msg := fmt.Sprintf("Your %s plan does not include %s (this is not a spent quota: quota.limit 0 means the plan has no calls of this route).", plan.Name, c.Route.Gate)
	if cheapest != nil {
		msg += fmt.Sprintf(" The %s plan and above include it: upgrade at upgrade_url.", cheapest.Name)
	}
	e := paymentRequired(c, ReasonQuotaExceeded, QuotaState{Limit: 0, Used: 0}, msg)
	e.Detail.(*QuotaDetail).PlanGate = g
	return e
}

// takeQuota spends one call of the key's daily quota; 402 quota_exceeded when it is spent. The
// Quota is nil when the plan has none.
func (s *Server) takeQuota(c *Call, now time.Time) (*admission.Quota, *Error) {
	q := s.limiter.TakeDaily(c.lazy(), c.key, now)
	if q == nil || q.OK {
		return q, nil
	}
	msg := "the key's daily call quota is spent; it resets at quota.reset"
	if q.Account {
		msg = fmt.Sprintf("the account's daily call quota (all keys of the account together, %d calls: the %s plan's account limit) is spent; it resets at quota.reset",
			q.Limit, c.Caller.Plan().Name)
	}
	return nil, paymentRequired(c, ReasonQuotaExceeded, QuotaState{Limit: q.Limit, Used: q.Limit, Reset: RFC3339(q.ResetAt)}, msg)
}

// missLimited answers a key the caller's address may not have looked up: it presented too many
// unknown or revoked keys this minute (429 rate_limited).
func missLimited(c *Call, e *admission.MissLimitError) *Error {
	now := time.Now() // the budget's minutes are wall-clock ones, whatever Config.Now says
	h := &c.Ctx.Response.Header
	h.Set("RateLimit-Limit", strconv.FormatInt(e.Limit, 10))
	h.Set("RateLimit-Remaining", "0")
	h.Set("RateLimit-Reset", strconv.FormatInt(e.ResetSeconds(now), 10))
	h.Set("Retry-After", strconv.FormatInt(e.ResetSeconds(now), 10))
	return &Error{Status: fasthttp.StatusTooManyRequests, Detail: rateDetail{Reason: ReasonRateLimited, Endpoint: c.Route.Path,
		Message: fmt.Sprintf("more than %d unknown or revoked keys from this address in %d seconds; "+WaitRetryAfter, e.Limit, plans.WindowSeconds)}}
}

// reserveSpend holds the most units the call can meter (pageUnits) against the account's hard
// cap until the call is metered (Settle) or not (Release): 402 spend_cap_exceeded once the
// month's units plus the calls in flight reach the cap, 503 when the spend cannot be read
// (fail closed: an unknown spend is not served).
func (s *Server) reserveSpend(c *Call, now time.Time) (*admission.Reservation, *Error) {
	hard := c.key.Auth.HardCapUnits
	r, sp, err := s.caps.Reserve(c.lazy(), c.Caller.AccountID, hard, pageUnits(c), now)
	if err != nil {
		return nil, Unavailable("Spend cap (the account's spend cannot be read)", err)
	}
	if r != nil {
		return r, nil
	}
	msg := "the account reached its hard spend cap for this billing month"
	if sp.Used < *hard {
		msg = "the account's units this billing month and the calls it has in flight reach its hard spend cap"
	}
	return nil, paymentRequired(c, ReasonSpendCapExceeded, QuotaState{Limit: *hard, Used: sp.Used, Reset: RFC3339(admission.NextMonth(now))}, msg)
}

// pageUnits is the most units the call can meter: none on per-call routes, 1 for a created
// watch, else its page size (the validated limit, in the query or the body), or
// unknownPageUnits when the chain cannot see it.
func pageUnits(c *Call) int64 {
	switch c.Route.Meter {
	case MeterNone, MeterCall:
		return 0
	case MeterWatch:
		return 1
	}
	if n := c.Limit(); n > 0 {
		return int64(n)
	}
	if len(c.body) > 0 {
		var b struct {
			Limit *int64 `json:"limit"`
		}
		if json.Unmarshal(c.body, &b) == nil && b.Limit != nil && *b.Limit > 0 {
			return *b.Limit
		}
	}
	return unknownPageUnits
}

// unknownPageUnits is reserved for a call whose page size the chain cannot see (a body without
// limit): the largest page of the metered row routes.
const unknownPageUnits = 100

func paymentRequired(c *Call, reason string, q QuotaState, msg string) *Error {
	l := c.Links()
	return &Error{Status: fasthttp.StatusPaymentRequired, Detail: &QuotaDetail{Reason: reason, Quota: q, UpgradeURL: l.Upgrade, PurchaseURL: l.Purchase, Endpoint: c.Route.Path, Message: msg}}
}

// Links are the URLs error details and prompts point to.
type Links struct {
	Upgrade  string
	Purchase string
	Signup   string
}

// Links are the upgrade, purchase and signup URLs for this call: pages of Config.SiteURL, or
// anchors of the pricing document (relative without Config.BaseURL, see BaseURL).
func (c *Call) Links() Links {
	base := c.srv.cfg.SiteURL
	if base == "" {
		base = c.BaseURL() + "/v1/pricing"
		return Links{Upgrade: base + "#upgrade", Purchase: base + "#bundles", Signup: base + "#signup"}
	}
	return Links{Upgrade: base + "/upgrade", Purchase: base + "/purchase", Signup: base + "/signup"}
}

// BaseURL is the API's public base URL (Config.BaseURL, flag --base-url) to prefix the paths of
// links with, or "" when it is not configured: links are then relative references
// ("/v1/pricing#upgrade") that the client resolves against the URL it called. It never comes
// from the request (Host, X-Forwarded-Host): a client could point another's links anywhere.
func (c *Call) BaseURL() string { return strings.TrimSuffix(c.srv.cfg.BaseURL, "/") }

// RFC3339 is t in UTC as an RFC 3339 string, for the nullable date-times of details.
func RFC3339(t time.Time) *string {
	v := t.UTC().Format(time.RFC3339)
	return &v
}
