package onboarding

import (
	"strings"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/oltp"
)

// Routes are POST /v1/quickstart and GET /v1/onboarding with their handlers over d. Neither is
// billable.
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	return []*api.Route{
		{Name: "quickstart", Method: "POST", Path: "/v1/quickstart", Tag: "account", Scope: api.ScopeWrite,
			Summary: "Snippets (curl, Python, TypeScript, MCP client configuration, a Google Sheets enrichment function) carrying your key, and, once per webhook_url, " +
				"the endpoint registered and a watch on a company that changes often delivering to it. Calling again, or twice at once, creates nothing more: " +
				"the same endpoint and watch are answered (created false; webhook_secret only on the call that registered the endpoint). " +
				"402 when the plan's live watches are all in use. Not billable, and the watch created here meters no watch unit. " +
				api.BudgetDoc(d.Budgets, oltp.BudgetQuickstarts, oltp.BudgetWatches, oltp.BudgetEndpoints),
			Body: &api.Body{Required: true, Fields: []api.Field{{Name: "webhook_url", Type: "string", Required: true,
				Schema: map[string]any{"type": "string", "maxLength": egress.MaxURLLength, "description": api.WebhookURLRules}}}},
			Statuses: []int{200, 402, 409}, Response: quickstartSchema(),
			ErrorBodies: map[int]map[string]any{409: api.BudgetConflictSchema(oltp.BudgetQuickstarts, oltp.BudgetWatches, oltp.BudgetEndpoints)}, Handler: h.quickstart},
		{Name: "onboarding", Method: "GET", Path: "/v1/onboarding", Tag: "account", Scope: api.ScopeRead,
			Summary: "How far webhook_url got: step (" + strings.Join(Steps, " → ") + "), first_webhook_delivered (a signed delivery, watch or test, " +
				"that the endpoint answered 2xx), expansion_nudge_triggered (as on the usage dashboard) and, with domain, the company it resolves to. " +
				"Polling again answers the same until one of these changes. Not billable",
			Params: []api.Param{
				{Name: "webhook_url", In: "query", Type: "string", Required: true, MaxLength: egress.MaxURLLength, Description: "the endpoint receiving the signed deliveries; " + api.WebhookURLRules},
				{Name: "domain", In: "query", Type: "string", MaxLength: 253, Description: "a company website domain to resolve (optional)"},
			},
			Statuses: []int{200}, Response: statusSchema(), Handler: h.status},
	}
}
