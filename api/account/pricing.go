package account

import (
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/plans"
)

type pricingTier struct {
	Name                string   `json:"name"`
	TierID              *string  `json:"tier_id"`
	MonthlyAmount       *float64 `json:"monthly_amount"`
	Currency            string   `json:"currency"`
	Sellable            bool     `json:"sellable"`
	DailyQuota          *int     `json:"daily_quota"`
	GatedEndpoints      []string `json:"gated_endpoints"`
	DefaultHardCapUnits *int     `json:"default_hard_cap_units"`
	DefaultSoftCapUnits *int     `json:"default_soft_cap_units"`
	Bundle              *bundle  `json:"bundle"`
	LiveWatchAllowance  int      `json:"live_watch_allowance"`
	// MonthlyCents is monthly_amount in USD cents (null: by contract).
	MonthlyCents *int64 `json:"monthly_cents"`
	// UnitPrices are the USD cents of one unit of each meter class past what the monthly amount
	// includes (null: by contract).
	UnitPrices map[string]int64 `json:"unit_prices"`
	// Allowances are the tier's limits with their periods and what happens past each.
	Allowances []plans.Allowance `json:"allowances"`
	// Overflows are the overflow modes an account on the tier may choose (PUT
	// /v1/account/overflow); stop is the default.
	Overflows []string `json:"overflows"`
}

type bundle struct {
	Watches int `json:"watches"`
	Fires   int `json:"fires"`
	Credits int `json:"credits"`
}

type compliance struct {
	Headline     string `json:"headline"`
	Summary      string `json:"summary"`
	StatementURL string `json:"statement_url"`
}

const (
	complianceHeadline = "Hiring signal from public job postings only"
	complianceSummary  = "Every served value comes from employers' applicant-tracking systems, public job boards and aggregators. No professional-network data and no contact personal data is collected or served."
)

// meterClassDoc says what one unit of each meter class is.
var meterClassDoc = map[string]string{
	plans.MeterCall:            "one metered call of a per-call route (company reads, intent, role demand, jobs/role, connector/enrich); calls are bounded by the daily quota, never charged",
	plans.MeterSourceRow:       "one company row or req row served by reqs/search, reqs/qualified, jobs/search or a connector batch",
	plans.MeterChange:          "one event returned by GET /v1/events (an empty page costs none)",
	plans.MeterWatch:           "one watch created by POST /v1/watches (a quickstart's watch costs none)",
	plans.MeterDeliveredChange: "one watch delivery the receiving endpoint accepted (2xx), once; included up to the bundle's fires, charged only when admitted past them under overflow overage",
}

// AllowanceSchema is a plans.Allowance as the document states it (pricing, the dashboard).
func AllowanceSchema() map[string]any {
	return api.Object(map[string]any{
		"name": api.Enum(plans.AllowanceCallsPerMinute, plans.AllowanceCallsPerDay, plans.AllowanceLiveWatches, plans.AllowanceDeliveredChanges,
			plans.AllowanceCredits, plans.AllowanceSoftCap, plans.AllowanceHardCap),
		"limit": map[string]any{"type": []any{"integer", "null"}, "description": "null: none on this tier (unlimited, or by contract)"},
		"unit":  api.Type("string"),
		"period": map[string]any{"type": "string", "enum": []string{plans.PeriodMinute, plans.PeriodDay, plans.PeriodMonth, plans.PeriodConcurrent},
			"description": "fixed_60s_window; utc_day (00:00 to 00:00 UTC); calendar_month_utc (00:00 UTC on the 1st to the next 1st: the billing month); concurrent (counted while live, never reset)"},
		"resets": map[string]any{"type": "string", "description": "when the count starts again"},
		"past":   map[string]any{"type": "string", "description": "what happens once the limit is reached"},
	})
}

func unitPricesSchema() map[string]any {
	props := map[string]any{}
	for _, c := range plans.MeterClasses {
		props[c] = map[string]any{"type": "integer", "minimum": 0, "description": meterClassDoc[c]}
	}
	s := api.Object(props)
	s["description"] = "USD cents per unit of each meter class past what the monthly amount includes: credits cover source_row, change and watch units, " +
		"the bundle's fires delivered changes; a call is never charged. Free and Trial charge no unit (their spend caps bound them)"
	return s
}

