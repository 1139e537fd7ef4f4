package plans

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Meter classes of the usage ledger, as package oltp names them (a leaf cannot import oltp): a
// call serves no unit (company reads, role demand, enrich); the other four carry units.
const (
	MeterCall            = "call"
	MeterSourceRow       = "source_row"
	MeterChange          = "change"
	MeterWatch           = "watch"
	MeterDeliveredChange = "delivered_change"
)

// MeterClasses are every meter class, in the order a bill lists them.
var MeterClasses = []string{MeterCall, MeterSourceRow, MeterChange, MeterWatch, MeterDeliveredChange}

// CreditClasses are the meter classes whose units spend a plan's credits: a bundle's credits are
// the units of source rows, change units and watch units its monthly amount includes each
// billing month. Delivered changes have an allowance of their own (the bundle's fires), calls
// the daily quota.
var CreditClasses = []string{MeterSourceRow, MeterChange, MeterWatch}

// UnitCents is the price of one unit past what the monthly amount includes, in USD cents, of
// every unit meter class on the plans that charge units (Starter and Growth): the spec's source
// price, 0.1 USD per weighted unit of weight 1, and every unit class weighs 1 (as the spend caps
// count them). A call costs nothing: the daily quota bounds calls.
const UnitCents = 10

// Overflow modes: what happens to a watch's change once the account's delivered changes of the
// billing month reached the plan's allowance (the wall).
const (
	// OverflowStop: the change is not delivered (wall_blocked) and never will be. Every plan's
	// default, and the only mode of Free and Trial.
	OverflowStop = "stop"
	// OverflowOverage: the change is delivered and, when the endpoint accepts it, charged at the
	// plan's delivered_change price. The spend cap still stops it (cap_blocked).
	OverflowOverage = "overage"
	// OverflowQueue: the change is held (wall_blocked, queued, its body kept) and can be replayed
	// once there is room within the plan: after the period's reset or an upgrade.
	OverflowQueue = "queue"
)

// OverflowModes are every overflow mode.
var OverflowModes = []string{OverflowStop, OverflowOverage, OverflowQueue}

// Periods of the allowances: when their count starts again.
const (
	PeriodMonth      = "calendar_month_utc" // the billing month: from 00:00 UTC on the 1st to the next 1st
	PeriodDay        = "utc_day"            // from 00:00 UTC to the next 00:00 UTC
	PeriodMinute     = "fixed_60s_window"   // fixed 60-second windows
	PeriodConcurrent = "concurrent"         // counted while live: freed when one ends, never reset
)

// The allowances a plan states (Allowance.Name).
const (
	AllowanceCallsPerMinute   = "calls_per_minute"
	AllowanceCallsPerDay      = "calls_per_day"
	AllowanceLiveWatches      = "live_watches"
	AllowanceDeliveredChanges = "delivered_changes"
	AllowanceCredits          = "credits"
	AllowanceSoftCap          = "soft_cap_units"
	AllowanceHardCap          = "hard_cap_units"
)

// Allowance is one limit of a plan with its period and what happens past it.
type Allowance struct {
	Name   string `json:"name"`
	Limit  *int64 `json:"limit"` // nil: none on this plan (unlimited, or by contract)
	Unit   string `json:"unit"`
	Period string `json:"period"`
	Resets string `json:"resets"` // when the count starts again, in words
	Past   string `json:"past"`   // what happens once it is reached
}

// Paid says whether the plan charges units past what its monthly amount includes (Starter and
// Growth). Free and Trial are never charged per unit (their spend caps bound them); Enterprise is
// charged by contract.
func (t Tier) Paid() bool { return t.Sellable }

// UnitPrices are the USD cents one unit of each meter class costs past what the monthly amount
// includes (MeterClasses; a call is a class of its own, priced per call). Free and Trial: every
// price 0. Enterprise: nil (by contract).
func (t Tier) UnitPrices() map[string]int64 {
	if t.Plan == "enterprise" {
		return nil
	}
	out := map[string]int64{}
	for _, c := range MeterClasses {
		out[c] = 0
		if t.Paid() && c != MeterCall {
			out[c] = UnitCents
		}
	}
	return out
}

// MonthlyCents is the monthly amount in USD cents (nil: by contract).
func (t Tier) MonthlyCents() *int64 {
	if t.MonthlyAmount == nil {
		return nil
	}
	c := int64(*t.MonthlyAmount*100 + 0.5)
	return &c
}

