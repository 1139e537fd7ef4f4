package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/VictoriaMetrics/metrics"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/internal/problem"
)

// Error is an error answer in the shape of spec 7: a status and a JSON body {"detail": Detail}.
// Handlers return it (or wrap it) and the chain writes it.
type Error struct {
	Status  int
	Detail  any
	Headers map[string]string
	cause   error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%d: %v", e.Status, e.cause)
	}
	return fmt.Sprintf("%d: %v", e.Status, e.Detail)
}

func (e *Error) Unwrap() error { return e.cause }

// Error details fixed by the spec.
const (
	DetailMissingKey = "Missing API key: send it in the X-API-Key header or as Authorization: Bearer <key>"
	DetailInvalidKey = "Invalid or revoked API key"
)

// Reasons carried in error details.
const (
	ReasonAccountPaused     = "account_paused"
	ReasonQuotaExceeded     = "quota_exceeded"
	ReasonSpendCapExceeded  = "spend_cap_exceeded"
	ReasonRateLimited       = "rate_limited"
	ReasonKeyThrottled      = "key_throttled"
	ReasonInsufficientScope = "insufficient_scope"
)

// NotFound is the 404 answer; the same body for a missing id and another customer's id.
func NotFound(detail string) *Error { return &Error{Status: fasthttp.StatusNotFound, Detail: detail} }

// AccountPaused is the 403 account_paused of a paused account at endpoint (a route's path); why
// says what waits, and how to resume.
func AccountPaused(endpoint, why string) *Error {
	return &Error{Status: fasthttp.StatusForbidden, Detail: reasonDetail{Reason: ReasonAccountPaused, Endpoint: endpoint, Message: why}}
}

// Internal is a 500 that says nothing about the cause to the caller (the chain logs it).
func Internal(cause error) *Error {
	return &Error{Status: fasthttp.StatusInternalServerError, Detail: "Internal error: the request was not completed; retry later", cause: cause}
}

// UnavailableRetryAfter is the Retry-After, in seconds, of a 503 whose answer set none: a store
// that is down or did not answer.
const UnavailableRetryAfter = 5

// Unavailable is a 503 naming what is down; it is answered with Retry-After
// UnavailableRetryAfter unless its Headers set another.
func Unavailable(what string, cause error) *Error {
	return &Error{Status: fasthttp.StatusServiceUnavailable, Detail: what + " is unavailable; retry later", cause: cause}
}

// Invalid is the 422 answer carrying the field errors (at most problem.MaxFieldErrors items, see
// problem.Bound).
func Invalid(items ...problem.FieldError) *Error { return invalid(items, 0) }

// invalid is Invalid for items collected up to the cap, omitted more not collected.
func invalid(items []problem.FieldError, omitted int) *Error {
	return &Error{Status: fasthttp.StatusUnprocessableEntity, Detail: problem.Bound(items, omitted)}
}

// fieldErrors collects the items of a 422 up to problem.MaxFieldErrors and counts the rest.
type fieldErrors struct {
	items   []problem.FieldError
	omitted int
}

// full reports whether another item would not be listed: callers skip building it and call skip.
func (e *fieldErrors) full() bool { return len(e.items) >= problem.MaxFieldErrors }

func (e *fieldErrors) skip() { e.omitted++ }

func (e *fieldErrors) add(items ...problem.FieldError) {
	for _, fe := range items {
		if e.full() {
			e.omitted++
			continue
		}
		e.items = append(e.items, fe)
	}
}

// err is the 422 of what was collected, or nil.
func (e *fieldErrors) err() *Error {
	if len(e.items) == 0 && e.omitted == 0 {
		return nil
	}
	return invalid(e.items, e.omitted)
}

// QuotaDetail is the 402 detail of spec 7 (also the dashboard's upgrade_prompt).
type QuotaDetail struct {
	Reason      string     `json:"reason"`
	Quota       QuotaState `json:"quota"`
	UpgradeURL  string     `json:"upgrade_url"`
	PurchaseURL string     `json:"purchase_url"`
	Endpoint    string     `json:"endpoint"`
	Message     string     `json:"message,omitempty"`
	// PlanGate is set only when the plan does not include the route at all (not a spent quota).
	PlanGate *PlanGate `json:"plan_gate,omitempty"`
}

// PlanGate says that a 402 comes from the plan's gated_endpoints, not from a spent quota: the
// route's gate, the caller's plan, and the plans that include it.
type PlanGate struct {
	GatedEndpoint string   `json:"gated_endpoint"`
	Plan          string   `json:"plan"`
	IncludedIn    []string `json:"included_in"`
	UpgradeTo     *string  `json:"upgrade_to"`
}

// QuotaState is the quota (or spend cap) a QuotaDetail is about; Reset is RFC 3339 or null.
type QuotaState struct {
	Limit int64   `json:"limit"`
	Used  int64   `json:"used"`
	Reset *string `json:"reset"`
}

type rateDetail struct {
	Reason    string `json:"reason"`
	Endpoint  string `json:"endpoint"`
	SignupURL string `json:"signup_url,omitempty"`
	Message   string `json:"message,omitempty"`
}

