package api

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/oltp"
)

// Links are the URLs error details and prompts point to.
type Links struct {
	Upgrade  string
	Purchase string
	Signup   string
}

func (s *Server) links(c *Call) Links {
	base := s.cfg.SiteURL
	if base == "" {
		base = s.baseURL(c) + "/v1/pricing"
		return Links{Upgrade: base + "#upgrade", Purchase: base + "#bundles", Signup: base + "#signup"}
	}
	return Links{Upgrade: base + "/upgrade", Purchase: base + "/purchase", Signup: base + "/signup"}
}

func (s *Server) baseURL(c *Call) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	return "http://" + string(c.Ctx.Host())
}

func rfc3339(t time.Time) *string {
	v := t.UTC().Format(time.RFC3339)
	return &v
}

func (s *Server) paymentRequired(c *Call, reason string, q quotaState, msg string) *Error {
	l := s.links(c)
	return &Error{Status: 402, Detail: quotaDetail{Reason: reason, Quota: q, UpgradeURL: l.Upgrade, PurchaseURL: l.Purchase, Endpoint: c.Route.Path, Message: msg}}
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
	return s.paymentRequired(c, ReasonQuotaExceeded, quotaState{Limit: 0, Used: 0},
		c.Route.Gate+" is not included in the "+plan.Name+" plan: upgrade to call it")
}

func quotaScope(keyID int64) string { return "qd:" + strconv.FormatInt(keyID, 10) }

// checkQuota spends one call of the key's daily quota (UTC day); 402 quota_exceeded when spent.
func (s *Server) checkQuota(c *Call, now time.Time) (*decision, *Error) {
	plan := c.Caller.Plan()
	if plan.DailyQuota == nil {
		return nil, nil
	}
	d := s.limiter.take(c.Context(), quotaScope(c.Caller.KeyID), int64(*plan.DailyQuota), 24*time.Hour, now)
	if !d.ok {
		return nil, s.paymentRequired(c, ReasonQuotaExceeded, quotaState{Limit: d.limit, Used: d.limit, Reset: rfc3339(d.resetAt)},
			"the key's daily call quota is spent; it resets at quota.reset")
	}
	return &d, nil
}

func nextMonth(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
}

// checkSpendCap refuses billable calls once the account's units this billing month reach its
// hard cap (402 spend_cap_exceeded).
func (s *Server) checkSpendCap(c *Call, e *keyEntry, now time.Time) *Error {
	hard := e.auth.HardCapUnits
	if hard == nil {
		return nil
	}
	used, err := s.caps.used(c.Context(), c.Caller.AccountID, now)
	if err != nil {
		s.log.Warn("cannot read the account's spend; serving the call", "account_id", c.Caller.AccountID, "err", err)
		return nil
	}
	if used < *hard {
		return nil
	}
	return s.paymentRequired(c, ReasonSpendCapExceeded, quotaState{Limit: *hard, Used: used, Reset: rfc3339(nextMonth(now))},
		"the account reached its hard spend cap for this billing month")
}

// capCache estimates each account's units this billing month: the Postgres rollup (re-read at
// most once per refresh) plus the units this instance metered since. Across instances the
// estimate lags by at most one refresh plus one metering flush.
type capCache struct {
	pool    *pgxpool.Pool
	refresh time.Duration
	mu      sync.Mutex
	m       map[int64]*capState
}

type capState struct {
	mu      sync.Mutex
	stored  int64
	local   int64
	fetched time.Time
	month   time.Time
}

func newCapCache(pool *pgxpool.Pool) *capCache {
	return &capCache{pool: pool, refresh: time.Second, m: map[int64]*capState{}}
}

func (cc *capCache) state(accountID int64) *capState {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	st := cc.m[accountID]
	if st == nil {
		st = &capState{}
		cc.m[accountID] = st
	}
	return st
}

func (cc *capCache) used(ctx context.Context, accountID int64, now time.Time) (int64, error) {
	st := cc.state(accountID)
	st.mu.Lock()
	defer st.mu.Unlock()
	month := nextMonth(now)
	if st.month != month || now.Sub(st.fetched) > cc.refresh {
		units, _, err := oltp.MonthUnits(ctx, cc.pool, accountID)
		if err != nil {
			return st.stored + st.local, err
		}
		st.stored, st.local, st.fetched, st.month = units, 0, now, month
	}
	return st.stored + st.local, nil
}

func (cc *capCache) add(accountID, units int64) {
	if units == 0 {
		return
	}
	st := cc.state(accountID)
	st.mu.Lock()
	st.local += units
	st.mu.Unlock()
}

// forget drops the cached spend of every account (after a flush a reader wants exact numbers).
func (cc *capCache) forget() {
	cc.mu.Lock()
	cc.m = map[int64]*capState{}
	cc.mu.Unlock()
}
