// Package admit owns the admission rules of webhook deliveries and the words of their refusals:
// whether one more watch delivery of an account is admitted (Decide, Admission: the plan's monthly
// delivered-changes allowance and the account's overflow past it, then the hard spend cap),
// whether a replay reopens a delivery (JudgeReplay) and whether a test delivery is written
// (JudgeTest), with the bounds they apply (MaxReplaysPerDelivery, MaxTestDeliveries, ...) and the
// sentences customers read when they refuse (Refusal, ErrAccountPaused), which the API answers as
// they are. The notifier's pre-send checks, a replay of a delivery never billed and the usage
// dashboard's wall all ask Decide, so they agree. It also owns the walls customers see coming
// (walls.go): the allowance warnings at 80% and 100% (Warnings, their words and delivery body)
// and why an account's watches are not delivering (BlockOf), which the watch list, the
// dashboard and onboarding answer.
//
// It decides and words; package oltp keeps the SQL: it reads the figures (oltp.ReplayFacts,
// oltp.TestFacts, oltp.AccountDeliveryState) under its locks and calls a judge of this package
// inside its transaction, so what is judged is what is written. ReplayDelivery and
// CreateTestDelivery are the oltp calls with their judge. It must not write a store other than
// through those calls, serve HTTP, match events, sign, send or bill anything.
package admit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// Bounds of replays and test deliveries (docs/decisions.md, "Push: deliveries"). The windows the
// figures count over are oltp's: oltp.TestDeliveryWindow and oltp.BudgetWindow.
const (
	// ReplayWindow is how long after its creation a delivery may be replayed.
	ReplayWindow = 30 * 24 * time.Hour
	// MaxTestDeliveries is the most test deliveries one endpoint takes within
	// oltp.TestDeliveryWindow.
	MaxTestDeliveries = 10
	// MaxTestDeliveriesPerDay is the most test deliveries one customer makes, across its
	// endpoints (deleted ones included), within oltp.BudgetWindow.
	MaxTestDeliveriesPerDay = 100
	// MaxReplaysPerDelivery is how many times one delivery may be reopened (replay_count).
	MaxReplaysPerDelivery = 5
	// MaxReplaysPerDay is the most replays that reopen a delivery one customer makes within
	// oltp.BudgetWindow.
	MaxReplaysPerDay = 1000
)

// ReplayWindowDays is ReplayWindow in days.
const ReplayWindowDays = int(ReplayWindow / (24 * time.Hour))

// Reasons of a refusal (Refusal.Reason; the reason of the API's 409).
const (
	ReasonNotReplayable   = "not_replayable"          // rate_limited, wall_blocked (not queued), cap_blocked: the decision stands
	ReasonWindowExpired   = "replay_window_expired"   // created more than ReplayWindow ago
	ReasonEndpointDeleted = "endpoint_deleted"        // the endpoint was deleted
	ReasonEndpointOff     = "endpoint_disabled"       // the endpoint was disabled (410 or failing for days): replays and tests
	ReasonReplayLimit     = "replay_limit_reached"    // reopened MaxReplaysPerDelivery times already
	ReasonReplayBudget    = "replay_budget_exhausted" // the customer reopened MaxReplaysPerDay deliveries within oltp.BudgetWindow
	ReasonWallReached     = "changes_wall_reached"    // never billed, and the plan's monthly allowance is reached
	ReasonCapReached      = "hard_cap_reached"        // never billed, and the account is at its hard spend cap
	ReasonTooManyTests    = "too_many_test_deliveries"
	ReasonTestBudget      = "test_delivery_budget_exhausted"
)

// Refusal is why a replay or a test delivery of the caller is not admitted (the API's 409).
type Refusal struct {
	Reason string
	Status string // the delivery's status (replays; "" for a test delivery)
	Msg    string
}

func (r *Refusal) Error() string { return r.Msg }

