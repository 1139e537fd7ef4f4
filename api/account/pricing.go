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

func pricingSchema() map[string]any {
	num := api.Nullable(api.Type("number"))
	tier := api.Object(map[string]any{"name": api.Type("string"), "tier_id": api.Nullable(api.Type("string")), "monthly_amount": num, "currency": api.Type("string"),
		"sellable": api.Type("boolean"), "daily_quota": api.Nullable(api.Type("integer")), "gated_endpoints": api.ArrayOf("string"),
		"default_hard_cap_units": api.Nullable(api.Type("integer")), "default_soft_cap_units": api.Nullable(api.Type("integer")),
		"bundle":               map[string]any{"oneOf": []any{api.Object(map[string]any{"watches": api.Type("integer"), "fires": api.Type("integer"), "credits": api.Type("integer")}), api.Type("null")}},
		"live_watch_allowance": map[string]any{"type": "integer", "description": "watches an account on the tier may have live at once (POST /v1/watches answers 402 past it); the bundle's watches, or the allowance of a tier without a bundle"}})
	return api.Object(map[string]any{
		"tiers":        map[string]any{"type": "array", "items": tier},
		"source_price": api.Object(map[string]any{"amount_per_weighted_unit": api.Type("number"), "currency": api.Type("string"), "weighted_unit": api.Type("string"), "weight": api.Type("integer")}),
		"rate_limits": api.Object(map[string]any{"window_seconds": api.Type("integer"), "per_key_by_tier": map[string]any{"type": "object", "additionalProperties": api.Type("integer")},
			"keyless_per_ip": api.Type("integer"),
			"account_keys_by_tier": map[string]any{"type": "object", "additionalProperties": api.Type("integer"),
				"description": "account ceiling: all keys of one account together draw at most this many keys' worth of the per-key calls per window and of the daily quota, so minting keys does not multiply what an account draws"}}),
		"compliance": api.Object(map[string]any{"headline": api.Type("string"), "summary": api.Type("string"), "statement_url": api.Type("string")}),
	})
}

// pricing answers the price list of spec 8 exactly.
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
		tiers = append(tiers, pt)
	}
	return 0, c.JSON(200, map[string]any{
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
