package account

import (
	"errors"
	"fmt"
	"slices"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// overflowJSON is the answer of GET and PUT /v1/account/overflow: what happens past the account's
// delivered-changes allowance.
type overflowJSON struct {
	AccountID int64  `json:"account_id"`
	Plan      string `json:"plan"`
	// Overflow is what applies (the plan may not allow what was chosen: an account downgraded to
	// Free stops).
	Overflow  string   `json:"overflow"`
	Chosen    string   `json:"chosen"`
	Overflows []string `json:"overflows"`
	// Allowance is the plan's delivered changes per billing month; null: no wall.
	Allowance *int64 `json:"allowance"`
	Period    string `json:"period"`
	// OverageCents is the price of a delivered change past the allowance under overage; null on
	// plans without overage.
	OverageCents *int64 `json:"overage_cents_per_delivered_change"`
	Message      string `json:"message"`
}

func overflowSchema() map[string]any {
	return api.Object(map[string]any{
		"account_id": api.Type("integer"), "plan": planSchema(),
		"overflow":                           map[string]any{"type": "string", "enum": plans.OverflowModes, "description": "what happens past the allowance now: " + overflowDoc},
		"chosen":                             map[string]any{"type": "string", "enum": plans.OverflowModes, "description": "what the account chose (stop until it chooses); overflow differs when the plan does not allow it"},
		"overflows":                          map[string]any{"type": "array", "items": api.Enum(plans.OverflowModes...), "description": "the overflows the plan allows"},
		"allowance":                          map[string]any{"type": []any{"integer", "null"}, "description": "the plan's delivered changes per billing month (bundle fires); null: no wall (Enterprise)"},
		"period":                             api.Enum(plans.PeriodMonth),
		"overage_cents_per_delivered_change": map[string]any{"type": []any{"integer", "null"}, "description": "USD cents charged per delivered change admitted past the allowance under overage; null where the plan has no overage"},
		"message":                            api.Type("string"),
	})
}

// overflowDoc says what each overflow does.
var overflowDoc = fmt.Sprintf("stop (every plan's default): a change past the allowance is not delivered (delivery status wall_blocked), never sent or kept; "+
	"overage (Starter, Growth): it is delivered and, once the endpoint accepts it, charged %d cents (unit_prices.delivered_change), the hard spend cap still stopping it; "+
	"queue (Starter, Growth): it is held (wall_blocked with queued true, its payload kept but not served) and POST /v1/webhook-deliveries/{delivery_id}/replay "+
	"delivers it once there is room within the plan: after the month turns (00:00 UTC on the 1st) or an upgrade, within %d days after the end of the month it was queued in",
	plans.UnitCents, admit.ReplayWindowDays)

func (h *handlers) overflowAnswer(c *api.Call, tierID, chosen string) overflowJSON {
	t, ok := plans.ByID(tierID)
	if !ok {
		t = c.Caller.Plan()
	}
	out := overflowJSON{AccountID: c.Caller.AccountID, Plan: t.Plan, Overflow: plans.EffectiveOverflow(t.ID, chosen), Chosen: chosen, Overflows: t.Overflows(),
		Period: plans.PeriodMonth}
	if a, limited := plans.DeliveredChangeAllowance(t.ID); limited {
		out.Allowance = &a
	}
	if slices.Contains(t.Overflows(), plans.OverflowOverage) {
		p := t.UnitPrices()[plans.MeterDeliveredChange]
		out.OverageCents = &p
	}
	switch {
	case out.Allowance == nil:
		out.Message = fmt.Sprintf("The %s plan has no delivered-changes allowance: only the hard spend cap stops deliveries.", t.Name)
	case out.Overflow == plans.OverflowOverage:
		out.Message = fmt.Sprintf("Past %d delivered changes a month, changes are delivered and charged %d cents each.", *out.Allowance, *out.OverageCents)
	case out.Overflow == plans.OverflowQueue:
		out.Message = fmt.Sprintf("Past %d delivered changes a month, changes are queued and replayable once there is room (the month's reset or an upgrade).", *out.Allowance)
	default:
		out.Message = fmt.Sprintf("Past %d delivered changes a month, changes are not delivered (wall_blocked) until the month turns.", *out.Allowance)
	}
	return out
}

func (h *handlers) overflowGet(c *api.Call) (int, error) {
	st, ok, err := oltp.ReadAccountDeliveryState(c.Context(), h.d.Pool, c.Caller.AccountID, c.Now())
	if err != nil {
		return 0, api.Internal(err)
	}
	if !ok {
		return 0, api.NotFound("Account not found")
	}
	return 0, c.JSON(200, h.overflowAnswer(c, st.Tier, st.Overflow))
}

func (h *handlers) overflowPut(c *api.Call) (int, error) {
	var b struct {
		Overflow string `json:"overflow"`
	}
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	st, ok, err := oltp.ReadAccountDeliveryState(c.Context(), h.d.Pool, c.Caller.AccountID, c.Now())
	if err != nil {
		return 0, api.Internal(err)
	}
	if !ok {
		return 0, api.NotFound("Account not found")
	}
	t, known := plans.ByID(st.Tier)
	if !known || !slices.Contains(t.Overflows(), b.Overflow) {
		l := c.Links()
		g := &api.PlanGate{GatedEndpoint: "overflow " + b.Overflow, Plan: t.Plan, IncludedIn: []string{}}
		for _, p := range plans.All() {
			if slices.Contains(p.Overflows(), b.Overflow) {
				g.IncludedIn = append(g.IncludedIn, p.Plan)
				if g.UpgradeTo == nil && p.Sellable {
					g.UpgradeTo = &p.Plan
				}
			}
		}
		return 0, &api.Error{Status: fasthttp.StatusPaymentRequired, Detail: &api.QuotaDetail{Reason: api.ReasonQuotaExceeded, Quota: api.QuotaState{},
			UpgradeURL: l.Upgrade, PurchaseURL: l.Purchase, Endpoint: c.Route.Path, PlanGate: g,
			Message: fmt.Sprintf("The %s plan stops at its delivered-changes allowance: overage and queue come with the plans that charge units (Starter, Growth); upgrade at upgrade_url.", t.Name)}}
	}
	tier, err := oltp.SetWallOverflow(c.Context(), h.d.Pool, c.Caller.CustomerID, c.Caller.AccountID, b.Overflow)
	if errors.Is(err, oltp.ErrNotFound) {
		return 0, api.NotFound("Account not found")
	}
	if err != nil {
		return 0, api.Internal(err)
	}
	return 0, c.JSON(200, h.overflowAnswer(c, tier, b.Overflow))
}
