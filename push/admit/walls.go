package admit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// Walls customers see coming (docs/decisions.md, "Plans, limits, quotas and spend caps"): an
// account is warned when its delivered changes of the billing month reach 80% and 100% of its
// plan's allowance, and every place that shows its watches says why they are not delivering.

// WarnAt are the thresholds, in percent of an allowance's limit, at which a warning is raised.
var WarnAt = []int{80, 100}

// WarnLevel is the count that reaches pct percent of limit (rounded up, at least 1).
func WarnLevel(limit int64, pct int) int64 {
	return max(1, (limit*int64(pct)+99)/100)
}

// Warnings are the delivered-changes warnings an account in state st (of customerID, accountID)
// has reached in the billing month of now: one per threshold of WarnAt whose level its admitted
// deliveries reached. A plan without a wall (Enterprise) has none. The store raises each once per
// (account, allowance, period, limit, threshold): an upgrade warns again at its new limit.
func Warnings(customerID string, accountID int64, st oltp.AccountDeliveryState, now time.Time) []oltp.NewAccountEvent {
	limit, limited := plans.DeliveredChangeAllowance(st.Tier)
	if !limited || limit <= 0 {
		return nil
	}
	var out []oltp.NewAccountEvent
	for _, pct := range WarnAt {
		if st.Admitted >= WarnLevel(limit, pct) {
			out = append(out, oltp.NewAccountEvent{CustomerID: customerID, AccountID: accountID, Type: payload.EventAllowanceWarning,
				Allowance: plans.AllowanceDeliveredChanges, Threshold: pct, Limit: limit, Used: st.Admitted,
				Overflow: plans.EffectiveOverflow(st.Tier, st.Overflow), PeriodStart: plans.MonthStart(now), ResetsAt: plans.NextMonth(now)})
		}
	}
	return out
}

// WarningMessage is warning e in a sentence, with what happens past the limit and the way out.
func WarningMessage(e oltp.AccountEvent) string {
	reached := fmt.Sprintf("%s of your %s delivered changes of this calendar month (UTC) are used (%d%%)", count(e.Used), count(e.Limit), e.Threshold)
	if e.Threshold >= 100 {
		reached = fmt.Sprintf("your %s delivered changes of this calendar month (UTC) are used", count(e.Limit))
	}
	return reached + ": " + pastWall(e.Overflow, e.ResetsAt, e.Threshold >= 100) + "."
}

// pastWall says what happens to further changes under overflow until resets (now: the wall is
// reached), and the way out.
func pastWall(overflow string, resets time.Time, now bool) string {
	when := "past it, changes are"
	if now {
		when = "changes are now"
	}
	var s string
	switch overflow {
	case plans.OverflowOverage:
		return fmt.Sprintf("%s delivered and charged %d cents each (overflow overage) until the count resets at %s; "+
			"the hard spend cap still stops them; upgrade for a larger allowance (GET /v1/pricing)", when, plans.UnitCents, stamp(resets))
	case plans.OverflowQueue:
		s = fmt.Sprintf("%s queued, not sent (wall_blocked, queued) until the count resets at %s: replay them then, or after an upgrade "+
			"(GET /v1/webhook-deliveries?status=wall_blocked lists them)", when, stamp(resets))
	default:
		s = fmt.Sprintf("%s not delivered and not kept (wall_blocked) until the count resets at %s", when, stamp(resets))
	}
	return s + "; upgrade (GET /v1/pricing), or on a paid plan choose overage or queue (PUT /v1/account/overflow)"
}

// AccountEventPayload is e as the change feed lists it and a delivery carries it.
func AccountEventPayload(e oltp.AccountEvent) payload.AccountEvent {
	return payload.AccountEvent{AccountEventID: e.ID, EventType: e.Type, Allowance: e.Allowance, ThresholdPercent: e.Threshold, Limit: e.Limit, Used: e.Used,
		Period: plans.PeriodMonth, PeriodStart: stamp(e.PeriodStart), ResetsAt: stamp(e.ResetsAt), Overflow: e.Overflow, Message: WarningMessage(e),
		OccurredAt: stamp(e.CreatedAt)}
}

// AccountEventBody is the delivery of account event e to endpoint endpointID as delivery
// deliveryID (oltp.AccountEventBody): its idempotency key and body, the envelope of every delivery
// (the req fields empty or null, as a test delivery's) with account_event set.
func AccountEventBody(e oltp.AccountEvent, endpointID, deliveryID int64) (string, []byte) {
	key := payload.AccountEventKey(e.ID, endpointID)
	ev := AccountEventPayload(e)
	b := payload.Body{Event: e.Type, OccurredAt: ev.OccurredAt, WebhookID: endpointID, DeliveryID: deliveryID, IdempotencyKey: key, AccountEvent: &ev}
	return key, b.Marshal()
}

