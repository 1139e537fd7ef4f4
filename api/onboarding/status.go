package onboarding

import (
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
	"github.com/planehq/hiringsignal/read/readmodel"
)

// The onboarding steps, in the order a customer goes through them (docs/decisions.md,
// "Getting started: quickstart and onboarding"). step is the furthest reached.
const (
	StepNoWatch   = "no_watch"  // no live watch delivers to webhook_url yet: POST /v1/quickstart
	StepWatching  = "watching"  // a watch delivers to it; no signed delivery accepted yet
	StepDelivered = "delivered" // the endpoint accepted (2xx) its first signed delivery
	StepExpansion = "expansion" // and a key used 80% of its daily quota (or the account 80% of its soft cap or of its delivered changes): the expansion nudge
	// StepBlockedByAllowance: a live watch delivers to the URL but the plan's delivered changes of
	// the month are used (overflow stop or queue): nothing is delivered until the reset or an
	// upgrade. It outranks the steps above while it lasts.
	StepBlockedByAllowance = admit.BlockedByAllowance
	// StepBlockedBySpendCap: the same, the account being at its hard spend cap.
	StepBlockedBySpendCap = admit.BlockedBySpendCap
)

// Steps are the step words in order (the two blocked steps outrank the others while they last).
var Steps = []string{StepNoWatch, StepWatching, StepDelivered, StepExpansion, StepBlockedByAllowance, StepBlockedBySpendCap}

// statusView is the onboarding answer: the same until something changes (no clock in it).
type statusView struct {
	Step                    string       `json:"step"`
	Steps                   []string     `json:"steps"`
	WebhookURL              string       `json:"webhook_url"`
	WebhookEndpointID       *int64       `json:"webhook_endpoint_id"`
	LiveWatches             int          `json:"live_watches"`
	FirstWebhookDelivered   bool         `json:"first_webhook_delivered"`
	FirstDeliveredAt        *time.Time   `json:"first_delivered_at"`
	ExpansionNudgeTriggered bool         `json:"expansion_nudge_triggered"`
	Company                 *companyView `json:"company"` // with domain: the company it resolves to (null: none, or no domain sent)
	Next                    string       `json:"next"`    // what to do next, in a sentence
	// PushBlock is why the account's watches are not delivering (null: they are): the allowance,
	// its period, its reset and the upgrade path.
	PushBlock *api.AllowanceBlock `json:"push_block"`
}

// companyView is the company the domain resolves to.
type companyView struct {
	CompanyID       uint64  `json:"company_id"`
	Name            string  `json:"name"`
	Domain          string  `json:"domain"`
	CoverageStatus  string  `json:"coverage_status"`
	MatchConfidence float64 `json:"match_confidence"`
}

func statusSchema() map[string]any {
	return api.Object(map[string]any{
		"step": api.Enum(Steps...), "steps": api.ArrayOf("string"), "webhook_url": api.Type("string"),
		"webhook_endpoint_id": api.Nullable(api.Type("integer")), "live_watches": api.Type("integer"),
		"first_webhook_delivered": api.Type("boolean"), "first_delivered_at": api.Nullable(api.DateTime()),
		"expansion_nudge_triggered": api.Type("boolean"), "next": api.Type("string"),
		"push_block": map[string]any{"oneOf": []any{api.AllowanceBlockSchema(), api.Type("null")},
			"description": "why the account's watches are not delivering (step blocked_by_allowance or blocked_by_spend_cap): the allowance, its period, when it resets and the upgrade path; null otherwise"},
		"company": api.Nullable(api.Object(map[string]any{"company_id": api.Type("integer"), "name": api.Type("string"),
			"domain": api.Type("string"), "coverage_status": api.Enum(readmodel.CoverageCovered, readmodel.CoverageNoATSSignal), "match_confidence": api.Type("number")})),
	})
}

var nextSentences = map[string]string{
	StepNoWatch:   "POST /v1/quickstart with this webhook_url: it registers the endpoint and watches a company that changes often.",
	StepWatching:  "Wait for the first signed delivery (the watched company changes about once a crawl cycle of 3 hours) and answer it 2xx once its signature verifies; POST /v1/webhooks/{id}/test sends one now.",
	StepDelivered: "Your endpoint verifies and accepts deliveries: add watches (POST /v1/watches) and read companies (GET /v1/companies/{company_id}/hiring-pulse).",
	StepExpansion: "A key used 80% of its daily quota (or the account 80% of its soft spend cap or of its delivered changes this month): see GET /v1/usage/dashboard and GET /v1/pricing to upgrade before calls are refused or changes stop.",
}

func (h *handlers) status(c *api.Call) (int, error) {
	raw, _ := c.String("webhook_url")
	u, err := api.CheckWebhookURL(c.Context(), h.d.Egress, raw, "query", "webhook_url")
	if err != nil {
		return 0, err
	}
	out := statusView{Steps: Steps, WebhookURL: u}
	if domain, ok := c.String("domain"); ok {
		if err := h.ready(); err != nil {
			return 0, err
		}
		if cos := h.d.Snapshots.Current().Model.ByDomain(domain); len(cos) > 0 {
			co := cos[0]
			out.Company = &companyView{CompanyID: co.ID, Name: co.Name, Domain: co.Domain, CoverageStatus: co.Coverage(), MatchConfidence: readmodel.ConfidenceExact}
		}
	}
	st, err := oltp.Onboarding(c.Context(), h.d.Pool, c.Caller.CustomerID, u)
	if err != nil {
		return 0, api.Internal(err)
	}
	out.WebhookEndpointID, out.LiveWatches, out.FirstDeliveredAt = st.EndpointID, st.LiveWatches, st.FirstDeliveredAt
	out.FirstWebhookDelivered = st.FirstDeliveredAt != nil
	if out.ExpansionNudgeTriggered, err = api.ExpansionNudge(c, h.d.Pool); err != nil {
		return 0, api.Internal(err)
	}
	if st.LiveWatches > 0 {
		if out.PushBlock, _, err = api.PushBlock(c); err != nil {
			return 0, api.Internal(err)
		}
	}
	switch {
	case out.PushBlock != nil:
		out.Step = out.PushBlock.Status
	case out.FirstWebhookDelivered && out.ExpansionNudgeTriggered:
		out.Step = StepExpansion
	case out.FirstWebhookDelivered:
		out.Step = StepDelivered
	case st.LiveWatches > 0:
		out.Step = StepWatching
	default:
		out.Step = StepNoWatch
	}
	out.Next = nextSentences[out.Step]
	if out.PushBlock != nil {
		out.Next = out.PushBlock.Message + " Upgrade at " + out.PushBlock.UpgradeURL + "."
	}
	return 0, c.JSON(200, out)
}