type reasonDetail struct {
	Reason        string `json:"reason"`
	Endpoint      string `json:"endpoint"`
	Message       string `json:"message"`
	RequiredScope string `json:"required_scope,omitempty"`
}

func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	// Written straight into the response body, without HTML escaping: this is an API, and
	// "<key>" in a message must read as "<key>", not "\u003ckey\u003e".
	ctx.Response.ResetBody()
	enc := json.NewEncoder(ctx.Response.BodyWriter())
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = fasthttp.StatusInternalServerError
		ctx.Response.ResetBody()
		ctx.SetBodyString(`{"detail":"Internal error: cannot encode the response"}`)
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
}

func writeError(ctx *fasthttp.RequestCtx, e *Error) {
	ctx.Response.ResetBody()
	for k, v := range e.Headers {
		ctx.Response.Header.Set(k, v)
	}
	if e.Status == fasthttp.StatusServiceUnavailable && e.Headers["Retry-After"] == "" {
		// Every 503 says when to come back, as the document declares: a store that is down
		// (Unavailable) gets UnavailableRetryAfter unless its answer chose another wait.
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(UnavailableRetryAfter))
	}
	detail := e.Detail
	if items, ok := detail.([]problem.FieldError); ok { // built without Invalid: bound it here
		detail = problem.Bound(items, 0)
	}
	writeJSON(ctx, e.Status, map[string]any{"detail": detail})
}

// Handlers for requests that reach no route, with the wrong method or a body too large.
func notFoundHandler(ctx *fasthttp.RequestCtx) {
	writeJSON(ctx, fasthttp.StatusNotFound, map[string]any{"detail": "Not Found: no route " + problem.Clip(string(ctx.Path()), 200) + "; see /openapi.json"})
}

func methodNotAllowedHandler(ctx *fasthttp.RequestCtx) {
	writeJSON(ctx, fasthttp.StatusMethodNotAllowed, map[string]any{"detail": "Method Not Allowed: " + problem.Clip(string(ctx.Method()), 32) + " " + problem.Clip(string(ctx.Path()), 200) + " accepts " + string(ctx.Response.Header.Peek("Allow"))})
}

// serverErrorHandler answers requests fasthttp refused before any route (a body over
// MaxBodyBytes, a request line and headers over MaxHeaderBytes, a request it cannot parse) and
// counts each in hs_http_refused_total{reason}: no route's metrics see them.
func serverErrorHandler(maxBody, maxHeader int, set *metrics.Set) func(ctx *fasthttp.RequestCtx, err error) {
	tooLarge := set.GetOrCreateCounter(`hs_http_refused_total{reason="body_too_large"}`)
	headers := set.GetOrCreateCounter(`hs_http_refused_total{reason="header_too_large"}`)
	malformed := set.GetOrCreateCounter(`hs_http_refused_total{reason="malformed"}`)
	return func(ctx *fasthttp.RequestCtx, err error) {
		// fasthttp closes the connection after these answers, whatever of the request is still
		// on it (the rest of a header, a body): it lingers first (linger.go).
		closeUnread(ctx)
		if errors.Is(err, fasthttp.ErrBodyTooLarge) {
			tooLarge.Inc()
			writeJSON(ctx, fasthttp.StatusRequestEntityTooLarge, map[string]any{"detail": "Request body too large: the limit is " + strconv.Itoa(maxBody) + " bytes"})
			return
		}
		if small := (*fasthttp.ErrSmallBuffer)(nil); errors.As(err, &small) {
			headers.Inc()
			writeJSON(ctx, fasthttp.StatusRequestHeaderFieldsTooLarge, map[string]any{"detail": headerTooLarge(maxHeader)})
			return
		}
		malformed.Inc()
		// Not err's text: it quotes the request (a header may hold a key), which logs may keep.
		writeJSON(ctx, fasthttp.StatusBadRequest, map[string]any{"detail": "Malformed HTTP request: the request line or a header cannot be parsed (control characters or bad framing)"})
	}
}

// headerTooLarge is the detail of a 431.
func headerTooLarge(maxHeader int) string {
	return "Request line and headers too large: the limit is " + strconv.Itoa(maxHeader) + " bytes, the query string included; send fewer or shorter values per call"
}

// CursorAhead is the 422 of a ledger cursor (a since or cursor naming an event_seq) ahead of
// the head, the newest event the service has: a page after it would be empty with the cursor
// echoed back, forever, so a consumer that sent a corrupted or foreign cursor would stall
// without a word. loc is where the cursor was sent (query since, body cursor).
func CursorAhead(cursor, head uint64, loc ...any) *Error {
	name := "cursor"
	if n := len(loc); n > 0 {
		if s, ok := loc[n-1].(string); ok {
			name = s
		}
	}
	return Invalid(problem.FieldError{Type: "less_than_equal", Loc: loc, Input: cursor, Ctx: map[string]any{"le": head},
		Msg: fmt.Sprintf("%s %d is ahead of the newest event %d; resume from next_cursor of your last page or 0", name, cursor, head)})
}
