package api

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/admission"
	"github.com/planehq/hiringsignal/plans"
)

// The chain's limits: admission decides, these turn its decisions into answers (429 and 402 in
// the shapes of spec 7) and the RateLimit-* headers.

// rateLimit spends one call of the caller's 60-second window and sets the RateLimit-* headers.
func (s *Server) rateLimit(c *Call, now time.Time) *Error {
	scope, limit := admission.Rate(c.key, c.Caller.IP)
	d := s.limiter.Take(c.Context(), scope, limit, plans.WindowSeconds*time.Second, now)
	h := &c.Ctx.Response.Header
	h.Set("RateLimit-Limit", strconv.FormatInt(d.Limit, 10))
	h.Set("RateLimit-Remaining", strconv.FormatInt(d.Remaining, 10))
	h.Set("RateLimit-Reset", strconv.FormatInt(d.ResetSeconds(now), 10))
	if d.OK {
		return nil
	}
	h.Set("Retry-After", strconv.FormatInt(d.ResetSeconds(now), 10))
	det := rateDetail{Reason: ReasonRateLimited, Endpoint: c.Route.Path, Message: fmt.Sprintf("more than %d calls in %d seconds; wait Retry-After seconds", d.Limit, plans.WindowSeconds)}
	if c.Caller.Demo {
		det.SignupURL = c.Links().Signup
	}
	return &Error{Status: fasthttp.StatusTooManyRequests, Detail: det}
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
	return paymentRequired(c, ReasonQuotaExceeded, QuotaState{Limit: 0, Used: 0},
		c.Route.Gate+" is not included in the "+plan.Name+" plan: upgrade to call it")
}

// takeQuota spends one call of the key's daily quota; 402 quota_exceeded when it is spent. The
// Quota is nil when the plan has none.
func (s *Server) takeQuota(c *Call, now time.Time) (*admission.Quota, *Error) {
	q := s.limiter.TakeDaily(c.Context(), c.Caller.KeyID, c.Caller.Plan(), now)
	if q == nil || q.OK {
		return q, nil
	}
	return nil, paymentRequired(c, ReasonQuotaExceeded, QuotaState{Limit: q.Limit, Used: q.Limit, Reset: RFC3339(q.ResetAt)},
		"the key's daily call quota is spent; it resets at quota.reset")
}

// checkSpendCap refuses billable calls once the account's units this billing month reach its
// hard cap (402 spend_cap_exceeded). When the spend cannot be read the call is served.
func (s *Server) checkSpendCap(c *Call, now time.Time) *Error {
	hard := c.key.Auth.HardCapUnits
	over, used, err := s.caps.Over(c.Context(), c.Caller.AccountID, hard, now)
	if err != nil {
		s.log.Warn("cannot read the account's spend; serving the call", "account_id", c.Caller.AccountID, "err", err)
		return nil
	}
	if !over {
		return nil
	}
	return paymentRequired(c, ReasonSpendCapExceeded, QuotaState{Limit: *hard, Used: used, Reset: RFC3339(admission.NextMonth(now))},
		"the account reached its hard spend cap for this billing month")
}

func paymentRequired(c *Call, reason string, q QuotaState, msg string) *Error {
	l := c.Links()
	return &Error{Status: fasthttp.StatusPaymentRequired, Detail: QuotaDetail{Reason: reason, Quota: q, UpgradeURL: l.Upgrade, PurchaseURL: l.Purchase, Endpoint: c.Route.Path, Message: msg}}
}

// Links are the URLs error details and prompts point to.
type Links struct {
	Upgrade  string
	Purchase string
	Signup   string
}

// Links are the upgrade, purchase and signup URLs for this call: pages of Config.SiteURL, or
// anchors of the pricing document.
func (c *Call) Links() Links {
	base := c.srv.cfg.SiteURL
	if base == "" {
		base = c.BaseURL() + "/v1/pricing"
		return Links{Upgrade: base + "#upgrade", Purchase: base + "#bundles", Signup: base + "#signup"}
	}
	return Links{Upgrade: base + "/upgrade", Purchase: base + "/purchase", Signup: base + "/signup"}
}

// BaseURL is the API's public base URL: Config.BaseURL, or http:// and the request's Host.
func (c *Call) BaseURL() string {
	if c.srv.cfg.BaseURL != "" {
		return c.srv.cfg.BaseURL
	}
	return "http://" + string(c.Ctx.Host())
}

// RFC3339 is t in UTC as an RFC 3339 string, for the nullable date-times of details.
func RFC3339(t time.Time) *string {
	v := t.UTC().Format(time.RFC3339)
	return &v
}
