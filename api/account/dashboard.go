package account

import (
	"maps"
	"slices"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/oltp"
)

// Quota status words of the dashboard: green below 80% of the daily quota, amber from 80%
// (the expansion nudge, api.NudgeAt), red when spent.
const (
	StatusGreen = "green"
	StatusAmber = "amber"
	StatusRed   = "red"
)

type dashKey struct {
	KeyID   int64   `json:"key_id"`
	Display string  `json:"display"`
	Used    int64   `json:"used"`
	Quota   *int64  `json:"quota"`
	Status  string  `json:"status"`
	Reset   *string `json:"reset"`
}

type freeTier struct {
	ChangesAllowance   int64 `json:"changes_allowance"`
	ChangesUsed        int64 `json:"changes_used"`
	ChangesWallReached bool  `json:"changes_wall_reached"`
	WatchesAllowance   int64 `json:"watches_allowance"`
	WatchesUsed        int64 `json:"watches_used"`
}

type dashboardResponse struct {
	AccountID               int64            `json:"account_id"`
	Tier                    string           `json:"tier"`
	TierName                string           `json:"tier_name"`
	Plan                    string           `json:"plan"`
	AccountStatus           string           `json:"account_status"`
	Paused                  bool             `json:"paused"`
	Keys                    []dashKey        `json:"keys"`
	SpendCap                spendCapJSON     `json:"spend_cap"`
	UpgradePrompt           *api.QuotaDetail `json:"upgrade_prompt"`
	ExpansionNudgeTriggered bool             `json:"expansion_nudge_triggered"`
	FreeTier                *freeTier        `json:"free_tier"`
	BlockedDeliveries       map[string]int64 `json:"blocked_deliveries"`
}

type spendCapJSON struct {
	AccountUsed    int64  `json:"account_used"`
	AccountSoftCap *int64 `json:"account_soft_cap"`
	AccountHardCap *int64 `json:"account_hard_cap"`
	Status         string `json:"status"`
	Reset          string `json:"reset"`
}

func dashboardSchema() map[string]any {
	return api.Object(map[string]any{
		"account_id": api.Type("integer"), "tier": api.Type("string"), "tier_name": api.Type("string"), "account_status": api.Enum("active", "paused"), "paused": api.Type("boolean"),
		"plan": planSchema(),
		"keys": map[string]any{"type": "array", "items": api.Object(map[string]any{"key_id": api.Type("integer"), "display": api.Type("string"), "used": api.Type("integer"),
			"quota": api.Nullable(api.Type("integer")), "status": api.Enum(StatusGreen, StatusAmber, StatusRed), "reset": api.Nullable(api.DateTime())})},
		"spend_cap": api.Object(map[string]any{"account_used": api.Type("integer"), "account_soft_cap": api.Nullable(api.Type("integer")), "account_hard_cap": api.Nullable(api.Type("integer")),
			"status": api.Enum("ok", "soft_cap_reached", "hard_cap_reached"), "reset": api.DateTime()}),
		"upgrade_prompt":            map[string]any{"oneOf": []any{api.Ref("QuotaDetail"), api.Type("null")}},
		"expansion_nudge_triggered": api.Type("boolean"),
		"free_tier": map[string]any{"oneOf": []any{api.Object(map[string]any{"changes_allowance": api.Type("integer"), "changes_used": api.Type("integer"),
			"changes_wall_reached": api.Type("boolean"), "watches_allowance": api.Type("integer"), "watches_used": api.Type("integer")}), api.Type("null")}},
		"blocked_deliveries": api.Object(map[string]any{"wall_blocked": api.Type("integer"), "cap_blocked": api.Type("integer")}),
	})
}

