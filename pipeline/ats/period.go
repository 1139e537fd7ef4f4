package ats

import (
	"strings"
)

// normPeriod maps a vendor's pay-interval wording onto "year", "month", "week", "day" or
// "hour", with the factor that turns the published amount into an amount per that period.
// It accepts, case-insensitively: YEAR/yearly/annual/annum/per-year-salary/P1Y; Ashby's
// "<n> YEAR|MONTH|WEEK|DAY|HOUR" (amount per n units, so "2 WEEK" gives week with factor
// 0.5); Lever's per-month-salary, semi-month-salary (twice a month: month, ×2),
// bi-week-salary (week, ×0.5), bi-month-salary (every two months: month, ×0.5),
// per-week-salary, per-day-wage, per-hour-wage; hourly/daily/weekly/monthly; and the
// schema.org unitText values HOUR/DAY/WEEK/MONTH/YEAR. "one-time", "NONE" and anything
// unrecognised give ok=false.
func normPeriod(s string) (period string, factor float64, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", 0, false
	}
	factor = 1
	// Ashby-style count prefix: "1 YEAR", "2 WEEK".
	if c := s[0]; c >= '0' && c <= '9' {
		i := 0
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1000 {
			n = n*10 + int(s[i]-'0')
			i++
		}
		if n == 0 {
			return "", 0, false
		}
		factor = 1 / float64(n)
		s = strings.TrimSpace(s[i:])
	}
	// ISO 8601 durations (seen in schema.org feeds): P1Y, P1M, P1W, P1D, PT1H.
	switch s {
	case "p1y":
		return "year", factor, true
	case "p1m":
		return "month", factor, true
	case "p1w":
		return "week", factor, true
	case "p1d":
		return "day", factor, true
	case "pt1h":
		return "hour", factor, true
	}
	switch {
	case strings.Contains(s, "one-time"), strings.Contains(s, "one time"), s == "none", s == "once":
		return "", 0, false
	case strings.Contains(s, "semi-month"), strings.Contains(s, "semimonth"), strings.Contains(s, "semi_month"):
		return "month", factor * 2, true
	case strings.Contains(s, "bi-week"), strings.Contains(s, "biweek"), strings.Contains(s, "bi_week"), strings.Contains(s, "fortnight"):
		return "week", factor * 0.5, true
	case strings.Contains(s, "bi-month"), strings.Contains(s, "bimonth"), strings.Contains(s, "bi_month"):
		return "month", factor * 0.5, true
	case strings.Contains(s, "year"), strings.Contains(s, "annu"), strings.Contains(s, "annum"), s == "yr", s == "y", s == "pa", s == "p.a.":
		return "year", factor, true
	case strings.Contains(s, "month"), s == "mo", s == "mon", s == "m":
		return "month", factor, true
	case strings.Contains(s, "week"), s == "wk", s == "w":
		return "week", factor, true
	case strings.Contains(s, "day"), strings.Contains(s, "daily"), s == "d":
		return "day", factor, true
	case strings.Contains(s, "hour"), s == "hr", s == "h":
		return "hour", factor, true
	}
	return "", 0, false
}

// makeSalary builds a Salary from published bounds. It returns nil when there is no
// positive amount (all blank, null or zero) or the period wording is not recognised, so a
// consumer never has to guess the scale. Currency may be "" when the feed omits it.
func makeSalary(min, max flexNum, currency, period string) *Salary {
	lo, hi := 0.0, 0.0
	if min.OK && min.V > 0 {
		lo = min.V
	}
	if max.OK && max.V > 0 {
		hi = max.V
	}
	if lo == 0 && hi == 0 {
		return nil
	}
	p, f, ok := normPeriod(period)
	if !ok {
		return nil
	}
	return &Salary{
		Min:      lo * f,
		Max:      hi * f,
		Currency: strings.ToUpper(strings.TrimSpace(currency)),
		Period:   p,
	}
}
