// Package webhooks serves the webhook endpoint routes (spec 2.3, 4.4): register (idempotent per
// customer and url; a new endpoint spends the daily endpoint budget, oltp.Budgets), list, delete
// and rotate-secret. An endpoint is of a kind: a signed webhook (the default), a Slack incoming
// webhook (its URL checked by package destination's rule and the egress policy, sealed, shown
// masked) or an email address that gets the daily digest (validated by package destination). The rules every registration follows, which POST /v1/watches and quickstarts
// apply too, are package api's (api.CheckWebhookURL, api.WebhookSecret,
// api.RegisterEndpointError); POST /v1/webhooks/{id}/test, a delivery, is package deliveries'.
//
// Secrets are generated or validated (package signing, through api.WebhookSecret), sealed before
// they reach Postgres (package secretbox, through oltp) and shown only in the answer that created
// or rotated them: never listed, logged or echoed in an error. URLs pass the egress policy at
// save time. It must not send or sign deliveries, meter, touch ClickHouse, or import another
// handler package.
package webhooks

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/destination"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/oltp"
)

// Deps is what the handlers need.
type Deps struct {
	Pool *pgxpool.Pool
	Log  *slog.Logger // default: discard
	// Box seals secrets at rest (flag --webhook-secret-keys); nil: every route answers 503 naming
	// the flag.
	Box *secretbox.Box
	// Egress is the URL policy at save time: the zero value (https, public hosts only) in serve;
	// AllowHTTP and AllowPrivate in dev.
	Egress egress.Policy
	// Budgets are the daily creation budgets; registering spends the endpoint budget (zero: the
	// defaults, oltp.MaxEndpointsPerDay).
	Budgets oltp.Budgets
	// Email says the server sends email digests (--smtp-addr and --smtp-from given); without it
	// registering an endpoint of kind email answers 503 naming the flags.
	Email bool
	// DigestHour is the hour (UTC) of the daily email digest, as the document states it.
	DigestHour int
}

type handlers struct{ d Deps }

// Register installs the routes of this package on srv (before srv.Start).
func Register(srv *api.Server, d Deps) { srv.Register(Routes(d)...) }

func newHandlers(d Deps) *handlers {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &handlers{d: d}
}

// ReasonEndpointInUse is the reason of the 409 of deleting an endpoint live watches deliver to
// (secret_mismatch, the other 409 of these routes, is api.ReasonSecretMismatch).
const ReasonEndpointInUse = "endpoint_in_use"

// ReasonNoSigningSecret is the reason of the 409 of rotating the secret of a Slack or email
// endpoint: nothing sent to it is signed.
const ReasonNoSigningSecret = "no_signing_secret"

// endpointJSON is an endpoint as listed; registered adds the secret shown once.
type registered struct {
	oltp.Endpoint
	Secret *string `json:"secret"`
}

type rotated struct {
	oltp.Endpoint
	Secret string `json:"secret"`
}

type registerBody struct {
	Kind   *string `json:"kind"`
	URL    *string `json:"url"`
	Email  *string `json:"email"`
	Secret *string `json:"secret"`
}

func (h *handlers) ready() error {
	if h.d.Box == nil {
		return api.WebhooksUnconfigured()
	}
	return nil
}

func (h *handlers) register(c *api.Call) (int, error) {
	if err := h.ready(); err != nil {
		return 0, err
	}
	var b registerBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	kind := oltp.KindWebhook
	if b.Kind != nil {
		kind = *b.Kind
	}
	if kind != oltp.KindWebhook {
		return h.registerDestination(c, kind, &b)
	}
	if b.Email != nil {
		return 0, notForKind(kind, "email")
	}
	if b.URL == nil {
		return 0, api.Invalid(problem.Missing("body", "url"))
	}
	url, err := api.CheckWebhookURL(c.Context(), h.d.Egress, *b.URL, "body", "url")
	if err != nil {
		return 0, err
	}
	s, err := api.WebhookSecret(b.Secret, "body", "secret")
	if err != nil {
		return 0, err
	}
	e, created, err := oltp.RegisterEndpointWithin(c.Context(), h.d.Pool, h.d.Box, h.d.Budgets, c.Caller.CustomerID, url, s)
	if r := api.BudgetRefusal(c, err); r != nil {
		return 0, r
	}
	if err != nil {
		return 0, api.RegisterEndpointError(c, err, "body", "url")
	}
	if !created {
		return 0, c.JSON(200, registered{Endpoint: e})
	}
	return 0, c.JSON(201, registered{Endpoint: e, Secret: &s.Secret})
}

// notForKind is the 422 of a member sent with a kind that takes no such member.
func notForKind(kind, field string) error {
	return api.Invalid(problem.FieldError{Type: "extra_forbidden", Loc: problem.Loc("body", field), Input: nil,
		Msg: fmt.Sprintf("%s is not taken by an endpoint of kind %s: %s", field, kind, kindMembers), Ctx: map[string]any{"kind": kind}})
}

// kindMembers says which members each kind takes.
const kindMembers = "kind webhook takes url and secret, kind slack takes url (the Slack incoming-webhook URL), kind email takes email"

