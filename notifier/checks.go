package notifier

import (
	"time"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/plans"
)

// The notifier writes rows pending, or blocked (rate_limited, wall_blocked, cap_blocked): the
// statuses are oltp.Delivery* (the lifecycle: docs/decisions.md, "Push: deliveries").

// Monthly delivered-changes allowances of the plans without a bundle (spec 8.1 lists none for
// Trial and Enterprise): a Trial evaluates push with Starter's allowance, as it has Starter's
// live watches (plans.TrialLiveWatches); Enterprise has no wall, only its spend cap.
const TrialDeliveredChanges = 250

// DeliveredChangeAllowance is how many watch deliveries an account on tier may be admitted per
// billing month; limited is false when there is no such wall (Enterprise). An unknown tier has
// an allowance of 0 (fail closed).
func DeliveredChangeAllowance(tierID string) (allowance int64, limited bool) {
	t, ok := plans.ByID(tierID)
	switch {
	case !ok:
		return 0, true
	case t.HasBundle:
		return int64(t.Fires), true
	case t.Plan == "trial":
		return TrialDeliveredChanges, true
	}
	return 0, false
}

// MonthStart is the start of the billing month of now (UTC).
func MonthStart(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// checks decides the status of each match of a batch, in the spec's order, from the figures read
// at the batch's start plus what the batch admitted so far.
type checks struct {
	fires    map[int64]int64                     // watch → fires in the window
	accounts map[int64]oltp.AccountDeliveryState // account → figures
}

// decide returns the status of a delivery for w and counts an admitted one:
//  1. the watch's fires in the last hour (FireWindow) reached max_fires_per_hour: rate_limited;
//  2. the account's admitted watch deliveries this billing month (pending, retrying or
//     delivered: not failed, not blocked) reached its plan's allowance: wall_blocked;
//  3. the account's units this month plus its unsent watch deliveries (each bills one unit when
//     accepted) reached its hard spend cap: cap_blocked;
//  4. else pending, and it counts as a fire, an admitted delivery and an unsent one.
func (c *checks) decide(w *watch) string {
	if c.fires[w.ID] >= int64(w.MaxFiresPerHour) {
		return oltp.DeliveryRateLimited
	}
	st := c.accounts[w.AccountID]
	if allowance, limited := DeliveredChangeAllowance(st.Tier); limited && st.Admitted >= allowance {
		return oltp.DeliveryWallBlocked
	}
	if st.HardCap != nil && st.MonthUnits+st.Unsent >= *st.HardCap {
		return oltp.DeliveryCapBlocked
	}
	c.fires[w.ID]++
	st.Admitted++
	st.Unsent++
	c.accounts[w.AccountID] = st
	return oltp.DeliveryPending
}