// ErrAccountPaused refuses a test delivery or a replay of a paused account: its deliveries are
// not sent until it resumes, so either would only pile up behind the pause (and go out at once
// on resume). The API answers it 403 account_paused.
var ErrAccountPaused = errors.New("the account is paused and its deliveries wait: resume it with POST /v1/account/resume, then send a test or replay")

// The refusals of a test delivery.
var (
	// ErrEndpointDisabled refuses a test delivery to a disabled endpoint.
	ErrEndpointDisabled = &Refusal{Reason: ReasonEndpointOff,
		Msg: "the webhook endpoint is disabled (GET /v1/webhooks says why): register its url again (POST /v1/webhooks) once it accepts deliveries"}
	// ErrTooManyTests refuses a test delivery to an endpoint that already took MaxTestDeliveries
	// within oltp.TestDeliveryWindow.
	ErrTooManyTests = &Refusal{Reason: ReasonTooManyTests,
		Msg: fmt.Sprintf("the endpoint already took %d test deliveries within the last %d seconds: wait for the first of them to age out, "+
			"or follow them with GET /v1/webhook-deliveries?webhook_endpoint_id=<id>", MaxTestDeliveries, int(oltp.TestDeliveryWindow.Seconds()))}
	// ErrTestBudgetExhausted refuses a test delivery of a customer that already made
	// MaxTestDeliveriesPerDay within oltp.BudgetWindow, whatever the endpoints (deleted ones
	// included).
	ErrTestBudgetExhausted = &Refusal{Reason: ReasonTestBudget,
		Msg: fmt.Sprintf("you made %d test deliveries within the last %d hours, across your endpoints: "+
			"at most %d a day; try again once the first of them is %d hours old", MaxTestDeliveriesPerDay, int(oltp.BudgetWindow.Hours()),
			MaxTestDeliveriesPerDay, int(oltp.BudgetWindow.Hours()))}
)

// Verdict is what the wall and the cap say of one more watch delivery of an account.
type Verdict struct {
	// Status is "" (admitted), oltp.DeliveryWallBlocked or oltp.DeliveryCapBlocked.
	Status string
	// Overage: admitted past the allowance under overflow overage; charged at the plan's
	// delivered_change price once accepted.
	Overage bool
	// Queued: wall_blocked under overflow queue; held with its body and replayable once the
	// allowance has room (after the month turns or an upgrade).
	Queued bool
}

// Decide is what the wall and the cap say of one more watch delivery of an account in state st.
// The wall: its admitted deliveries of the month reached the plan's allowance
// (plans.DeliveredChangeAllowance; an unknown tier has none: fail closed); past it the account's
// overflow decides (plans.EffectiveOverflow): stop walls it, queue walls and queues it, overage
// admits it as overage. Then the cap: its units of the month plus its unsent deliveries reached
// its hard cap (overage deliveries too). The notifier's checks and a replay of a delivery never
// billed (JudgeReplay) both ask it.
func Decide(st oltp.AccountDeliveryState) Verdict {
	overflow := plans.EffectiveOverflow(st.Tier, st.Overflow)
	allowance, limited := plans.DeliveredChangeAllowance(st.Tier)
	walled := limited && st.Admitted >= allowance
	if walled && overflow != plans.OverflowOverage {
		return Verdict{Status: oltp.DeliveryWallBlocked, Queued: overflow == plans.OverflowQueue}
	}
	if st.HardCap != nil && st.MonthUnits+st.Unsent >= *st.HardCap {
		return Verdict{Status: oltp.DeliveryCapBlocked}
	}
	return Verdict{Overage: walled}
}

// Admission is Decide's status: "" (admitted), oltp.DeliveryWallBlocked or
// oltp.DeliveryCapBlocked.
func Admission(st oltp.AccountDeliveryState) string { return Decide(st).Status }

