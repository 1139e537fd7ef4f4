package admit_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// The wall comes before the cap; Enterprise has no wall; an unknown tier is walled (fail closed).
func TestAdmissionWallThenCap(t *testing.T) {
	trial, limited := plans.DeliveredChangeAllowance("tier_1")
	require.True(t, limited)
	capped := int64(10)
	require.Equal(t, "", admit.Admission(oltp.AccountDeliveryState{Tier: "tier_1", Admitted: trial - 1}))
	require.Equal(t, oltp.DeliveryWallBlocked, admit.Admission(oltp.AccountDeliveryState{Tier: "tier_1", Admitted: trial, HardCap: &capped, MonthUnits: 10}))
	require.Equal(t, oltp.DeliveryCapBlocked, admit.Admission(oltp.AccountDeliveryState{Tier: "tier_1", HardCap: &capped, MonthUnits: 7, Unsent: 3}))
	require.Equal(t, "", admit.Admission(oltp.AccountDeliveryState{Tier: "enterprise", Admitted: 1 << 40}))
	require.Equal(t, oltp.DeliveryWallBlocked, admit.Admission(oltp.AccountDeliveryState{Tier: "no_such_tier"}))
}

// A replay's refusals come in their documented order: what the delivery is, then the account,
// then the bounds, then the wall and the cap of a delivery never billed.
func TestJudgeReplayRefusesInOrder(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	capped := int64(5)
	walled := oltp.AccountDeliveryState{Tier: "tier_0", Admitted: 1 << 20, HardCap: &capped, MonthUnits: 5}
	everything := oltp.ReplayFacts{
		Delivery: oltp.Delivery{ID: 7, EndpointID: 3, Status: oltp.DeliveryWallBlocked, CreatedAt: now.Add(-admit.ReplayWindow - time.Second)},
		Now:      now, EndpointDeleted: true, EndpointDisabled: true, Paused: true,
		Replays: admit.MaxReplaysPerDelivery, RecentReplays: admit.MaxReplaysPerDay, NeverBilled: true, Account: walled,
	}
	reasons := []string{admit.ReasonNotReplayable, admit.ReasonWindowExpired, admit.ReasonEndpointDeleted, admit.ReasonEndpointOff,
		"paused", admit.ReasonReplayLimit, admit.ReasonReplayBudget, admit.ReasonWallReached, admit.ReasonCapReached, ""}
	f := everything
	for _, want := range reasons {
		err := admit.JudgeReplay(f)
		switch want {
		case "":
			require.NoError(t, err)
		case "paused":
			require.ErrorIs(t, err, admit.ErrAccountPaused)
			f.Paused = false
		default:
			var r *admit.Refusal
			require.ErrorAs(t, err, &r)
			require.Equal(t, want, r.Reason, r.Msg)
			require.Equal(t, f.Delivery.Status, r.Status)
		}
		switch want { // lift the cause of this refusal, keep the others
		case admit.ReasonNotReplayable:
			f.Delivery.Status = oltp.DeliveryFailed
		case admit.ReasonWindowExpired:
			f.Delivery.CreatedAt = now.Add(-admit.ReplayWindow)
		case admit.ReasonEndpointDeleted:
			f.EndpointDeleted = false
		case admit.ReasonEndpointOff:
			f.EndpointDisabled = false
		case admit.ReasonReplayLimit:
			f.Replays = admit.MaxReplaysPerDelivery - 1
		case admit.ReasonReplayBudget:
			f.RecentReplays = admit.MaxReplaysPerDay - 1
		case admit.ReasonWallReached:
			f.Account.Tier = "enterprise"
		case admit.ReasonCapReached:
			f.Account.MonthUnits = 0
		}
	}
	// A delivery already billed is not held to the wall and the cap.
	everything = f
	everything.Account = walled
	everything.NeverBilled = false
	require.NoError(t, admit.JudgeReplay(everything))
}

func TestJudgeTestRefusesInOrder(t *testing.T) {
	f := oltp.TestFacts{EndpointDisabled: true, Paused: true, EndpointTests: admit.MaxTestDeliveries, CustomerTests: admit.MaxTestDeliveriesPerDay}
	require.Equal(t, admit.ErrEndpointDisabled, admit.JudgeTest(f))
	f.EndpointDisabled = false
	require.Equal(t, admit.ErrAccountPaused, admit.JudgeTest(f))
	f.Paused = false
	require.Equal(t, admit.ErrTooManyTests, admit.JudgeTest(f))
	f.EndpointTests--
	require.Equal(t, admit.ErrTestBudgetExhausted, admit.JudgeTest(f))
	f.CustomerTests--
	require.NoError(t, admit.JudgeTest(f))
	require.Equal(t, admit.ReasonEndpointOff, admit.ErrEndpointDisabled.Reason)
	require.Empty(t, admit.ErrTooManyTests.Status, "a test refusal names no delivery status")
}

