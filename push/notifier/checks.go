package notifier

import (
	"time"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// The notifier writes rows pending, blocked (rate_limited, wall_blocked, cap_blocked: without a
// body, never served), or failed when the watch's endpoint is disabled: the statuses are
// oltp.Delivery* (the lifecycle: docs/decisions.md, "Push: deliveries").

// MonthStart is the start of the billing month of now (UTC): oltp.MonthStart.
func MonthStart(now time.Time) time.Time { return oltp.MonthStart(now) }

// checks decides the status of each match of a batch, in the spec's order, from the figures read
// at the batch's start plus what the batch admitted so far.
type checks struct {
	fires    map[int64]int64                     // watch → fires in the window
	accounts map[int64]oltp.AccountDeliveryState // account → figures
	off      map[int64]bool                      // endpoints disabled (or deleted): nothing is sent to them
}

// decide returns the status of a delivery for w and counts an admitted one:
//  1. the watch's fires in the last hour (FireWindow) reached max_fires_per_hour: rate_limited;
//  2. the account's admitted watch deliveries this billing month (pending, retrying, delivered,
//     or failed after being billed once: not a failure never accepted, not blocked) reached its
//     plan's allowance: wall_blocked (queued under overflow queue), or admitted as overage under
//     overflow overage;
//  3. the account's units this month plus its unsent watch deliveries (each bills one unit when
//     accepted) reached its hard spend cap: cap_blocked (2 and 3: admit.Decide, the rule a
//     replay of a delivery never billed is held to as well);
//  4. the watch's endpoint is disabled: failed, as the dispatcher would fail it unsent (never
//     due, not a fire, not admitted; replayable once the endpoint is registered again, when the
//     replay passes 2 and 3);
//  5. else pending (overage past the wall under overflow overage), and it counts as a fire, an
//     admitted delivery and an unsent one.
func (c *checks) decide(w *watch) (status string, v admit.Verdict) {
	if c.fires[w.ID] >= int64(w.MaxFiresPerHour) {
		return oltp.DeliveryRateLimited, admit.Verdict{}
	}
	st := c.accounts[w.AccountID]
	if v = admit.Decide(st); v.Status != "" {
		return v.Status, v
	}
	if c.off[w.EndpointID] {
		return oltp.DeliveryFailed, admit.Verdict{}
	}
	c.fires[w.ID]++
	st.Admitted++
	st.Unsent++
	c.accounts[w.AccountID] = st
	return oltp.DeliveryPending, v
}
