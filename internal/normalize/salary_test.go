package normalize

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestYearlyUSDPeriods(t *testing.T) {
	t.Parallel()
	cases := []struct {
		min, max float64
		period   string
		lo, hi   float64
	}{
		{100000, 150000, "year", 100000, 150000},
		{100000, 150000, "YEAR", 100000, 150000},
		{100000, 150000, "annual", 100000, 150000},
		{8000, 10000, "month", 96000, 120000},
		{8000, 10000, "monthly", 96000, 120000},
		{2000, 2500, "week", 104000, 130000},
		{400, 500, "day", 104000, 130000},
		{50, 75, "hour", 104000, 156000},
		{50, 75, "Hourly", 104000, 156000},
	}
	for _, c := range cases {
		lo, hi, ok := YearlyUSD(c.min, c.max, "USD", c.period)
		require.True(t, ok, c.period)
		require.Equal(t, c.lo, lo, c.period)
		require.Equal(t, c.hi, hi, c.period)
	}
}

func TestYearlyUSDCurrencies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		currency string
		amount   float64
		want     float64
	}{
		{"USD", 100000, 100000},
		{"usd", 100000, 100000},
		{" EUR ", 100000, 117000},
		{"GBP", 100000, 137000},
		{"CHF", 100000, 126000},
		{"CAD", 100000, 73300},
		{"JPY", 10_000_000, 69400},
		{"INR", 2_000_000, 23340},
		{"SEK", 600_000, 63000},
		{"PLN", 200_000, 55400},
		{"AED", 300_000, 81690},
		{"BRL", 200_000, 36640},
	}
	for _, c := range cases {
		lo, hi, ok := YearlyUSD(c.amount, c.amount, c.currency, "year")
		require.True(t, ok, c.currency)
		require.Equal(t, c.want, lo, c.currency)
		require.Equal(t, c.want, hi, c.currency)
	}
	// Every currency in the table converts a plausible local salary.
	require.GreaterOrEqual(t, len(usdPerUnit), 30)
	for cur, rate := range usdPerUnit {
		local := math.Round(60000 / rate) // about 60k USD
		lo, _, ok := YearlyUSD(local, 0, cur, "year")
		require.True(t, ok, cur)
		require.InDelta(t, 60000, lo, 1, cur)
	}
}

func TestYearlyUSDBoundsAndRounding(t *testing.T) {
	t.Parallel()
	lo, hi, ok := YearlyUSD(0, 120000, "USD", "year")
	require.True(t, ok)
	require.Equal(t, 120000.0, lo)
	require.Equal(t, 120000.0, hi)

	lo, hi, ok = YearlyUSD(90000, 0, "EUR", "year")
	require.True(t, ok)
	require.Equal(t, 105300.0, lo)
	require.Equal(t, 105300.0, hi)

	lo, hi, ok = YearlyUSD(150000, 100000, "USD", "year") // inverted: reordered
	require.True(t, ok)
	require.Equal(t, 100000.0, lo)
	require.Equal(t, 150000.0, hi)

	lo, _, ok = YearlyUSD(33.33, 0, "USD", "hour")
	require.True(t, ok)
	require.Equal(t, 69326.0, lo) // 69326.4 rounded to whole dollars
}

func TestYearlyUSDRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name             string
		min, max         float64
		currency, period string
	}{
		{"unknown currency", 100000, 120000, "XYZ", "year"},
		{"empty currency", 100000, 120000, "", "year"},
		{"unknown period", 100000, 120000, "USD", "fortnight"},
		{"empty period", 100000, 120000, "USD", ""},
		{"no bounds", 0, 0, "USD", "year"},
		{"negative", -5, 100000, "USD", "year"},
		{"NaN", math.NaN(), 100000, "USD", "year"},
		{"Inf", math.Inf(1), 0, "USD", "year"},
		{"too low yearly", 500, 900, "USD", "year"},
		{"yearly amount given as hourly", 120000, 150000, "USD", "hour"},
		{"too high", 6_000_000, 7_000_000, "USD", "year"},
		{"cents as dollars", 12_000_000, 15_000_000, "USD", "year"},
		{"tiny hourly in weak currency", 10, 20, "JPY", "hour"},
	}
	for _, c := range cases {
		lo, hi, ok := YearlyUSD(c.min, c.max, c.currency, c.period)
		require.False(t, ok, c.name)
		require.Zero(t, lo, c.name)
		require.Zero(t, hi, c.name)
	}
}

// The pay plausibility rule, per period and currency.
func TestYearlyUSDPlausibility(t *testing.T) {
	t.Parallel()
	f := func(min, max float64, currency, period string, want bool) {
		t.Helper()
		_, _, ok := YearlyUSD(min, max, currency, period)
		require.Equal(t, want, ok, "%v-%v %s per %s", min, max, currency, period)
	}
	f(75, 95, "USD", "year", false)      // a real Recruitee record for an office manager: not yearly pay
	f(75, 95, "USD", "hour", true)       // the same figures per hour are plausible
	f(3500, 4200, "EUR", "year", false)  // a monthly figure labelled yearly, in a high-wage currency
	f(3500, 4200, "EUR", "month", true)  // ... is plausible per month
	f(4800, 6000, "GBP", "year", true)   // 6,576 USD: part-time pay, above the high-wage floor
	f(2, 3, "USD", "hour", false)        // 4,160 USD a year
	f(2.5, 3, "USD", "hour", true)       // 5,200 USD a year
	f(80000, 0, "INR", "year", false)    // 934 USD: below the floor of other currencies
	f(100000, 0, "INR", "year", true)    // 1,167 USD: plausible in a lower-wage currency
	f(800, 1200, "BRL", "month", true)   // 1,759 USD a year
	f(2_000_000, 0, "USD", "year", true) // executive pay
	f(3_000, 0, "USD", "hour", false)    // 6.24 M USD a year
	require.Equal(t, 5000.0, YearlyFloorUSD(" eur "))
	require.Equal(t, 1000.0, YearlyFloorUSD("INR"))
	require.Equal(t, 1000.0, YearlyFloorUSD(""))
}
