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
