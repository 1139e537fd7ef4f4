package plans_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/plans"
)

// Every tier has a live-watch allowance: the bundle's (spec 8.1), or ours where the spec shows
// no bundle.
func TestLiveWatchAllowance(t *testing.T) {
	t.Parallel()
	want := map[string]int{"free": 3, "trial": 5, "starter": 5, "growth": 25, "enterprise": 100}
	for _, tier := range plans.All() {
		require.Equal(t, want[tier.Plan], tier.LiveWatchAllowance(), tier.Plan)
	}
	require.Len(t, plans.All(), len(want))
}

// Every allowance of every plan states its period and what happens past it.
func TestEveryAllowanceStatesItsPeriodAndWhatHappensPastIt(t *testing.T) {
	t.Parallel()
	periods := []string{plans.PeriodMinute, plans.PeriodDay, plans.PeriodMonth, plans.PeriodConcurrent}
	for _, tier := range plans.All() {
		as := tier.Allowances()
		require.Len(t, as, 7, tier.Plan)
		for _, a := range as {
			require.Contains(t, periods, a.Period, "%s %s", tier.Plan, a.Name)
			require.NotEmpty(t, a.Past, "%s %s", tier.Plan, a.Name)
			require.NotEmpty(t, a.Resets, "%s %s", tier.Plan, a.Name)
		}
	}
	growth, _ := plans.ByPlan("growth")
	dc := growth.Allowances()[3]
	require.Equal(t, plans.AllowanceDeliveredChanges, dc.Name)
	require.EqualValues(t, 1500, *dc.Limit)
	require.Equal(t, plans.PeriodMonth, dc.Period)
}

// A paid plan prices every meter class; Free and Trial charge no unit; Enterprise is by contract.
func TestUnitPrices(t *testing.T) {
	t.Parallel()
	for _, tier := range plans.All() {
		p := tier.UnitPrices()
		if tier.Plan == "enterprise" {
			require.Nil(t, p)
			continue
		}
		require.Len(t, p, len(plans.MeterClasses), tier.Plan)
		for _, c := range plans.MeterClasses {
			want := int64(0)
			if tier.Paid() && c != plans.MeterCall {
				want = plans.UnitCents
			}
			require.Equal(t, want, p[c], "%s %s", tier.Plan, c)
		}
	}
}

// A month's bill: the monthly amount, units past the credits at their price, overage delivered
// changes at theirs; Free and Trial never pay a unit.
func TestBill(t *testing.T) {
	t.Parallel()
	growth, _ := plans.ByPlan("growth")
	u := plans.MonthUsage{Units: map[string]int64{plans.MeterCall: 90_000, plans.MeterSourceRow: 4_800, plans.MeterChange: 600, plans.MeterWatch: 12,
		plans.MeterDeliveredChange: 1_620}, OverageDelivered: 120}
	b, ok := growth.Bill(u)
	require.True(t, ok)
	// 19,900 + (4,800 + 600 + 12 - 5,000) × 10 + 120 × 10
	require.EqualValues(t, 19_900+412*10+120*10, b.Cents)
	var sum int64
	for _, l := range b.Lines {
		sum += l.Cents
		require.Equal(t, l.Units, l.Included+l.Charged, l.Item)
	}
	require.Equal(t, b.Cents, sum)
	free, _ := plans.ByPlan("free")
	b, _ = free.Bill(u)
	require.EqualValues(t, 0, b.Cents)
	enterprise, _ := plans.ByPlan("enterprise")
	_, ok = enterprise.Bill(u)
	require.False(t, ok)

	p := plans.Project(plans.MonthUsage{Units: map[string]int64{plans.MeterSourceRow: 100}, OverageDelivered: 3}, 10*24*time.Hour, 30*24*time.Hour)
	require.EqualValues(t, 300, p.Units[plans.MeterSourceRow])
	require.EqualValues(t, 9, p.OverageDelivered)
}

func TestDollars(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{0: "$0.00", 5: "$0.05", 19_900: "$199.00", 123_456_789: "$1,234,567.89", -10: "-$0.10"} {
		require.Equal(t, want, plans.Dollars(cents))
	}
}

// An account chooses overage or queue only on a plan that charges units.
func TestEffectiveOverflow(t *testing.T) {
	t.Parallel()
	require.Equal(t, plans.OverflowQueue, plans.EffectiveOverflow("tier_3", plans.OverflowQueue))
	require.Equal(t, plans.OverflowOverage, plans.EffectiveOverflow("tier_2", plans.OverflowOverage))
	require.Equal(t, plans.OverflowStop, plans.EffectiveOverflow("tier_0", plans.OverflowQueue))
	require.Equal(t, plans.OverflowStop, plans.EffectiveOverflow("tier_1", plans.OverflowOverage))
	require.Equal(t, plans.OverflowStop, plans.EffectiveOverflow("no_such_tier", plans.OverflowQueue))
}