func startOfMonth(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// dashboard: per-key quota use today (from the usage ledger), spend-cap status this billing
// month, the upgrade prompt and expansion nudge, the free-tier allowance and blocked deliveries.
func (h *handlers) dashboard(c *api.Call) (int, error) {
	if err := refuseDemo(c); err != nil {
		return 0, err
	}
	if err := c.FlushUsage(); err != nil {
		h.d.Log.Warn("dashboard read before this instance's metering reached Postgres", "err", err)
	}
	now := c.Now()
	e := c.KeyAuth()
	plan := c.Caller.Plan()
	day, month := api.StartOfDay(now), startOfMonth(now)
	calls, err := oltp.CallsSince(c.Context(), h.d.Pool, c.Caller.CustomerID, day)
	if err != nil {
		return 0, api.Internal(err)
	}
	keys, err := oltp.QuotaKeys(c.Context(), h.d.Pool, c.Caller.CustomerID, slices.Collect(maps.Keys(calls)))
	if err != nil {
		return 0, api.Internal(err)
	}
	units, _, err := oltp.MonthUnits(c.Context(), h.d.Pool, c.Caller.AccountID)
	if err != nil {
		return 0, api.Internal(err)
	}
	out := dashboardResponse{AccountID: e.AccountID, Tier: e.Tier, TierName: plan.Name, Plan: plan.Plan, AccountStatus: e.AccountStatus, Paused: e.Paused,
		Keys: []dashKey{}, BlockedDeliveries: map[string]int64{"wall_blocked": 0, "cap_blocked": 0}}
	dayReset := api.RFC3339(day.Add(24 * time.Hour))
	var quota *int64
	if plan.DailyQuota != nil {
		q := int64(*plan.DailyQuota)
		quota = &q
	}
	// A key's daily quota is its lineage's (a rotation replacement inherits what the rotated
	// key used today), so used sums the calls of every key of the lineage, revoked ones too.
	lineage := map[int64]int64{}
	for _, k := range keys {
		lineage[k.LimitID] += calls[k.KeyID]
	}
	var worst *dashKey
	for _, k := range keys {
		if k.RevokedAt != nil {
			continue
		}
		dk := dashKey{KeyID: k.KeyID, Display: k.Display, Used: lineage[k.LimitID], Quota: quota, Status: StatusGreen, Reset: dayReset}
		if quota != nil {
			switch {
			case dk.Used >= *quota:
				dk.Status = StatusRed
			case float64(dk.Used) >= api.NudgeAt*float64(*quota):
				dk.Status = StatusAmber
			}
		}
		if api.Nudged(dk.Used, quota) {
			out.ExpansionNudgeTriggered = true
		}
		out.Keys = append(out.Keys, dk)
		if dk.Status == StatusRed && worst == nil {
			worst = &out.Keys[len(out.Keys)-1]
		}
	}
	out.SpendCap = spendCapJSON{AccountUsed: units, AccountSoftCap: e.SoftCapUnits, AccountHardCap: e.HardCapUnits, Status: "ok", Reset: *api.RFC3339(admission.NextMonth(now))}
	switch {
	case e.HardCapUnits != nil && units >= *e.HardCapUnits:
		out.SpendCap.Status = "hard_cap_reached"
		out.UpgradePrompt = &api.QuotaDetail{Reason: api.ReasonSpendCapExceeded, Quota: api.QuotaState{Limit: *e.HardCapUnits, Used: units, Reset: api.RFC3339(admission.NextMonth(now))},
			Endpoint: c.Route.Path, Message: "the account reached its hard spend cap: billable routes answer 402 until the month turns or the cap is raised"}
	case e.SoftCapUnits != nil && units >= *e.SoftCapUnits:
		out.SpendCap.Status = "soft_cap_reached"
	}
	if api.Nudged(units, e.SoftCapUnits) {
		out.ExpansionNudgeTriggered = true
	}
	if out.UpgradePrompt == nil && worst != nil {
		out.UpgradePrompt = &api.QuotaDetail{Reason: api.ReasonQuotaExceeded, Quota: api.QuotaState{Limit: *quota, Used: worst.Used, Reset: dayReset},
			Endpoint: c.Route.Path, Message: "a key spent its daily call quota: upgrade for a larger quota"}
	}
	if out.UpgradePrompt != nil {
		l := c.Links()
		out.UpgradePrompt.UpgradeURL, out.UpgradePrompt.PurchaseURL = l.Upgrade, l.Purchase
	}
	wall, capped, err := h.d.Push.BlockedDeliveries(c.Context(), c.Caller.CustomerID, month)
	if err != nil {
		return 0, api.Internal(err)
	}
	out.BlockedDeliveries["wall_blocked"], out.BlockedDeliveries["cap_blocked"] = wall, capped
	if e.Tier == "tier_0" {
		delivered, err := oltp.UnitsSince(c.Context(), h.d.Pool, c.Caller.CustomerID, oltp.MeterDeliveredChange, month)
		if err != nil {
			return 0, api.Internal(err)
		}
		watches, err := h.d.Push.LiveWatches(c.Context(), c.Caller.CustomerID)
		if err != nil {
			return 0, api.Internal(err)
		}
		// The wall counts deliveries admitted this month (pending and retrying ones too), not only
		// those accepted and billed: reached as soon as the next change would be wall_blocked.
		walled, err := h.d.Push.WallReached(c.Context(), c.Caller.AccountID, now)
		if err != nil {
			return 0, api.Internal(err)
		}
		out.FreeTier = &freeTier{ChangesAllowance: int64(plan.Fires), ChangesUsed: delivered, ChangesWallReached: walled || delivered >= int64(plan.Fires),
			WatchesAllowance: int64(plan.LiveWatchAllowance()), WatchesUsed: watches}
	}
	return 0, c.JSON(200, out)
}

// planSchema is the account's plan (the Customer and account resource's plan): the product line
// its tier belongs to, as the pricing answer names it.
func planSchema() map[string]any {
	s := api.Enum("free", "trial", "starter", "growth", "enterprise")
	s["description"] = "the plan of the account's tier (the pricing answer's plan names; a plan gate's plan_gate.plan)"
	return s
}