// Past the wall the account's overflow decides, where its plan allows it: stop walls, queue walls
// and queues, overage admits as overage and is still held to the hard cap.
func TestDecidePastTheWallByOverflow(t *testing.T) {
	starter, _ := plans.DeliveredChangeAllowance("tier_2")
	capped := int64(300)
	at := func(overflow string, admitted int64) oltp.AccountDeliveryState {
		return oltp.AccountDeliveryState{Tier: "tier_2", Overflow: overflow, Admitted: admitted, HardCap: &capped, MonthUnits: 10}
	}
	require.Equal(t, admit.Verdict{}, admit.Decide(at(plans.OverflowQueue, starter-1)), "below the wall nothing is queued or overage")
	require.Equal(t, admit.Verdict{Status: oltp.DeliveryWallBlocked}, admit.Decide(at(plans.OverflowStop, starter)))
	require.Equal(t, admit.Verdict{Status: oltp.DeliveryWallBlocked, Queued: true}, admit.Decide(at(plans.OverflowQueue, starter)))
	require.Equal(t, admit.Verdict{Overage: true}, admit.Decide(at(plans.OverflowOverage, starter)))
	full := at(plans.OverflowOverage, starter+40)
	full.Unsent = 290
	require.Equal(t, admit.Verdict{Status: oltp.DeliveryCapBlocked}, admit.Decide(full), "overage stops at the hard cap")
	free := oltp.AccountDeliveryState{Tier: "tier_0", Overflow: plans.OverflowOverage, Admitted: 50}
	require.Equal(t, admit.Verdict{Status: oltp.DeliveryWallBlocked}, admit.Decide(free), "Free stops whatever is stored")
}

// The warnings are at 80% and 100% of the allowance, rounded up; none without a wall.
func TestWarningsAt80And100Percent(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	levels := func(tier string, admitted int64) []int {
		var out []int
		for _, w := range admit.Warnings("cus", 1, oltp.AccountDeliveryState{Tier: tier, Admitted: admitted}, now) {
			require.Equal(t, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), w.PeriodStart)
			require.Equal(t, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), w.ResetsAt)
			out = append(out, w.Threshold)
		}
		return out
	}
	require.Empty(t, levels("tier_3", 1199))
	require.Equal(t, []int{80}, levels("tier_3", 1200), "Growth: 80% of 1,500")
	require.Equal(t, []int{80, 100}, levels("tier_3", 1500))
	require.Equal(t, []int{80}, levels("tier_0", 40), "Free: 80% of 50")
	require.Empty(t, levels("enterprise", 1<<30))
	require.EqualValues(t, 1, admit.WarnLevel(1, 80))
}

// A change queued at the wall is replayable: held to the wall while the month's allowance is
// used, admitted once there is room (an upgrade, or the month turned), until ReplayWindow after
// the end of the month it was queued in.
func TestAQueuedChangeIsReplayableOnceThereIsRoom(t *testing.T) {
	created := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	walled := oltp.AccountDeliveryState{Tier: "tier_2", Overflow: plans.OverflowQueue, Admitted: 250}
	f := oltp.ReplayFacts{Delivery: oltp.Delivery{ID: 9, Status: oltp.DeliveryWallBlocked, Queued: true, CreatedAt: created},
		Now: created.Add(time.Hour), NeverBilled: true, Account: walled}
	var r *admit.Refusal
	require.ErrorAs(t, admit.JudgeReplay(f), &r)
	require.Equal(t, admit.ReasonWallReached, r.Reason)
	require.Contains(t, r.Msg, "2026-12-01T00:00:00Z")

	upgraded := f
	upgraded.Account.Tier = "tier_3"
	require.NoError(t, admit.JudgeReplay(upgraded), "an upgrade makes room")

	reset := f
	reset.Now = time.Date(2026, 12, 30, 0, 0, 0, 0, time.UTC) // past created + 30 days, within December + 30 days
	reset.Account.Admitted = 0
	require.NoError(t, admit.JudgeReplay(reset), "the month turned")
	reset.Now = time.Date(2026, 12, 31, 0, 0, 1, 0, time.UTC)
	require.ErrorAs(t, admit.JudgeReplay(reset), &r)
	require.Equal(t, admit.ReasonWindowExpired, r.Reason)

	// A wall_blocked change that was not queued stays not replayable.
	stopped := f
	stopped.Delivery.Queued = false
	stopped.Account.Admitted = 0
	require.ErrorAs(t, admit.JudgeReplay(stopped), &r)
	require.Equal(t, admit.ReasonNotReplayable, r.Reason)
}
