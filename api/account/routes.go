package account

import (
	"fmt"
	"strconv"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// Routes are this package's routes with their handlers over d (spec 4.1, and the changelog).
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	keyID := api.Param{Name: "key_id", In: "path", Type: "integer", Required: true, Min: new(int64(1))}
	return []*api.Route{
		{Name: "whoami", Method: "GET", Path: "/v1/whoami", Summary: "The presented key's customer, account, tier and scopes (connection test; never billed)", Tag: "account",
			Statuses: []int{200}, Response: whoamiSchema(), Handler: h.whoami},
		{Name: "keys.list", Method: "GET", Path: "/v1/keys", Tag: "keys", Scope: api.ScopeKeys,
			Summary: "Every key of the caller's customer, active and revoked, ascending by key_id, a page at a time: follow next_cursor while has_more. " +
				"status=active lists the active keys only (at most " + strconv.Itoa(oltp.MaxActiveKeys) + ", so one page)",
			Params: []api.Param{
				{Name: "cursor", In: "query", Type: "integer", Min: new(int64(1)), Description: "the previous page's next_cursor (the key_id of its last key): the keys after it. Omit for the first page"},
				{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(KeysPageMax)), Default: int64(KeysDefaultLimit),
					Description: fmt.Sprintf("keys per page, 1..%d (default %d); out of range is 422, never truncated", KeysPageMax, KeysDefaultLimit)},
				{Name: "status", In: "query", Type: "string", Enum: []string{oltp.KeysAll, oltp.KeysActive, oltp.KeysRevoked}, Default: oltp.KeysAll,
					Description: "all (default), active (revoked_at null) or revoked keys"},
			},
			Statuses: []int{200}, Response: keyPageSchema(), Handler: h.keysList},
		{Name: "keys.issue", Method: "POST", Path: "/v1/keys", Tag: "keys", Scope: api.ScopeKeys,
			Summary: fmt.Sprintf("Mint a key on the caller's account and tier (shown once). At most %d active keys per customer (422 past it). ", oltp.MaxActiveKeys) +
				api.BudgetDoc(d.Budgets, oltp.BudgetKeys),
			Body: &api.Body{Fields: []api.Field{
				{Name: "scopes", Type: "array", Items: "string", Enum: api.AllScopes, Description: "subset of the presenting key's scopes; default: the same scopes"},
				{Name: "tier", Type: "string", Forbidden: true, Description: "refused (422): the tier is the account's"},
			}},
			Statuses: []int{201, 409}, Response: issuedKeySchema(), ErrorBodies: map[int]map[string]any{409: api.BudgetConflictSchema(oltp.BudgetKeys)}, Handler: h.keysIssue},
		{Name: "keys.revoke", Method: "DELETE", Path: "/v1/keys/{key_id}", Summary: "Revoke a key (takes effect on the next call everywhere)", Tag: "keys", Scope: api.ScopeKeys,
			Params: []api.Param{keyID}, Statuses: []int{204, 404}, Handler: h.keysRevoke},
		{Name: "keys.rotate", Method: "POST", Path: "/v1/keys/{key_id}/rotate", Tag: "keys", Scope: api.ScopeKeys,
			Summary: "Mint a replacement on the same account and revoke key_id, in one call. The replacement spends the key budget: " +
				api.BudgetDoc(d.Budgets, oltp.BudgetKeys) + " (key_id stays active)",
			Params: []api.Param{keyID},
			Body: &api.Body{Required: true, Fields: []api.Field{
				{Name: "scopes", Type: "array", Items: "string", Enum: api.AllScopes, Description: "default: the rotated key's scopes"},
				{Name: "tier", Type: "string", Forbidden: true, Description: "refused (422)"},
			}},
			Statuses: []int{201, 404, 409}, Response: issuedKeySchema(), ErrorBodies: map[int]map[string]any{409: api.BudgetConflictSchema(oltp.BudgetKeys)}, Handler: h.keysRotate},
		{Name: "usage", Method: "GET", Path: "/v1/usage", Summary: "Metered totals of the customer and per key over a window, and the month's bill in money (read scope; not the demo key)", Tag: "usage", Scope: api.ScopeRead,
			Params:   []api.Param{{Name: "window", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(UsageWindowMax)), Default: int64(24), Description: "hours"}},
			Statuses: []int{200}, Response: usageSchema(), Handler: h.usageTotals},
		{Name: "usage.dashboard", Method: "GET", Path: "/v1/usage/dashboard", Summary: "Quota, spend cap, nudges, free-tier allowance, blocked deliveries, " +
			"the delivered-changes allowance with why watches are not delivering (push_block), and the month's bill in money (read scope; not the demo key)", Tag: "usage", Scope: api.ScopeRead,
			Statuses: []int{200}, Response: dashboardSchema(), Handler: h.dashboard},
		{Name: "account.pause", Method: "POST", Path: "/v1/account/pause", Summary: "Pause the account: billable routes answer 403 account_paused", Tag: "account", Scope: api.ScopeKeys,
			Statuses: []int{200}, Response: accountSchema(), Handler: h.pause},
		{Name: "account.resume", Method: "POST", Path: "/v1/account/resume", Summary: "Resume the account", Tag: "account", Scope: api.ScopeKeys,
			Statuses: []int{200}, Response: accountSchema(), Handler: h.resume},
		{Name: "account.overflow", Method: "GET", Path: "/v1/account/overflow", Tag: "account", Scope: api.ScopeRead,
			Summary:  "What happens past the account's delivered-changes allowance of the month (the wall). Not billable",
			Statuses: []int{200}, Response: overflowSchema(), Handler: h.overflowGet},
		{Name: "account.overflow.set", Method: "PUT", Path: "/v1/account/overflow", Tag: "account", Scope: api.ScopeKeys,
			Summary: "Choose what happens past the account's delivered-changes allowance of the billing month: " + overflowDoc +
				". 402 (quota_exceeded with plan_gate) for overage or queue on a plan without them (Free, Trial). Applies from the next change; not billable",
			Body: &api.Body{Required: true, Fields: []api.Field{
				{Name: "overflow", Type: "string", Required: true, Enum: plans.OverflowModes, Description: "stop, overage or queue"},
			}},
			Statuses: []int{200, 402}, Response: overflowSchema(), Handler: h.overflowPut},
		{Name: "pricing", Method: "GET", Path: "/v1/pricing", Summary: "Plans with every allowance's period and what happens past it, unit prices per meter class, what credits are, how the bill is computed, source price, rate limits and compliance summary", Tag: "account", Keyless: true,
			Statuses: []int{200}, Response: pricingSchema(), Handler: h.pricing},
		{Name: "compliance", Method: "GET", Path: "/v1/compliance", Summary: "Compliance statement", Tag: "account", Keyless: true,
			Statuses: []int{200}, Response: complianceSchema(), Handler: h.compliance},
		{Name: "changelog", Method: "GET", Path: "/v1/changelog", Summary: "Schema changes of this API, newest first", Tag: "meta", Keyless: true,
			Statuses: []int{200}, Response: changelogSchema(), Handler: h.changelog},
	}
}