// registerDestination registers a Slack or email endpoint (kind slack or email): POST
// /v1/webhooks' rules, its target checked and sealed, no signing secret.
func (h *handlers) registerDestination(c *api.Call, kind string, b *registerBody) (int, error) {
	if b.Secret != nil {
		return 0, notForKind(kind, "secret")
	}
	d := oltp.Destination{Kind: kind}
	switch kind {
	case oltp.KindSlack:
		if b.Email != nil {
			return 0, notForKind(kind, "email")
		}
		if b.URL == nil {
			return 0, api.Invalid(problem.Missing("body", "url"))
		}
		url, err := api.CheckSlackURL(c.Context(), h.d.Egress, *b.URL, "body", "url")
		if err != nil {
			return 0, err
		}
		d.Target, d.Shown = url, destination.MaskSlackURL(url)
	case oltp.KindEmail:
		if b.URL != nil {
			return 0, notForKind(kind, "url")
		}
		if !h.d.Email {
			return 0, api.Unavailable("Email digests (start the server with --smtp-addr and --smtp-from, or HS_SMTP_ADDR and HS_SMTP_FROM)", nil)
		}
		if b.Email == nil {
			return 0, api.Invalid(problem.Missing("body", "email"))
		}
		addr, err := destination.CheckEmail(*b.Email)
		if err != nil {
			return 0, api.Invalid(problem.FieldError{Type: "email_invalid", Loc: problem.Loc("body", "email"), Msg: err.Error(),
				Input: problem.Clip(*b.Email, 200), Ctx: map[string]any{"max_length": destination.MaxEmailLength}})
		}
		d.Target = addr
	}
	e, created, err := oltp.RegisterDestinationWithin(c.Context(), h.d.Pool, h.d.Box, h.d.Budgets, c.Caller.CustomerID, d)
	if r := api.BudgetRefusal(c, err); r != nil {
		return 0, r
	}
	if err != nil {
		return 0, api.RegisterEndpointError(c, err, "body", map[string]string{oltp.KindSlack: "url", oltp.KindEmail: "email"}[kind])
	}
	status := 200
	if created {
		status = 201
	}
	return 0, c.JSON(status, registered{Endpoint: e})
}

func (h *handlers) list(c *api.Call) (int, error) {
	es, err := oltp.ListEndpoints(c.Context(), h.d.Pool, c.Caller.CustomerID)
	if err != nil {
		return 0, err
	}
	if es == nil {
		es = []oltp.Endpoint{}
	}
	return 0, c.JSON(200, map[string]any{"endpoints": es})
}

const detailNotFound = "Webhook endpoint not found"

func (h *handlers) delete(c *api.Call) (int, error) {
	id, _ := c.Int("id")
	err := oltp.DeleteEndpoint(c.Context(), h.d.Pool, c.Caller.CustomerID, id)
	var inUse *oltp.EndpointInUseError
	switch {
	case errors.Is(err, oltp.ErrNotFound):
		return 0, api.NotFound(detailNotFound)
	case errors.As(err, &inUse):
		return 0, &api.Error{Status: fasthttp.StatusConflict, Detail: api.Conflict{Reason: ReasonEndpointInUse, Message: inUse.Error(), Endpoint: c.Route.Path, WatchIDs: inUse.WatchIDs}}
	case err != nil:
		return 0, err
	}
	return 0, c.NoContent()
}

type rotateBody struct {
	Secret         *string `json:"secret"`
	OverlapSeconds *int64  `json:"overlap_seconds"`
}

func (h *handlers) rotate(c *api.Call) (int, error) {
	if err := h.ready(); err != nil {
		return 0, err
	}
	id, _ := c.Int("id")
	var b rotateBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	overlap := oltp.DefaultSecretOverlap
	if b.OverlapSeconds != nil {
		if max := int64(oltp.MaxSecretOverlap.Seconds()); *b.OverlapSeconds < 0 || *b.OverlapSeconds > max {
			return 0, api.Invalid(problem.FieldError{Type: "less_than_equal", Loc: problem.Loc("body", "overlap_seconds"),
				Msg: "Input should be between 0 and 604800 (7 days)", Input: *b.OverlapSeconds, Ctx: map[string]any{"ge": 0, "le": max}})
		}
		overlap = time.Duration(*b.OverlapSeconds) * time.Second
	}
	s, err := api.WebhookSecret(b.Secret, "body", "secret")
	if err != nil {
		return 0, err
	}
	e, err := oltp.RotateEndpointSecret(c.Context(), h.d.Pool, h.d.Box, c.Caller.CustomerID, id, s.Secret, overlap)
	if errors.Is(err, oltp.ErrNotFound) {
		return 0, api.NotFound(detailNotFound)
	}
	if errors.Is(err, oltp.ErrNoSigningSecret) {
		return 0, &api.Error{Status: fasthttp.StatusConflict, Detail: api.Conflict{Reason: ReasonNoSigningSecret, Message: err.Error(), Endpoint: c.Route.Path}}
	}
	if err != nil {
		return 0, err
	}
	return 0, c.JSON(200, rotated{Endpoint: e, Secret: s.Secret})
}
