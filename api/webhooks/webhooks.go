// Package webhooks serves the webhook endpoint routes (spec 2.3, 4.4): register (idempotent per
// customer and url; a new endpoint spends the daily endpoint budget, oltp.Budgets), list, delete
// and rotate-secret. The rules every registration follows, which POST /v1/watches and quickstarts
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
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
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
	URL    string  `json:"url"`
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
	url, err := api.CheckWebhookURL(c.Context(), h.d.Egress, b.URL, "body", "url")
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
	if err != nil {
		return 0, err
	}
	return 0, c.JSON(200, rotated{Endpoint: e, Secret: s.Secret})
}