// AdmissionNow is what the notifier's checks would say now of one more watch delivery of
// accountID (Admission), read from the same figures they read, so the dashboard's
// changes_wall_reached agrees with the wall. An account that does not exist is admitted ("").
func AdmissionNow(ctx context.Context, pool *pgxpool.Pool, accountID int64, now time.Time) (string, error) {
	st, ok, err := oltp.ReadAccountDeliveryState(ctx, pool, accountID, now)
	if err != nil || !ok {
		return "", err
	}
	return Admission(st), nil
}

// PushCounts answers the usage dashboard's push figures from Postgres (account.PushStats): the
// counts of oltp.PushCounts and the wall as Admission says it.
type PushCounts struct{ oltp.PushCounts }

// WallReached says whether a new watch delivery of accountID would now be wall_blocked.
func (p PushCounts) WallReached(ctx context.Context, accountID int64, now time.Time) (bool, error) {
	a, err := AdmissionNow(ctx, p.Pool, accountID, now)
	return a == oltp.DeliveryWallBlocked, err
}

// ReplayDeadline is when a replay of d is no longer taken: ReplayWindow after its creation, or for
// a delivery held at the wall under overflow queue ReplayWindow after the end of the billing month
// it was queued in (its room comes when that month turns).
func ReplayDeadline(d oltp.Delivery) time.Time {
	end := d.CreatedAt.Add(ReplayWindow)
	if d.Queued {
		if q := plans.NextMonth(d.CreatedAt).Add(ReplayWindow); q.After(end) {
			end = q
		}
	}
	return end
}

// JudgeReplay is the judge of a replay, in this order: a blocked delivery is never replayed (the
// decision stands) unless it is queued at the wall, nor one past its ReplayDeadline or whose
// endpoint is deleted or disabled; a paused account's is ErrAccountPaused; a delivery is reopened
// at most MaxReplaysPerDelivery times and a customer reopens at most MaxReplaysPerDay deliveries
// within oltp.BudgetWindow; a watch delivery never billed (a queued one included) is admitted
// again as the notifier admits a new one (Decide: refused at the wall or the hard cap). Its
// refusals are *Refusal.
func JudgeReplay(f oltp.ReplayFacts) error {
	d := f.Delivery
	refuse := func(reason, msg string, args ...any) error {
		return &Refusal{Reason: reason, Status: d.Status, Msg: fmt.Sprintf(msg, args...)}
	}
	switch {
	case oltp.Blocked(d.Status) && !d.Queued:
		return refuse(ReasonNotReplayable, "delivery %d is %s: it was never sent and the decision stands "+
			"(fire limit, monthly delivered-changes allowance or spend cap); only changes held at the wall under overflow queue are kept to replay", d.ID, d.Status)
	case f.Now.After(ReplayDeadline(d)):
		if d.Queued {
			return refuse(ReasonWindowExpired, "delivery %d was queued at the wall on %s: queued changes can be replayed until %d days after "+
				"the end of the billing month they were queued in (%s)", d.ID, d.CreatedAt.Format(time.DateOnly), ReplayWindowDays, ReplayDeadline(d).Format(time.DateOnly))
		}
		return refuse(ReasonWindowExpired, "delivery %d was created on %s, more than %d days ago: "+
			"deliveries can be replayed for %d days after their creation", d.ID, d.CreatedAt.Format(time.DateOnly), ReplayWindowDays, ReplayWindowDays)
	case f.EndpointDeleted:
		return refuse(ReasonEndpointDeleted, "webhook endpoint %d of delivery %d is deleted: "+
			"nothing is sent to it any more", d.EndpointID, d.ID)
	case f.EndpointDisabled:
		return refuse(ReasonEndpointOff, "webhook endpoint %d of delivery %d is disabled "+
			"(GET /v1/webhooks says why): register its url again (POST /v1/webhooks) once it accepts deliveries, then replay", d.EndpointID, d.ID)
	case f.Paused:
		return ErrAccountPaused
	case f.Replays >= MaxReplaysPerDelivery:
		return refuse(ReasonReplayLimit, "delivery %d was replayed %d times already: "+
			"a delivery is replayed at most %d times", d.ID, f.Replays, MaxReplaysPerDelivery)
	case f.RecentReplays >= MaxReplaysPerDay:
		hours := int(oltp.BudgetWindow.Hours())
		return refuse(ReasonReplayBudget, "you replayed %d deliveries within the last %d hours: "+
			"at most %d replays a day; try again once the first of them is %d hours old", f.RecentReplays, hours, MaxReplaysPerDay, hours)
	case !f.NeverBilled:
		return nil
	}
	st := f.Account
	switch Admission(st) {
	case oltp.DeliveryWallBlocked:
		allowance, _ := plans.DeliveredChangeAllowance(st.Tier)
		if d.Queued {
			return refuse(ReasonWallReached, "delivery %d is queued at the wall and your plan's %d delivered changes of this billing month are taken "+
				"(%d admitted): replay it once there is room, after the month turns (%s) or an upgrade; it stays replayable until %s",
				d.ID, allowance, st.Admitted, stamp(plans.NextMonth(f.Now)), ReplayDeadline(d).Format(time.DateOnly))
		}
		return refuse(ReasonWallReached, "delivery %d was never accepted, so a replay would deliver a new change, "+
			"and your plan's %d delivered changes of this billing month are taken (%d admitted): it can be replayed once the month turns "+
			"(within the %d-day window) or after an upgrade", d.ID, allowance, st.Admitted, ReplayWindowDays)
	case oltp.DeliveryCapBlocked:
		return refuse(ReasonCapReached, "delivery %d was never accepted, so a replay would bill a delivered change, "+
			"and the account is at its hard spend cap (%d units, %d used this month and %d deliveries unsent): raise the cap or wait for the month to turn",
			d.ID, *st.HardCap, st.MonthUnits, st.Unsent)
	}
	return nil
}

