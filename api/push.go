package api

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/internal/destination"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
)

// What the push routes share: the rules every registration of a webhook endpoint follows, whether
// POST /v1/webhooks (package webhooks), a watch's inline webhook_url (package watches) or a
// quickstart (package onboarding), and the defaults of a watch that POST /v1/watches and a
// quickstart both create.

// Descriptions of a webhook url and secret, as every route taking them states them.
var (
	WebhookURLRules = fmt.Sprintf("absolute https URL of at most %d characters, without credentials (user:password@); a host that is or resolves to a loopback, "+
		"private, link-local, CGNAT, unique-local, multicast or unspecified address, in any spelling (127.1, decimal, IPv4-mapped IPv6, localhost), "+
		"is 422 url_refused (ctx.reason says why). Scheme and host are stored lower-cased; the rest as sent", egress.MaxURLLength)
	WebhookSecretRules = fmt.Sprintf("Standard Webhooks secret: %q + standard base64 (padded) of %d to %d random bytes, as stock Standard Webhooks libraries take it; "+
		"generated (32 bytes) when omitted. A malformed secret is 422 secret_format and is never echoed", signing.SecretPrefix, signing.MinSecretBytes, signing.MaxSecretBytes)
)

// WebhooksUnconfigured is the answer of every webhook and watch route of a server without secret
// keys.
func WebhooksUnconfigured() *Error {
	return Unavailable("Webhook secret encryption (start the server with --webhook-secret-keys or HS_WEBHOOK_SECRET_KEYS)", nil)
}

// CheckWebhookURL applies policy to raw, a webhook URL sent at loc (body.url, body.webhook_url):
// the URL to store (scheme and host lower-cased), or a 422 of type url_refused whose msg says
// what to change and whose ctx.reason is the egress reason code. A URL carrying credentials is
// not echoed.
func CheckWebhookURL(ctx context.Context, policy egress.Policy, raw string, loc ...any) (string, error) {
	u, err := policy.CheckURL(ctx, raw)
	var r *egress.Refusal
	switch {
	case errors.As(err, &r):
		var in any = raw
		switch {
		case r.Reason == egress.ReasonCredentials:
			in = nil
		case len(raw) > 200:
			in = raw[:200] + "..."
		}
		return "", Invalid(problem.FieldError{Type: "url_refused", Loc: loc, Msg: r.Msg, Input: in,
			Ctx: map[string]any{"reason": r.Reason, "max_length": egress.MaxURLLength}})
	case err != nil:
		return "", Unavailable("Webhook URL resolution", err)
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	return u.String(), nil
}

// CheckSlackURL is CheckWebhookURL for a Slack incoming-webhook URL, which is a secret: it must
// also be https://hooks.slack.com/services/<team>/<bot>/<token> (any host with that path when
// the policy allows private hosts, as dev does, so a loopback receiver stands in for Slack), and
// a refusal echoes it masked (destination.MaskSlackURL), never whole.
func CheckSlackURL(ctx context.Context, policy egress.Policy, raw string, loc ...any) (string, error) {
	u, err := policy.CheckURL(ctx, raw)
	var r *egress.Refusal
	var sr *destination.SlackRefusal
	switch {
	case errors.As(err, &r):
		return "", Invalid(problem.FieldError{Type: "url_refused", Loc: loc, Msg: r.Msg, Input: maskedInput(raw, r.Reason),
			Ctx: map[string]any{"reason": r.Reason, "max_length": egress.MaxURLLength}})
	case err != nil:
		return "", Unavailable("Slack URL resolution", err)
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if err := destination.CheckSlackURL(u, policy.AllowPrivate); errors.As(err, &sr) {
		return "", Invalid(problem.FieldError{Type: "url_refused", Loc: loc, Msg: sr.Msg, Input: maskedInput(raw, sr.Reason),
			Ctx: map[string]any{"reason": sr.Reason, "max_length": egress.MaxURLLength}})
	}
	return u.String(), nil
}

// maskedInput is what a 422 about a Slack URL echoes: nothing when it carried credentials or is
// not a URL at all, else the URL masked and clipped.
func maskedInput(raw, reason string) any {
	if reason == egress.ReasonCredentials || reason == egress.ReasonTooLong || reason == egress.ReasonInvalidURL {
		return nil
	}
	return problem.Clip(destination.MaskSlackURL(raw), 200)
}

// WebhookSecret is the secret of a registration: sent (validated; a 422 at loc that never echoes
// it) or, when nil, a new one.
func WebhookSecret(sent *string, loc ...any) (oltp.EndpointSecret, error) {
	if sent == nil {
		return oltp.EndpointSecret{Secret: signing.NewSecret()}, nil
	}
	if err := signing.ValidateSecret(*sent); err != nil {
		return oltp.EndpointSecret{}, Invalid(problem.FieldError{Type: "secret_format", Loc: loc, Msg: err.Error(), Input: nil,
			Ctx: map[string]any{"prefix": signing.SecretPrefix, "min_bytes": signing.MinSecretBytes, "max_bytes": signing.MaxSecretBytes}})
	}
	return oltp.EndpointSecret{Secret: *sent, Sent: true}, nil
}

// ReasonSecretMismatch is the reason of the 409 of a url registered again with another secret.
const ReasonSecretMismatch = "secret_mismatch"

// RegisterEndpointError turns a registration refusal of oltp into its answer (urlLoc: where the
// url was sent); other errors are returned as they are.
func RegisterEndpointError(c *Call, err error, urlLoc ...any) error {
	switch {
	case errors.Is(err, oltp.ErrTooManyEndpoints):
		return Invalid(problem.FieldError{Type: "too_many_endpoints", Loc: urlLoc, Msg: err.Error(), Input: nil,
			Ctx: map[string]any{"max_endpoints": oltp.MaxLiveEndpoints}})
	case errors.Is(err, oltp.ErrSecretMismatch):
		return &Error{Status: fasthttp.StatusConflict, Detail: Conflict{Reason: ReasonSecretMismatch, Message: err.Error(), Endpoint: c.Route.Path}}
	}
	return err
}

// Defaults of a watch, POST /v1/watches' and a quickstart's (docs/decisions.md, "Push: webhook
// endpoints and watches").
const DefaultWatchMaxFiresPerHour = 20

// DefaultWatchEventTypes fire unless event_types says otherwise: reobserved is left out because
// the crawl emits one per live req every 7 days (pipeline.ReobserveEvery), so a watch matching a
// dozen live reqs would spend a Free plan's 50 delivered changes a month without telling
// anything new.
var DefaultWatchEventTypes = []string{"opened", "reposted", "closed"}
