package admission

import (
	"context"
	"strconv"
	"time"
)

// Quota is one call taken from a key's daily quota (UTC day) and from its account's daily
// ceiling. It is refunded unless committed: a caller defers Refund as soon as it holds the Quota
// and calls Commit once the call counted, so no path can forget the refund.
type Quota struct {
	Decision
	l       *Limiter
	taken   []taken // the windows holding the call
	settled bool
}

type taken struct {
	scope string
	d     Decision
}

// quotaWindow is the window of daily quotas.
const quotaWindow = 24 * time.Hour

// TakeDaily spends one call of the daily quota of k's lineage and then of its account's ceiling
// (the plan's AccountKeys times the per-key quota). It returns nil when the plan has no daily
// quota. A Quota whose OK is false was refused (Account says by which window) and took nothing.
// When both admit, its Decision is the window with fewer calls remaining.
func (l *Limiter) TakeDaily(ctx context.Context, k *Key, now time.Time) *Quota {
	if k.Plan.DailyQuota == nil {
		return nil
	}
	perKey := int64(*k.Plan.DailyQuota)
	scope := "qd:" + strconv.FormatInt(k.Auth.LimitID, 10)
	d := l.Take(ctx, scope, perKey, quotaWindow, now)
	q := &Quota{Decision: d, l: l, settled: !d.OK}
	if !d.OK {
		return q
	}
	q.taken = append(q.taken, taken{scope, d})
	if k.Plan.AccountKeys <= 0 {
		return q
	}
	acct := "qa:" + strconv.FormatInt(k.Auth.AccountID, 10)
	ad := l.Take(ctx, acct, int64(k.Plan.AccountKeys)*perKey, quotaWindow, now)
	ad.Account = true
	if !ad.OK {
		q.Refund()
		q.Decision = ad
		return q
	}
	q.taken = append(q.taken, taken{acct, ad})
	if ad.Remaining < d.Remaining {
		q.Decision = ad
	}
	return q
}

// Commit keeps the call: it counted against the quota. A nil Quota does nothing.
func (q *Quota) Commit() {
	if q != nil {
		q.settled = true
	}
}

// Refund gives the call back unless Commit came first; a second Refund, or one on a nil Quota,
// does nothing.
func (q *Quota) Refund() {
	if q == nil || q.settled {
		return
	}
	q.settled = true
	for _, t := range q.taken {
		q.l.refund(t.scope, t.d, quotaWindow)
	}
}
