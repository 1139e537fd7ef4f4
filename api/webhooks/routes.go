package webhooks

import (
	"fmt"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/destination"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/oltp"
)

// Routes are the webhook endpoint routes with their handlers over d.
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	id := api.Param{Name: "id", In: "path", Type: "integer", Required: true, Min: new(int64(1)), Description: "the endpoint's id (webhook_endpoint_id)"}
	maxOverlap := int64(oltp.MaxSecretOverlap.Seconds())
	return []*api.Route{
		{Name: "webhooks.register", Method: "POST", Path: "/v1/webhooks", Tag: "webhooks", Scope: api.ScopeWrite,
			Summary: fmt.Sprintf("Register an endpoint: a signed webhook (kind webhook, the default), a Slack incoming webhook (kind slack: one Block Kit message per burst of changes) "+
				"or an email address (kind email: one digest a day at %02d:00 UTC). 201 with its secret (a webhook's, shown only here; null for slack and email); "+
				"the same url (or email) again is 200 with the same id and secret null, "+
				"and enables the endpoint again if it was disabled (disabled_at). "+
				"At most %d live endpoints per customer (422 too_many_endpoints past it). %s", d.DigestHour, oltp.MaxLiveEndpoints, api.BudgetDoc(d.Budgets, oltp.BudgetEndpoints)),
			Body: &api.Body{Required: true, Fields: []api.Field{
				{Name: "kind", Type: "string", Enum: oltp.EndpointKinds, Schema: map[string]any{"type": "string", "enum": oltp.EndpointKinds, "default": oltp.KindWebhook,
					"description": "webhook: a signed JSON POST per change to url; slack: a Block Kit message to the Slack incoming-webhook url, several changes per message when they come together " +
						"(403, 404 and 410 from Slack disable the endpoint); email: the day's changes in one plain text and HTML message to email (503 when the server sends no email). " +
						"Watches, the wall, the cap, replays and test deliveries are the same for every kind"}},
				{Name: "url", Type: "string", Schema: map[string]any{"type": "string", "maxLength": egress.MaxURLLength, "description": "kind webhook and slack (required there; refused with kind email). " +
					api.WebhookURLRules + ". For kind slack it is also a secret: it must be https://" + destination.SlackHost + "/services/<team>/<bot>/<token> " +
					"(else 422 url_refused, ctx.reason not_slack_host or not_slack_path), is stored sealed, never logged, and shown masked (its token's last 4 characters) in url"}},
				{Name: "email", Type: "string", Schema: map[string]any{"type": "string", "maxLength": destination.MaxEmailLength, "format": "email",
					"description": "kind email (required there; refused with the other kinds): one address such as alerts@example.com, no display name; a malformed one is 422 email_invalid"}},
				{Name: "secret", Type: "string", Sensitive: true, Description: "kind webhook only (refused with slack and email, which are not signed). " + api.WebhookSecretRules + ". Registering a url already registered with a different secret is 409 secret_mismatch (change it with rotate-secret); with the same secret or none, 200"},
			}},
			Statuses: []int{200, 201, 409}, Response: registeredSchema(),
			ErrorBodies: map[int]map[string]any{409: api.ConflictSchema([]string{api.ReasonSecretMismatch}, nil, api.BudgetDetailSchema(oltp.BudgetEndpoints))}, Handler: h.register},
		{Name: "webhooks.list", Method: "GET", Path: "/v1/webhooks", Tag: "webhooks", Scope: api.ScopeRead,
			Summary:  "The caller's live webhook endpoints, newest first (never their secrets)",
			Statuses: []int{200}, Response: listSchema(), Handler: h.list},
		{Name: "webhooks.delete", Method: "DELETE", Path: "/v1/webhooks/{id}", Tag: "webhooks", Scope: api.ScopeWrite,
			Summary: "Delete a webhook endpoint: 204, again 204; 409 endpoint_in_use with watch_ids while live watches deliver to it (cancel them first); " +
				"404 for an id that does not exist or is another customer's",
			Params: []api.Param{id}, Statuses: []int{204, 404, 409}, ErrorBodies: map[int]map[string]any{409: api.ConflictSchema([]string{ReasonEndpointInUse}, map[string]any{
				"watch_ids": map[string]any{"type": "array", "items": api.Type("integer"), "description": "the live watches delivering to the endpoint"}})}, Handler: h.delete},
		{Name: "webhooks.rotate_secret", Method: "POST", Path: "/v1/webhooks/{id}/rotate-secret", Tag: "webhooks", Scope: api.ScopeWrite,
			Summary: "Replace the endpoint's signing secret: the new one is answered once; during the overlap deliveries carry a signature under each secret (Standard Webhooks), " +
				"after it only the new one signs. 404 for a deleted, missing or another customer's endpoint; 409 no_signing_secret for a slack or email endpoint (nothing sent to it is signed)",
			Params: []api.Param{id},
			Body: &api.Body{Fields: []api.Field{
				{Name: "secret", Type: "string", Sensitive: true, Description: api.WebhookSecretRules},
				{Name: "overlap_seconds", Type: "integer", Schema: map[string]any{"type": "integer", "minimum": 0, "maximum": maxOverlap, "default": int64(oltp.DefaultSecretOverlap.Seconds()),
					"description": "how long the previous secret keeps signing, 0 to 7 days (default 24 h); a rotation during an overlap ends the earlier previous secret"}},
			}},
			Statuses: []int{200, 404, 409}, Response: rotatedSchema(),
			ErrorBodies: map[int]map[string]any{409: api.ConflictSchema([]string{ReasonNoSigningSecret}, nil)}, Handler: h.rotate},
	}
}

func endpointProps() map[string]any {
	return map[string]any{
		"id": api.Type("integer"), "created_at": api.DateTime(),
		"kind":                       map[string]any{"type": "string", "enum": oltp.EndpointKinds, "description": "webhook, slack or email"},
		"url":                        map[string]any{"type": "string", "description": "a webhook's URL; a Slack endpoint's URL masked (its token's last 4 characters); mailto: and an email endpoint's address"},
		"email":                      map[string]any{"type": []any{"string", "null"}, "description": "an email endpoint's address; null for the other kinds"},
		"secret_rotated_at":          api.Nullable(api.DateTime()),
		"previous_secret_expires_at": map[string]any{"type": []any{"string", "null"}, "format": "date-time", "description": "until then the previous secret also signs (rotation overlap)"},
		"disabled_at": map[string]any{"type": []any{"string", "null"}, "format": "date-time",
			"description": "when the endpoint was disabled (it answered 410 Gone, or failed every attempt for days): nothing is sent to it, deliveries to it fail and replays and test deliveries are 409; null while it is enabled"},
		"disabled_reason": map[string]any{"type": []any{"string", "null"}, "description": "why the endpoint was disabled; null while it is enabled"},
	}
}

// EndpointSchema is an endpoint as listed (no secret).
func EndpointSchema() map[string]any { return api.Object(endpointProps()) }

func registeredSchema() map[string]any {
	p := endpointProps()
	p["secret"] = map[string]any{"type": []any{"string", "null"}, "description": "the signing secret: on 201 of a webhook only (generated or as sent); null on 200 (the url was registered already) and for slack and email endpoints, which are not signed"}
	return api.Object(p)
}

func rotatedSchema() map[string]any {
	p := endpointProps()
	p["secret"] = map[string]any{"type": "string", "description": "the new signing secret, shown only here"}
	return api.Object(p)
}

func listSchema() map[string]any {
	return api.Object(map[string]any{"endpoints": map[string]any{"type": "array", "items": EndpointSchema(), "maxItems": oltp.MaxLiveEndpoints}})
}
