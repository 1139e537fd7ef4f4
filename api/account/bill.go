package account

import (
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// money is an amount in USD cents with its display string.
type money struct {
	Cents   int64        `json:"cents"`
	Display string       `json:"display"`
	Lines   []plans.Line `json:"lines"`
}

// billJSON is the account's bill of this billing month in money (the dashboard's and usage's
// bill): what it used so far, what that costs, and the same extrapolated to the month's end.
type billJSON struct {
	Currency                string           `json:"currency"`
	Plan                    string           `json:"plan"`
	PeriodStart             string           `json:"period_start"`
	PeriodEnd               string           `json:"period_end"`
	Units                   map[string]int64 `json:"units"`
	OverageDeliveredChanges int64            `json:"overage_delivered_changes"`
	MonthToDate             *money           `json:"month_to_date"`
	Projected               *money           `json:"projected"`
}

func newMoney(b plans.Bill) *money {
	return &money{Cents: b.Cents, Display: plans.Dollars(b.Cents), Lines: b.Lines}
}

// monthBill reads the caller's account's usage of this billing month (its metered calls and units
// by meter class, and its overage deliveries accepted) and prices it with its plan (plans.Tier.Bill):
// month to date, and projected to the month's end at the month's pace so far. Enterprise's money is
// null (by contract).
func (h *handlers) monthBill(c *api.Call) (billJSON, error) {
	now := c.Now()
	start, end := plans.MonthStart(now), plans.NextMonth(now)
	u, err := oltp.ReadBillUsage(c.Context(), h.d.Pool, c.Caller.CustomerID, c.Caller.AccountID, start, end)
	if err != nil {
		return billJSON{}, err
	}
	plan := c.Caller.Plan()
	usage := plans.MonthUsage{Units: map[string]int64{plans.MeterCall: u.Calls}, OverageDelivered: u.OverageDelivered}
	for class, n := range u.Units {
		usage.Units[class] = n
	}
	out := billJSON{Currency: "usd", Plan: plan.Plan, PeriodStart: *api.RFC3339(start), PeriodEnd: *api.RFC3339(end),
		Units: usage.Units, OverageDeliveredChanges: u.OverageDelivered}
	if b, ok := plan.Bill(usage); ok {
		out.MonthToDate = newMoney(b)
		p, _ := plan.Bill(plans.Project(usage, now.Sub(start), end.Sub(start)))
		out.Projected = newMoney(p)
	}
	return out, nil
}

// billSchema is billJSON as the document states it.
func billSchema() map[string]any {
	line := api.Object(map[string]any{
		"item":           api.Enum(append([]string{"plan"}, plans.MeterClasses...)...),
		"units":          map[string]any{"type": "integer", "description": "metered this month (calls for call; 1 for plan)"},
		"included":       map[string]any{"type": "integer", "description": "of them, covered by the monthly amount (credits, the bundle's fires, calls)"},
		"charged":        map[string]any{"type": "integer", "description": "of them, charged"},
		"cents_per_unit": map[string]any{"type": "integer", "description": "the plan's unit price of the class (GET /v1/pricing unit_prices); the monthly amount for plan"},
		"cents":          map[string]any{"type": "integer", "description": "charged × cents_per_unit"},
	})
	m := api.Object(map[string]any{
		"cents":   map[string]any{"type": "integer", "description": "USD cents: the sum of the lines' cents"},
		"display": map[string]any{"type": "string", "description": "the amount written in US dollars, e.g. $212.40"},
		"lines":   map[string]any{"type": "array", "items": line},
	})
	units := map[string]any{}
	for _, c := range plans.MeterClasses {
		units[c] = api.Type("integer")
	}
	s := api.Object(map[string]any{
		"currency":     api.Enum("usd"),
		"plan":         planSchema(),
		"period_start": map[string]any{"type": "string", "format": "date-time", "description": "the billing month's start (00:00 UTC on the 1st)"},
		"period_end":   map[string]any{"type": "string", "format": "date-time", "description": "its end, the next month's start: the month's allowances and credits reset then"},
		"units":        api.Object(units),
		"overage_delivered_changes": map[string]any{"type": "integer",
			"description": "delivered changes admitted past the fires allowance under overflow overage and accepted this month: the charged ones of delivered_change"},
		"month_to_date": map[string]any{"oneOf": []any{m, api.Type("null")}, "description": "what the month's usage so far costs; null on Enterprise (by contract)"},
		"projected": map[string]any{"oneOf": []any{m, api.Type("null")},
			"description": "the bill at the month's end if usage goes on at the month's pace so far (the first hour counts as an hour); null on Enterprise"},
	})
	s["description"] = "this billing month's bill in money (USD cents), computed from units (calls for call) with the plan's published prices " +
		"(GET /v1/pricing: monthly_cents, unit_prices, bundle credits and fires)"
	return s
}