// Overflows are the overflow modes an account on the plan may choose: every mode on a plan that
// charges units (overage needs a price, a queue a plan to make room in), stop elsewhere.
// Enterprise has no wall: its mode changes nothing.
func (t Tier) Overflows() []string {
	if t.Paid() {
		return OverflowModes
	}
	return []string{OverflowStop}
}

// EffectiveOverflow is what happens past the wall for an account on tierID that chose chosen: the
// choice when the plan allows it, else stop (an account downgraded to Free stops at the wall
// whatever it chose on Growth).
func EffectiveOverflow(tierID, chosen string) string {
	t, ok := ByID(tierID)
	if ok && slices.Contains(t.Overflows(), chosen) {
		return chosen
	}
	return OverflowStop
}

// NextMonth is the start of the billing month after the one holding t (UTC).
func NextMonth(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
}

// MonthStart is the start of the billing month holding t (UTC).
func MonthStart(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

func i64(v int) *int64 { x := int64(v); return &x }

// Allowances are the plan's limits, each with its period and what happens past it.
func (t Tier) Allowances() []Allowance {
	month := "00:00 UTC on the 1st of the next month"
	var out []Allowance
	perMinute := Allowance{Name: AllowanceCallsPerMinute, Unit: "call", Period: PeriodMinute, Resets: "at the end of each 60-second window (RateLimit-Reset says when)",
		Past: "429 rate_limited with Retry-After; every metered route and agent tool call shares the window"}
	if t.PerMinute > 0 {
		perMinute.Limit = i64(t.PerMinute)
	}
	out = append(out, perMinute)
	perDay := Allowance{Name: AllowanceCallsPerDay, Unit: "call", Period: PeriodDay, Resets: "00:00 UTC",
		Past: "402 quota_exceeded on billable routes until the reset (quota.reset says when); calls are never charged"}
	if t.DailyQuota != nil {
		perDay.Limit = i64(*t.DailyQuota)
	}
	out = append(out, perDay)
	out = append(out, Allowance{Name: AllowanceLiveWatches, Limit: i64(t.LiveWatchAllowance()), Unit: "watch", Period: PeriodConcurrent,
		Resets: "never: canceling a watch frees its slot at once", Past: "POST /v1/watches answers 402 quota_exceeded; live watches keep delivering"})
	dc := Allowance{Name: AllowanceDeliveredChanges, Unit: "delivered_change", Period: PeriodMonth, Resets: month}
	if a, limited := DeliveredChangeAllowance(t.ID); limited {
		dc.Limit = &a
		dc.Past = "by the account's overflow (PUT /v1/account/overflow): stop (default) leaves each further change undelivered (delivery status wall_blocked), " +
			"never sent or queued"
		if t.Paid() {
			dc.Past += fmt.Sprintf("; overage delivers it and charges %d cents per delivered change; queue holds it (wall_blocked, queued) "+
				"and a replay delivers it once there is room (after the reset or an upgrade)", UnitCents)
		}
		dc.Past += ". Warnings at 80% and 100% come as account events (GET /v1/events account_events, and a signed allowance_warning delivery to every endpoint)"
	} else {
		dc.Past = "no wall: only the hard spend cap stops deliveries"
	}
	out = append(out, dc)
	cr := Allowance{Name: AllowanceCredits, Limit: i64(t.Credits), Unit: "unit of source_row, change or watch", Period: PeriodMonth, Resets: month + " (unspent credits expire)"}
	switch {
	case t.Paid():
		cr.Past = fmt.Sprintf("each further unit is charged at its class's unit price (%d cents)", UnitCents)
	case t.Plan == "enterprise":
		cr.Limit, cr.Past = nil, "by contract"
	default:
		cr.Past = "units are not charged on this plan: only the spend caps bound them"
	}
	out = append(out, cr)
	soft := Allowance{Name: AllowanceSoftCap, Unit: "unit (every class, weight 1)", Period: PeriodMonth, Resets: month,
		Past: "nothing is refused: the dashboard's spend_cap.status says soft_cap_reached and the expansion nudge is raised (from 80%)"}
	if t.SoftCapUnits != nil {
		soft.Limit = i64(*t.SoftCapUnits)
	}
	hard := Allowance{Name: AllowanceHardCap, Unit: "unit (every class, weight 1)", Period: PeriodMonth, Resets: month + ", or when the cap is raised",
		Past: "billable routes answer 402 spend_cap_exceeded and watch deliveries are cap_blocked (never sent)"}
	if t.HardCapUnits != nil {
		hard.Limit = i64(*t.HardCapUnits)
	}
	return append(out, soft, hard)
}

// MonthUsage is what a bill is computed from: the units (calls for MeterCall) of each meter class
// metered to the account in the billing month, and how many of its delivered changes were
// admitted past the allowance under overflow overage (each charged).
type MonthUsage struct {
	Units            map[string]int64 `json:"units"`
	OverageDelivered int64            `json:"overage_delivered_changes"`
}

// Line is one line of a bill: the plan's monthly amount (Item "plan") or a meter class.
type Line struct {
	Item         string `json:"item"`
	Units        int64  `json:"units"`          // metered this month (calls for call; 1 for plan)
	Included     int64  `json:"included"`       // of them, covered by the monthly amount (credits, the fires allowance, calls)
	Charged      int64  `json:"charged"`        // of them, charged
	CentsPerUnit int64  `json:"cents_per_unit"` // the plan's price of one
	Cents        int64  `json:"cents"`          // Charged × CentsPerUnit (the monthly amount for plan)
}

// Bill is a month's charges in USD cents.
type Bill struct {
	Lines []Line `json:"lines"`
	Cents int64  `json:"cents"`
}

// Bill computes the charges of a billing month with usage u: the monthly amount, then each meter
// class's units past what the plan includes at the class's unit price. Credits (units of source
// rows, change units and watch units) are spent on the dearest units first (today every such
// class costs the same); delivered changes are included up to the fires allowance and only those
// admitted under overflow overage are charged (u.OverageDelivered); calls cost their price (0).
// ok is false for a plan charged by contract (Enterprise).
func (t Tier) Bill(u MonthUsage) (b Bill, ok bool) {
	prices, fee := t.UnitPrices(), t.MonthlyCents()
	if prices == nil || fee == nil {
		return Bill{}, false
	}
	b.Lines = append(b.Lines, Line{Item: "plan", Units: 1, Charged: 1, CentsPerUnit: *fee, Cents: *fee})
	credits := int64(t.Credits)
	byPrice := slices.Clone(CreditClasses)
	slices.SortStableFunc(byPrice, func(x, y string) int { return cmp.Compare(prices[y], prices[x]) })
	included := map[string]int64{}
	for _, c := range byPrice {
		n := min(credits, u.Units[c])
		included[c], credits = n, credits-n
	}
	for _, c := range MeterClasses {
		l := Line{Item: c, Units: u.Units[c], CentsPerUnit: prices[c]}
		switch c {
		case MeterCall:
			l.Charged = l.Units
			if l.CentsPerUnit == 0 {
				l.Included, l.Charged = l.Units, 0
			}
		case MeterDeliveredChange:
			l.Charged = min(u.OverageDelivered, l.Units)
			l.Included = l.Units - l.Charged
		default:
			l.Included = included[c]
			l.Charged = l.Units - l.Included
		}
		if !t.Paid() { // Free and Trial: every unit within the caps is included
			l.Included, l.Charged = l.Units, 0
		}
		l.Cents = l.Charged * l.CentsPerUnit
		b.Lines = append(b.Lines, l)
	}
	for _, l := range b.Lines {
		b.Cents += l.Cents
	}
	return b, true
}

// Project extrapolates u, the usage of the part of a billing month that elapsed (elapsed of
// month), to the whole month at the same pace; the first hour counts as an hour, so a bill read
// seconds after the month turned does not multiply a few units by thousands.
func Project(u MonthUsage, elapsed, month time.Duration) MonthUsage {
	elapsed = max(elapsed, time.Hour)
	if elapsed >= month {
		return u
	}
	scale := func(n int64) int64 { return int64(float64(n) * float64(month) / float64(elapsed)) }
	out := MonthUsage{Units: map[string]int64{}, OverageDelivered: scale(u.OverageDelivered)}
	for c, n := range u.Units {
		out.Units[c] = scale(n)
	}
	return out
}

// Dollars writes cents as US dollars: "$1,234.56", "-$0.10".
func Dollars(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	whole := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s$%s.%02d", sign, b.String(), cents%100)
}
