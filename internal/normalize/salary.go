package normalize

import (
	"math"
	"strings"
)

// Salaries are stored as a yearly-USD band (salary_min_usd, salary_max_usd).

// RatesAsOf is the date of the reference rates in usdPerUnit.
const RatesAsOf = "2025-06-30"

// usdPerUnit is the value in US dollars of one unit of each currency:
// approximate mid-market reference rates on RatesAsOf, rounded to three or
// four significant figures (pegged currencies at their peg). The table is
// fixed on purpose so that a stored band never moves with the market;
// changing a rate changes every band computed afterwards, so update the whole
// table and RatesAsOf together.
var usdPerUnit = map[string]float64{
	"USD": 1,
	"EUR": 1.17,
	"GBP": 1.37,
	"CHF": 1.26,
	"CAD": 0.733,
	"AUD": 0.656,
	"NZD": 0.608,
	"JPY": 0.00694,
	"CNY": 0.1396,
	"INR": 0.01167,
	"SGD": 0.785,
	"HKD": 0.1274,
	"KRW": 0.000741,
	"TWD": 0.0342,
	"BRL": 0.1832,
	"MXN": 0.0532,
	"ARS": 0.00084,
	"CLP": 0.00107,
	"COP": 0.000245,
	"PEN": 0.282,
	"ZAR": 0.0563,
	"AED": 0.2723,
	"SAR": 0.2667,
	"QAR": 0.2747,
	"ILS": 0.2967,
	"TRY": 0.0251,
	"EGP": 0.0201,
	"NGN": 0.00065,
	"KES": 0.00774,
	"PLN": 0.277,
	"CZK": 0.0476,
	"HUF": 0.00293,
	"SEK": 0.105,
	"NOK": 0.099,
	"DKK": 0.158,
	"ISK": 0.0082,
	"RON": 0.232,
	"BGN": 0.602,
	"UAH": 0.024,
	"THB": 0.0307,
	"MYR": 0.237,
	"IDR": 0.0000617,
	"PHP": 0.0177,
	"VND": 0.0000383,
	"PKR": 0.00353,
}

// periodsPerYear converts a pay period to a yearly multiplier: a year of 52
// weeks, 260 working days and 2080 working hours.
var periodsPerYear = map[string]float64{
	"year": 1, "yearly": 1, "annual": 1, "annually": 1, "yr": 1, "1 year": 1, "per year": 1,
	"month": 12, "monthly": 12, "mo": 12, "1 month": 12, "per month": 12,
	"week": 52, "weekly": 52, "wk": 52, "1 week": 52, "per week": 52,
	"day": 260, "daily": 260, "1 day": 260, "per day": 260,
	"hour": 2080, "hourly": 2080, "hr": 2080, "1 hour": 2080, "per hour": 2080,
}

// Plausible pay. A published figure is read in its own period and currency
// and converted to yearly USD (52 weeks, 260 days, 2,080 hours); it is
// plausible when both bounds lie between the currency's floor and
// maxYearlyUSD. The floor is highWageFloorUSD for the currencies of
// high-wage economies (highWageCurrencies: there, less than 5,000 USD a
// year is no full- or part-time pay but a unit error, such as a Recruitee
// office manager at "75.00"–"95.00" USD "per year", an hourly or thousands
// figure) and minYearlyUSD for every other currency. Per period, the floor
// of a high-wage currency is 5,000 USD a year, 417 a month, 96 a week, 19.23
// a day and 2.40 an hour. Anything outside is never served as pay.
const (
	minYearlyUSD     = 1_000
	highWageFloorUSD = 5_000
	maxYearlyUSD     = 5_000_000
)

// highWageCurrencies are the currencies whose yearly pay floor is highWageFloorUSD.
var highWageCurrencies = map[string]bool{
	"USD": true, "EUR": true, "GBP": true, "CHF": true, "CAD": true, "AUD": true, "NZD": true,
	"JPY": true, "SGD": true, "HKD": true, "KRW": true, "TWD": true, "ILS": true, "AED": true,
	"SAR": true, "QAR": true, "SEK": true, "NOK": true, "DKK": true, "ISK": true,
}

// YearlyFloorUSD is the lowest plausible yearly pay in US dollars for a
// currency (ISO 4217, any case): see highWageCurrencies.
func YearlyFloorUSD(currency string) float64 {
	if highWageCurrencies[strings.ToUpper(strings.TrimSpace(currency))] {
		return highWageFloorUSD
	}
	return minYearlyUSD
}

// YearlyUSD converts a published pay range to whole yearly US dollars.
// currency is an ISO 4217 code and period one of year, month, week, day or
// hour (any case; "annual", "monthly", "hourly", ... are accepted). When one
// bound is 0 the other is used for both; an inverted range is reordered. ok
// is false when both bounds are missing, a bound is negative or not finite,
// the currency or period is unknown, or the result is implausible (below the
// currency's YearlyFloorUSD or above 5,000,000 USD a year).
func YearlyUSD(min, max float64, currency, period string) (lo, hi float64, ok bool) {
	rate, ok := usdPerUnit[strings.ToUpper(strings.TrimSpace(currency))]
	if !ok {
		return 0, 0, false
	}
	mult, ok := periodsPerYear[strings.ToLower(strings.TrimSpace(period))]
	if !ok {
		return 0, 0, false
	}
	if !validAmount(min) || !validAmount(max) {
		return 0, 0, false
	}
	switch {
	case min == 0 && max == 0:
		return 0, 0, false
	case min == 0:
		min = max
	case max == 0:
		max = min
	}
	if min > max {
		min, max = max, min
	}
	lo = math.Round(min * mult * rate)
	hi = math.Round(max * mult * rate)
	if lo < YearlyFloorUSD(currency) || hi > maxYearlyUSD {
		return 0, 0, false
	}
	return lo, hi, true
}

func validAmount(v float64) bool {
	return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v)
}