func pricingSchema() map[string]any {
	num := api.Nullable(api.Type("number"))
	bundle := api.Object(map[string]any{
		"watches": map[string]any{"type": "integer", "description": "live watches at once (period concurrent: canceling frees a slot); past it POST /v1/watches answers 402"},
		"fires": map[string]any{"type": "integer", "description": "delivered changes per billing month (calendar_month_utc: counted from 00:00 UTC on the 1st, reset on the next 1st): " +
			"watch deliveries admitted in the month. Past it the account's overflow decides: stop (default: wall_blocked, never sent or kept), " +
			"overage (paid plans: delivered and charged unit_prices.delivered_change each) or queue (paid plans: held, replayable once there is room). " +
			"Warnings at 80% and 100% come as account events"},
		"credits": map[string]any{"type": "integer", "description": "units of source_row, change and watch the monthly amount includes per billing month (calendar_month_utc; " +
			"unspent credits expire when it turns); past them each unit is charged at its unit price. Free's 0 credits charge nothing: Free is never charged"},
	})
	bundle["description"] = "what the monthly amount includes; null for a tier without a bundle (its allowances list its limits)"
	tier := api.Object(map[string]any{"name": api.Type("string"), "tier_id": api.Nullable(api.Type("string")), "monthly_amount": num, "currency": api.Type("string"),
		"sellable": api.Type("boolean"), "daily_quota": map[string]any{"type": []any{"integer", "null"}, "description": "calls per UTC day per key lineage (00:00 UTC reset); past it 402 quota_exceeded"},
		"gated_endpoints":        api.ArrayOf("string"),
		"default_hard_cap_units": map[string]any{"type": []any{"integer", "null"}, "description": "units per billing month (calendar_month_utc); past it billable routes answer 402 spend_cap_exceeded and deliveries are cap_blocked"},
		"default_soft_cap_units": map[string]any{"type": []any{"integer", "null"}, "description": "units per billing month (calendar_month_utc); past it nothing is refused, the dashboard says soft_cap_reached"},
		"bundle":                 map[string]any{"oneOf": []any{bundle, api.Type("null")}},
		"live_watch_allowance":   map[string]any{"type": "integer", "description": "watches an account on the tier may have live at once (POST /v1/watches answers 402 past it); the bundle's watches, or the allowance of a tier without a bundle"},
		"monthly_cents":          map[string]any{"type": []any{"integer", "null"}, "description": "monthly_amount in USD cents, charged whole for each billing month; null: by contract"},
		"unit_prices":            map[string]any{"oneOf": []any{unitPricesSchema(), api.Type("null")}},
		"allowances":             map[string]any{"type": "array", "items": AllowanceSchema(), "description": "every limit of the tier with its period and what happens past it"},
		"overflows": map[string]any{"type": "array", "items": api.Enum(plans.OverflowModes...),
			"description": "what an account on the tier may choose to happen past the delivered-changes allowance (PUT /v1/account/overflow); stop is every tier's default"},
	})
	billing := api.Object(map[string]any{
		"currency":             api.Enum("usd"),
		"period":               api.Enum(plans.PeriodMonth),
		"meter_classes":        api.Object(map[string]any{plans.MeterCall: api.Type("string"), plans.MeterSourceRow: api.Type("string"), plans.MeterChange: api.Type("string"), plans.MeterWatch: api.Type("string"), plans.MeterDeliveredChange: api.Type("string")}),
		"bill":                 map[string]any{"type": "string", "description": "how a month's bill is computed from usage"},
		"units_charged_header": map[string]any{"type": "string", "description": "the response header of every billable route that says what the call was metered"},
	})
	billing["description"] = "how the bill is computed; the dashboard and GET /v1/usage show it in money (USD cents)"
	return api.Object(map[string]any{
		"billing":      billing,
		"tiers":        map[string]any{"type": "array", "items": tier},
		"source_price": api.Object(map[string]any{"amount_per_weighted_unit": api.Type("number"), "currency": api.Type("string"), "weighted_unit": api.Type("string"), "weight": api.Type("integer")}),
		"rate_limits": api.Object(map[string]any{"window_seconds": api.Type("integer"), "per_key_by_tier": map[string]any{"type": "object", "additionalProperties": api.Type("integer")},
			"keyless_per_ip": api.Type("integer"),
			"account_keys_by_tier": map[string]any{"type": "object", "additionalProperties": api.Type("integer"),
				"description": "account ceiling: all keys of one account together draw at most this many keys' worth of the per-key calls per window and of the daily quota, so minting keys does not multiply what an account draws"}}),
		"compliance": api.Object(map[string]any{"headline": api.Type("string"), "summary": api.Type("string"), "statement_url": api.Type("string")}),
	})
}

