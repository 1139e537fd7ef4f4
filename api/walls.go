package api

import (
	"time"

	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// What the handler packages share about the walls customers see coming (docs/decisions.md,
// "Plans, limits, quotas and spend caps"): why an account's watches are not delivering
// (AllowanceBlock, answered by GET /v1/watches, the usage dashboard and GET /v1/onboarding), the
// account events of the change feed (AccountEvents) and the header saying what a call cost
// (UnitsChargedHeader).

// UnitsChargedHeader is on every 200, 201 and 202 answer of a billable route: the units the call
// was metered in its route's meter class (0 for a per-call route, a call of the demo key and an
// answer replayed for an Idempotency-Key); MeterClassHeader names the class.
const (
	UnitsChargedHeader = "X-Units-Charged"
	MeterClassHeader   = "X-Meter-Class"
)

// AllowanceBlock is why an account's watches are not delivering now (admit.Block), as answered.
type AllowanceBlock struct {
	Status      string `json:"status"`
	Allowance   string `json:"allowance"`
	Limit       int64  `json:"limit"`
	Used        int64  `json:"used"`
	Period      string `json:"period"`
	PeriodStart string `json:"period_start"`
	ResetsAt    string `json:"resets_at"`
	Overflow    string `json:"overflow"`
	Queued      int64  `json:"queued"`
	UpgradeURL  string `json:"upgrade_url"`
	Message     string `json:"message"`
}

// NewAllowanceBlock is b as answered to c (nil for nil).
func NewAllowanceBlock(c *Call, b *admit.Block) *AllowanceBlock {
	if b == nil {
		return nil
	}
	return &AllowanceBlock{Status: b.Status, Allowance: b.Allowance, Limit: b.Limit, Used: b.Used, Period: b.Period,
		PeriodStart: *RFC3339(b.PeriodStart), ResetsAt: *RFC3339(b.ResetsAt), Overflow: b.Overflow, Queued: b.Queued,
		UpgradeURL: c.Links().Upgrade, Message: b.Message}
}

// PushBlock reads why the caller's account's watches are not delivering now (nil: they are), from
// the figures the notifier's checks read, with those figures.
func PushBlock(c *Call) (*AllowanceBlock, oltp.AccountDeliveryState, error) {
	if c.Caller.Demo || c.Caller.Keyless {
		return nil, oltp.AccountDeliveryState{}, nil
	}
	b, st, err := admit.BlockNow(c.Context(), c.srv.pool, c.Caller.AccountID, c.Now())
	if err != nil {
		return nil, st, err
	}
	return NewAllowanceBlock(c, b), st, nil
}

// AllowanceBlockSchema is AllowanceBlock as the document states it.
func AllowanceBlockSchema() map[string]any {
	s := Object(map[string]any{
		"status": map[string]any{"type": "string", "enum": []string{admit.BlockedByAllowance, admit.BlockedBySpendCap},
			"description": "blocked_by_allowance: the plan's delivered changes of the billing month are used and the account's overflow is stop or queue; " +
				"blocked_by_spend_cap: the account is at its hard spend cap"},
		"allowance": map[string]any{"type": "string", "enum": []string{plans.AllowanceDeliveredChanges, plans.AllowanceHardCap}, "description": "the allowance reached (as GET /v1/pricing lists it)"},
		"limit":     Type("integer"),
		"used": map[string]any{"type": "integer", "description": "what counts against it: watch deliveries admitted this billing month (delivered_changes); " +
			"units metered this month plus deliveries admitted and not yet sent (hard_cap_units)"},
		"period":       map[string]any{"type": "string", "enum": []string{plans.PeriodMonth}, "description": "calendar_month_utc: the count runs from 00:00 UTC on the 1st to the next 1st"},
		"period_start": DateTime(),
		"resets_at":    map[string]any{"type": "string", "format": "date-time", "description": "when the count starts again and deliveries resume (an upgrade or a raised cap lifts it sooner)"},
		"overflow": map[string]any{"type": "string", "enum": plans.OverflowModes,
			"description": "what happens to a change meanwhile: stop (not delivered, never kept) or queue (held, replayable once there is room; queued counts them)"},
		"queued":      map[string]any{"type": "integer", "minimum": 0, "description": "changes held at the wall under overflow queue that can still be replayed"},
		"upgrade_url": Type("string"),
		"message":     map[string]any{"type": "string", "description": "the block in a sentence, with the way out (upgrade, overflow, the reset)"},
	})
	s["description"] = "why the account's watches are not delivering now, and until when"
	return s
}

// AccountEventsWindow is how far back the change feed lists the account's events: they are raised
// at most a few times a month, and a consumer polling daily sees each at least once.
const AccountEventsWindow = 35 * 24 * time.Hour

// MaxAccountEvents is the most account events a feed page lists.
const MaxAccountEvents = 50

// AccountEvents are the caller's account events of the last AccountEventsWindow, newest first (at
// most MaxAccountEvents), as the change feed lists them; none for the demo key.
func (c *Call) AccountEvents() ([]payload.AccountEvent, error) {
	out := []payload.AccountEvent{}
	if c.Caller.Demo || c.Caller.Keyless {
		return out, nil
	}
	evs, err := oltp.ListAccountEvents(c.Context(), c.srv.pool, c.Caller.CustomerID, c.Caller.AccountID, c.Now().Add(-AccountEventsWindow), MaxAccountEvents)
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		out = append(out, admit.AccountEventPayload(e))
	}
	return out, nil
}

// AccountEventSchema is an account event (payload.AccountEvent) as the document states it, on the
// change feed and in a delivery body.
func AccountEventSchema() map[string]any {
	s := Object(map[string]any{
		"account_event_id":  map[string]any{"type": "integer", "description": "the event's id: dedupe on it (a feed page lists the recent ones on every page)"},
		"event_type":        map[string]any{"type": "string", "enum": []string{payload.EventAllowanceWarning}},
		"allowance":         map[string]any{"type": "string", "enum": []string{plans.AllowanceDeliveredChanges}, "description": "the allowance (as GET /v1/pricing lists it)"},
		"threshold_percent": map[string]any{"type": "integer", "enum": []int{80, 100}, "description": "the share of the limit reached"},
		"limit":             Type("integer"),
		"used":              map[string]any{"type": "integer", "description": "what counted against it when the warning was raised"},
		"period":            map[string]any{"type": "string", "enum": []string{plans.PeriodMonth}},
		"period_start":      DateTime(),
		"resets_at":         map[string]any{"type": "string", "format": "date-time", "description": "when the count starts again"},
		"overflow":          map[string]any{"type": "string", "enum": plans.OverflowModes, "description": "what happens past the limit: stop, overage or queue"},
		"message":           map[string]any{"type": "string", "description": "the warning in a sentence, with the way out"},
		"occurred_at":       DateTime(),
	})
	s["description"] = "an event of the account rather than of a req: allowance_warning, raised once per allowance, billing month, limit and threshold " +
		"(80% and 100%; an upgrade raises its new limit's), served on the change feed and delivered, signed, to every live endpoint"
	return s
}