// JudgeTest is the judge of a test delivery (oltp.TestJudge), in this order: ErrEndpointDisabled,
// ErrAccountPaused, ErrTooManyTests (the endpoint's bound), ErrTestBudgetExhausted (the
// customer's: deleting and registering an endpoint again starts a new endpoint's window, not a
// new day).
func JudgeTest(f oltp.TestFacts) error {
	switch {
	case f.EndpointDisabled:
		return ErrEndpointDisabled
	case f.Paused:
		return ErrAccountPaused
	case f.EndpointTests >= MaxTestDeliveries:
		return ErrTooManyTests
	case f.CustomerTests >= MaxTestDeliveriesPerDay:
		return ErrTestBudgetExhausted
	}
	return nil
}

// judgeReplay is JudgeReplay as oltp.ReplayDelivery calls it: a delivery never billed that is
// admitted past the allowance under overflow overage is readmitted as overage.
func judgeReplay(f oltp.ReplayFacts) (overage bool, err error) {
	if err := JudgeReplay(f); err != nil {
		return false, err
	}
	return f.NeverBilled && Decide(f.Account).Overage, nil
}

// ReplayDelivery reopens delivery id of customerID when JudgeReplay admits it
// (oltp.ReplayDelivery). Errors: oltp.ErrNotFound, ErrAccountPaused, *Refusal.
func ReplayDelivery(ctx context.Context, pool *pgxpool.Pool, customerID string, id int64) (d oltp.Delivery, reopened bool, err error) {
	return oltp.ReplayDelivery(ctx, pool, customerID, id, judgeReplay)
}

// CreateTestDelivery writes a test delivery when JudgeTest admits it (oltp.CreateTestDelivery),
// its body the test event of package payload unless t.Payload says otherwise. Errors:
// oltp.ErrNotFound, ErrAccountPaused, *Refusal.
func CreateTestDelivery(ctx context.Context, pool *pgxpool.Pool, t oltp.NewTestDelivery) (oltp.Delivery, error) {
	if t.Payload == nil {
		t.Payload = payload.TestDelivery(t.EndpointID)
	}
	return oltp.CreateTestDelivery(ctx, pool, t, JudgeTest)
}