// Statuses of a watch that is not delivering because of its account (Block.Status).
const (
	BlockedByAllowance = "blocked_by_allowance" // the plan's delivered changes of the month are taken (overflow stop or queue)
	BlockedBySpendCap  = "blocked_by_spend_cap" // the account is at its hard spend cap
)

// Block is why an account's watches are not delivering now, and until when.
type Block struct {
	Status      string    // BlockedByAllowance or BlockedBySpendCap
	Allowance   string    // plans.AllowanceDeliveredChanges or plans.AllowanceHardCap
	Limit       int64     // the allowance's limit
	Used        int64     // what counts against it (admitted deliveries; units plus unsent deliveries)
	Period      string    // plans.PeriodMonth
	PeriodStart time.Time // the billing month's start
	ResetsAt    time.Time // when the count starts again
	Overflow    string    // what happens to a change meanwhile: stop or queue (wall); stop (cap)
	Queued      int64     // changes held at the wall, replayable once there is room
	Message     string    // the block in a sentence, with the way out
}

// QueueSince is the earliest creation time of a queued delivery still replayable at now (its
// ReplayDeadline is ReplayWindow after the end of its month).
func QueueSince(now time.Time) time.Time { return plans.MonthStart(now.Add(-ReplayWindow)) }

// BlockOf is why one more watch delivery of an account in state st would not be delivered at now
// (Decide), nil when it would be (overflow overage past the wall included); queued is how many of
// its changes are held at the wall (oltp.QueuedDeliveries since QueueSince).
func BlockOf(st oltp.AccountDeliveryState, queued int64, now time.Time) *Block {
	v := Decide(st)
	name := st.Tier
	if t, ok := plans.ByID(st.Tier); ok {
		name = t.Name
	}
	b := &Block{Period: plans.PeriodMonth, PeriodStart: plans.MonthStart(now), ResetsAt: plans.NextMonth(now), Overflow: plans.OverflowStop, Queued: queued}
	switch v.Status {
	case oltp.DeliveryWallBlocked:
		limit, _ := plans.DeliveredChangeAllowance(st.Tier)
		b.Status, b.Allowance, b.Limit, b.Used = BlockedByAllowance, plans.AllowanceDeliveredChanges, limit, st.Admitted
		b.Overflow = plans.EffectiveOverflow(st.Tier, st.Overflow)
		b.Message = fmt.Sprintf("The %s plan's %s delivered changes of this calendar month (UTC) are used (%s admitted): %s.",
			name, count(limit), count(st.Admitted), pastWall(b.Overflow, b.ResetsAt, true))
		if queued > 0 {
			b.Message += fmt.Sprintf(" %s changes are queued.", count(queued))
		}
	case oltp.DeliveryCapBlocked:
		b.Status, b.Allowance, b.Limit, b.Used = BlockedBySpendCap, plans.AllowanceHardCap, *st.HardCap, st.MonthUnits+st.Unsent
		b.Message = fmt.Sprintf("The account reached its hard spend cap of %s units this calendar month (UTC) (%s used, unsent deliveries included): "+
			"changes are not delivered (cap_blocked) and billable routes answer 402 until %s or the cap is raised; upgrade (GET /v1/pricing).",
			count(*st.HardCap), count(st.MonthUnits), stamp(b.ResetsAt))
	default:
		return nil
	}
	return b
}

// BlockNow reads accountID's figures as the notifier's checks read them and says why its watches
// are not delivering now (BlockOf; nil: they are), with the figures. An account that does not
// exist is not blocked.
func BlockNow(ctx context.Context, pool *pgxpool.Pool, accountID int64, now time.Time) (*Block, oltp.AccountDeliveryState, error) {
	st, ok, err := oltp.ReadAccountDeliveryState(ctx, pool, accountID, now)
	if err != nil || !ok {
		return nil, st, err
	}
	var queued int64
	if Decide(st).Queued {
		if queued, err = oltp.QueuedDeliveries(ctx, pool, accountID, QueueSince(now)); err != nil {
			return nil, st, err
		}
	}
	return BlockOf(st, queued, now), st, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// count writes n with thousands separators: 1,500.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + count(-n)
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
