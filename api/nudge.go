package api

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// NudgeAt is the share of a limit (a key's daily call quota, the account's soft spend cap) from
// which the expansion nudge is triggered (the usage dashboard's amber).
const NudgeAt = 0.8

// Nudged says whether used reached NudgeAt of limit (nil: no limit).
func Nudged(used int64, limit *int64) bool {
	return limit != nil && float64(used) >= NudgeAt*float64(*limit)
}

// StartOfDay is the start of the UTC day of t (a daily quota's day).
func StartOfDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// ExpansionNudge is the dashboard's expansion_nudge_triggered for the caller, read on its own
// (GET /v1/onboarding): a live key of the customer used 80% of its daily call quota today (its
// lineage's calls, as the dashboard counts them), the account spent 80% of its soft cap this
// billing month, or its watch deliveries admitted this month reached 80% of its plan's
// delivered-changes allowance (the allowance warning's first threshold, DeliveriesNudged). It reads this instance's unflushed metering first. The shared demo key has no
// quota or spend of its own (it bills nothing): never nudged, and nothing flushed or read for it
// (a public key must not drive metering flushes).
func ExpansionNudge(c *Call, pool *pgxpool.Pool) (bool, error) {
	if c.Caller.Demo {
		return false, nil
	}
	if err := c.FlushUsage(); err != nil {
		return false, fmt.Errorf("cannot flush usage before the nudge: %w", err)
	}
	now, e := c.Now(), c.KeyAuth()
	units, _, err := oltp.MonthUnits(c.Context(), pool, c.Caller.AccountID)
	if err != nil {
		return false, err
	}
	if Nudged(units, e.SoftCapUnits) {
		return true, nil
	}
	st, ok, err := oltp.ReadAccountDeliveryState(c.Context(), pool, c.Caller.AccountID, now)
	if err != nil {
		return false, err
	}
	if ok && DeliveriesNudged(st) {
		return true, nil
	}
	plan := c.Caller.Plan()
	if plan.DailyQuota == nil {
		return false, nil
	}
	quota := int64(*plan.DailyQuota)
	calls, err := oltp.CallsSince(c.Context(), pool, c.Caller.CustomerID, StartOfDay(now))
	if err != nil {
		return false, err
	}
	keys, err := oltp.QuotaKeys(c.Context(), pool, c.Caller.CustomerID, slices.Collect(maps.Keys(calls)))
	if err != nil {
		return false, err
	}
	lineage := map[int64]int64{}
	for _, k := range keys {
		lineage[k.LimitID] += calls[k.KeyID]
	}
	for _, k := range keys {
		if k.RevokedAt == nil && Nudged(lineage[k.LimitID], &quota) {
			return true, nil
		}
	}
	return false, nil
}

// DeliveriesNudged says whether an account in state st admitted at least 80% of its plan's
// delivered changes of the billing month (the first allowance warning, admit.WarnAt).
func DeliveriesNudged(st oltp.AccountDeliveryState) bool {
	limit, limited := plans.DeliveredChangeAllowance(st.Tier)
	return limited && limit > 0 && st.Admitted >= admit.WarnLevel(limit, admit.WarnAt[0])
}