// billDoc is how a month's bill is computed (plans.Tier.Bill), as pricing states it.
const billDoc = "Per billing month (calendar_month_utc): monthly_cents, plus for each meter class the units past what the month includes times unit_prices of the class. " +
	"credits cover the month's first source_row, change and watch units together (the dearest first; today they cost the same); the bundle's fires cover delivered changes, " +
	"and only deliveries admitted past them under overflow overage are charged; calls cost nothing. Free and Trial are never charged per unit; Enterprise is by contract. " +
	"GET /v1/usage/dashboard and GET /v1/usage answer the month to date and its projection to the month's end in USD cents with each line"

// pricing answers the price list of spec 8, with the periods, unit prices and bill it leaves open.
func (h *handlers) pricing(c *api.Call) (int, error) {
	var tiers []pricingTier
	perKey, accountKeys := map[string]int{}, map[string]int{}
	for _, t := range plans.All() {
		pt := pricingTier{Name: t.Name, MonthlyAmount: t.MonthlyAmount, Currency: "usd", Sellable: t.Sellable, DailyQuota: t.DailyQuota,
			GatedEndpoints: t.GatedEndpoints, DefaultHardCapUnits: t.HardCapUnits, DefaultSoftCapUnits: t.SoftCapUnits,
			LiveWatchAllowance: t.LiveWatchAllowance()}
		if t.ID != "enterprise" {
			id := t.ID
			pt.TierID = &id
			perKey[t.ID] = t.PerMinute
		}
		if t.AccountKeys > 0 {
			accountKeys[t.ID] = t.AccountKeys
		}
		if t.HasBundle {
			pt.Bundle = &bundle{Watches: t.Watches, Fires: t.Fires, Credits: t.Credits}
		}
		pt.MonthlyCents, pt.UnitPrices, pt.Allowances, pt.Overflows = t.MonthlyCents(), t.UnitPrices(), t.Allowances(), t.Overflows()
		tiers = append(tiers, pt)
	}
	return 0, c.JSON(200, map[string]any{
		"billing": map[string]any{"currency": "usd", "period": plans.PeriodMonth, "meter_classes": meterClassDoc, "bill": billDoc,
			"units_charged_header": api.UnitsChargedHeader},
		"tiers": tiers,
		"source_price": map[string]any{"amount_per_weighted_unit": plans.SourcePricePerUnit, "currency": "usd",
			"weighted_unit": "sourced company row", "weight": 1},
		"rate_limits": map[string]any{"window_seconds": plans.WindowSeconds, "per_key_by_tier": perKey, "keyless_per_ip": plans.KeylessPerMinute,
			"account_keys_by_tier": accountKeys},
		"compliance": compliance{Headline: complianceHeadline, Summary: complianceSummary, StatementURL: c.BaseURL() + "/v1/compliance"},
	})
}

func complianceSchema() map[string]any {
	return api.Object(map[string]any{"headline": api.Type("string"), "summary": api.Type("string"), "statement": api.ArrayOf("string"), "sources": api.ArrayOf("string"), "excluded": api.ArrayOf("string")})
}

// compliance answers the statement pricing's statement_url points to.
func (h *handlers) compliance(c *api.Call) (int, error) {
	return 0, c.JSON(200, map[string]any{
		"headline": complianceHeadline,
		"summary":  complianceSummary,
		"statement": []string{
			"Sources: employers' applicant-tracking-system job boards, public job boards and job aggregators, read over their public HTTP endpoints.",
			"Served data describes job postings and the companies that publish them: titles, locations, functions, dates, boards and derived hiring motion.",
			"No professional-network data is collected or served; no contact personal data (names, emails, phone numbers of people) is collected or served.",
			"Every resource is scoped to the calling customer; another customer's ids answer exactly like ids that do not exist.",
			"API keys are stored only as SHA-256 digests and shown once; webhook secrets are never logged.",
		},
		"sources":  []string{"ats_tenant", "board", "aggregator"},
		"excluded": []string{"professional_network", "contact_personal_data"},
	})
}
