package account

import (
	"maps"
	"slices"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// spendAllowanceReached is spend_cap.status when the plan's delivered changes of the month are
// used and the account stops or queues past them: its watches are not delivering.
const spendAllowanceReached = "allowance_reached"

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
	// DeliveredChanges is the delivered-changes allowance of the month on every plan: what counts
	// against it, its period and reset, and what happens past it.
	DeliveredChanges deliveredChanges `json:"delivered_changes"`
	// PushBlock is why the account's watches are not delivering now (null: they are).
	PushBlock *api.AllowanceBlock `json:"push_block"`
	// Bill is this billing month's bill in money.
	Bill billJSON `json:"bill"`
}

type deliveredChanges struct {
	Allowance   *int64   `json:"allowance"`
	Admitted    int64    `json:"admitted"`
	Delivered   int64    `json:"delivered"`
	Period      string   `json:"period"`
	PeriodStart string   `json:"period_start"`
	ResetsAt    string   `json:"resets_at"`
	Overflow    string   `json:"overflow"`
	Overflows   []string `json:"overflows"`
	Status      string   `json:"status"`
}

// Words of delivered_changes.status.
const (
	AllowanceOK      = "ok"      // below 80% of the allowance (or none)
	AllowanceWarning = "warning" // from 80% (the first warning)
	AllowanceReached = "reached" // at the allowance: further changes stop, queue or cost overage
)

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
			"status": map[string]any{"type": "string", "enum": []string{"ok", "soft_cap_reached", spendAllowanceReached, "hard_cap_reached"},
				"description": "the month's spend and walls, worst first: hard_cap_reached (billable routes answer 402, deliveries cap_blocked); " +
					"allowance_reached (the plan's delivered changes of the month are used and the overflow is stop or queue: watches are not delivering, push_block says until when); " +
					"soft_cap_reached; ok"},
			"reset": map[string]any{"type": "string", "format": "date-time", "description": "the billing month's end (00:00 UTC on the 1st): the caps and the month's allowances reset then"}}),
		"upgrade_prompt": map[string]any{"oneOf": []any{api.Ref("QuotaDetail"), api.Type("null")},
			"description": "the 402-style prompt when something is exhausted, worst first: the hard spend cap, the delivered-changes allowance (its message says what happens to changes and how to upgrade or change the overflow), a spent daily quota; null otherwise"},
		"delivered_changes": api.Object(map[string]any{
			"allowance": map[string]any{"type": []any{"integer", "null"}, "description": "the plan's delivered changes per billing month (bundle fires); null: no wall (Enterprise)"},
			"admitted":  map[string]any{"type": "integer", "description": "watch deliveries admitted this month (pending, retrying, delivered, or billed once): what counts against the allowance"},
			"delivered": map[string]any{"type": "integer", "description": "delivered_change units billed this month (accepted)"},
			"period":    api.Enum(plans.PeriodMonth), "period_start": api.DateTime(),
			"resets_at": map[string]any{"type": "string", "format": "date-time", "description": "when the count starts again"},
			"overflow":  map[string]any{"type": "string", "enum": plans.OverflowModes, "description": "what happens past the allowance for this account (PUT /v1/account/overflow)"},
			"overflows": map[string]any{"type": "array", "items": api.Enum(plans.OverflowModes...), "description": "the overflows the plan allows"},
			"status":    map[string]any{"type": "string", "enum": []string{AllowanceOK, AllowanceWarning, AllowanceReached}, "description": "ok below 80%; warning from 80%; reached at the allowance"},
		}),
		"push_block":                map[string]any{"oneOf": []any{api.AllowanceBlockSchema(), api.Type("null")}},
		"bill":                      billSchema(),
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
// month, the upgrade prompt and expansion nudge, the free-tier allowance and blocked deliveries,
// the delivered-changes allowance with why watches are not delivering (push_block), and the
// month's bill in money.
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
	block, st, err := api.PushBlock(c)
	if err != nil {
		return 0, api.Internal(err)
	}
	out.PushBlock = block
	if block != nil && block.Status == admit.BlockedByAllowance {
		if out.SpendCap.Status != "hard_cap_reached" {
			out.SpendCap.Status = spendAllowanceReached
		}
		if out.UpgradePrompt == nil {
			out.UpgradePrompt = &api.QuotaDetail{Reason: api.ReasonQuotaExceeded, Quota: api.QuotaState{Limit: block.Limit, Used: block.Used, Reset: &block.ResetsAt},
				Endpoint: c.Route.Path, Message: block.Message}
		}
	}
	if api.DeliveriesNudged(st) {
		out.ExpansionNudgeTriggered = true
	}
	delivered, err := oltp.UnitsSince(c.Context(), h.d.Pool, c.Caller.CustomerID, oltp.MeterDeliveredChange, month)
	if err != nil {
		return 0, api.Internal(err)
	}
	out.DeliveredChanges = deliveredChanges{Admitted: st.Admitted, Delivered: delivered, Period: plans.PeriodMonth, PeriodStart: *api.RFC3339(month),
		ResetsAt: *api.RFC3339(plans.NextMonth(now)), Overflow: plans.EffectiveOverflow(e.Tier, st.Overflow), Overflows: plan.Overflows(), Status: AllowanceOK}
	if limit, limited := plans.DeliveredChangeAllowance(e.Tier); limited {
		out.DeliveredChanges.Allowance = &limit
		switch {
		case st.Admitted >= limit:
			out.DeliveredChanges.Status = AllowanceReached
		case api.DeliveriesNudged(st):
			out.DeliveredChanges.Status = AllowanceWarning
		}
	}
	if out.Bill, err = h.monthBill(c); err != nil {
		return 0, api.Internal(err)
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
