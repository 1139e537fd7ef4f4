package admission

import (
	"context"
	"strconv"
	"time"

	"github.com/planehq/hiringsignal/plans"
)

// Quota is one call taken from a key's daily quota (UTC day). It is refunded unless committed:
// a caller defers Refund as soon as it holds the Quota and calls Commit once the call counted,
// so no path can forget the refund.
type Quota struct {
	Decision
	l       *Limiter
	scope   string
	settled bool
}

// quotaWindow is the window of daily quotas.
const quotaWindow = 24 * time.Hour

// TakeDaily spends one call of keyID's daily quota under plan. It returns nil when the plan has
// no daily quota. A Quota whose OK is false was refused (the quota is spent) and took nothing.
func (l *Limiter) TakeDaily(ctx context.Context, keyID int64, plan plans.Tier, now time.Time) *Quota {
	if plan.DailyQuota == nil {
		return nil
	}
	scope := "qd:" + strconv.FormatInt(keyID, 10)
	d := l.Take(ctx, scope, int64(*plan.DailyQuota), quotaWindow, now)
	return &Quota{Decision: d, l: l, scope: scope, settled: !d.OK}
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
	q.l.refund(q.scope, q.Decision, quotaWindow)
}
