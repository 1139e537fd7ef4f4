// Package webhooks serves the webhook endpoint routes (spec 2.3, 4.4): register (idempotent per
// customer and url; a new endpoint spends the daily endpoint budget, oltp.Budgets), list, delete
// and rotate-secret, and the rules every registration follows, which POST /v1/watches reuses for
// its inline webhook_url (CheckURL, Secret, RegisterError).
//
// Secrets are generated or validated here (package signing), sealed before they reach Postgres
// (package secretbox, through oltp) and shown only in the answer that created or rotated them:
// never listed, logged or echoed in an error. URLs pass the egress policy at save time.
// POST /v1/webhooks/{id}/test writes a test delivery row (admit.CreateTestDelivery) that the
// dispatcher sends. It must not send or sign deliveries, meter, or touch ClickHouse.
package webhooks

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/api/deliveries"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// Deps is what the handlers need.
type Deps struct {
	Pool *pgxpool.Pool
	Log  *slog.Logger
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
		d.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &handlers{d: d}
}

// Unconfigured is the answer of every webhook and watch route of a server without secret keys.
func Unconfigured() *api.Error {
	return api.Unavailable("Webhook secret encryption (start the server with --webhook-secret-keys or HS_WEBHOOK_SECRET_KEYS)", nil)
}

// CheckURL applies policy to raw, a webhook URL sent at loc (body.url, body.webhook_url): the
// URL to store (scheme and host lower-cased), or a 422 of type url_refused whose msg says what to
// change and whose ctx.reason is the egress reason code. A URL carrying credentials is not
// echoed.
func CheckURL(ctx context.Context, policy egress.Policy, raw string, loc ...any) (string, error) {
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
		return "", api.Invalid(problem.FieldError{Type: "url_refused", Loc: loc, Msg: r.Msg, Input: in,
			Ctx: map[string]any{"reason": r.Reason, "max_length": egress.MaxURLLength}})
	case err != nil:
		return "", api.Unavailable("Webhook URL resolution", err)
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	return u.String(), nil
}

// Secret is the secret of a registration: sent (validated; a 422 at loc that never echoes it)
// or, when nil, a new one.
func Secret(sent *string, loc ...any) (oltp.EndpointSecret, error) {
	if sent == nil {
		return oltp.EndpointSecret{Secret: signing.NewSecret()}, nil
	}
	if err := signing.ValidateSecret(*sent); err != nil {
		return oltp.EndpointSecret{}, api.Invalid(problem.FieldError{Type: "secret_format", Loc: loc, Msg: err.Error(), Input: nil,
			Ctx: map[string]any{"prefix": signing.SecretPrefix, "min_bytes": signing.MinSecretBytes, "max_bytes": signing.MaxSecretBytes}})
	}
	return oltp.EndpointSecret{Secret: *sent, Sent: true}, nil
}

// Reasons of this package's 409 answers.
const (
	ReasonSecretMismatch = "secret_mismatch"
	ReasonEndpointInUse  = "endpoint_in_use"
)

// conflict is a 409 detail.
type conflict struct {
	Reason   string  `json:"reason"`
	Message  string  `json:"message"`
	Endpoint string  `json:"endpoint"`
	WatchIDs []int64 `json:"watch_ids,omitempty"`
}

// RegisterError turns a registration refusal of oltp into its answer (urlLoc: where the url was
// sent); other errors are returned as they are.
func RegisterError(c *api.Call, err error, urlLoc ...any) error {
	switch {
	case errors.Is(err, oltp.ErrTooManyEndpoints):
		return api.Invalid(problem.FieldError{Type: "too_many_endpoints", Loc: urlLoc, Msg: err.Error(), Input: nil,
			Ctx: map[string]any{"max_endpoints": oltp.MaxLiveEndpoints}})
	case errors.Is(err, oltp.ErrSecretMismatch):
		return &api.Error{Status: fasthttp.StatusConflict, Detail: conflict{Reason: ReasonSecretMismatch, Message: err.Error(), Endpoint: c.Route.Path}}
	}
	return err
}

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
		return Unconfigured()
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
	url, err := CheckURL(c.Context(), h.d.Egress, b.URL, "body", "url")
	if err != nil {
		return 0, err
	}
	s, err := Secret(b.Secret, "body", "secret")
	if err != nil {
		return 0, err
	}
	e, created, err := oltp.RegisterEndpointWithin(c.Context(), h.d.Pool, h.d.Box, h.d.Budgets, c.Caller.CustomerID, url, s)
	if r := account.BudgetRefusal(c, err); r != nil {
		return 0, r
	}
	if err != nil {
		return 0, RegisterError(c, err, "body", "url")
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
		return 0, &api.Error{Status: fasthttp.StatusConflict, Detail: conflict{Reason: ReasonEndpointInUse, Message: inUse.Error(), Endpoint: c.Route.Path, WatchIDs: inUse.WatchIDs}}
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
	s, err := Secret(b.Secret, "body", "secret")
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

// test writes a test delivery to the endpoint when package admit admits it
// (admit.CreateTestDelivery: pending, due now, the dispatcher woken in the same transaction) and
// answers it; the dispatcher sends it.
func (h *handlers) test(c *api.Call) (int, error) {
	id, _ := c.Int("id")
	d, err := admit.CreateTestDelivery(c.Context(), h.d.Pool, oltp.NewTestDelivery{CustomerID: c.Caller.CustomerID, AccountID: c.Caller.AccountID,
		KeyID: c.Caller.KeyID, EndpointID: id})
	switch {
	case errors.Is(err, oltp.ErrNotFound):
		return 0, api.NotFound(detailNotFound)
	case err != nil:
		return 0, deliveries.Refused(c, err)
	}
	return 0, c.JSON(201, d)
}
