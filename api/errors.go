package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
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

// Internal is a 500 that says nothing about the cause to the caller (the chain logs it).
func Internal(cause error) *Error {
	return &Error{Status: fasthttp.StatusInternalServerError, Detail: "Internal error: the request was not completed; retry later", cause: cause}
}

// Unavailable is a 503 naming what is down.
func Unavailable(what string, cause error) *Error {
	return &Error{Status: fasthttp.StatusServiceUnavailable, Detail: what + " is unavailable; retry later", cause: cause}
}

// FieldError is one item of a 422 detail, in the FastAPI shape.
type FieldError struct {
	Type  string         `json:"type"`
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx"`
}

// Invalid is the 422 answer carrying every field error.
func Invalid(items ...FieldError) *Error {
	for i := range items {
		if items[i].Ctx == nil {
			items[i].Ctx = map[string]any{}
		}
	}
	return &Error{Status: fasthttp.StatusUnprocessableEntity, Detail: items}
}

// Loc builds a loc array: the first element is body, query, path or header.
func Loc(parts ...any) []any { return parts }

// Missing is the FastAPI "missing" item.
func Missing(loc ...any) FieldError {
	return FieldError{Type: "missing", Loc: loc, Msg: "Field required", Input: nil}
}

// ValueError is a FastAPI "value_error" item with a message saying what to change.
func ValueError(input any, msg string, loc ...any) FieldError {
	return FieldError{Type: "value_error", Loc: loc, Msg: "Value error, " + msg, Input: input, Ctx: map[string]any{"error": msg}}
}

func enumMsg(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// EnumError is the FastAPI "enum" item.
func EnumError(input any, vals []string, loc ...any) FieldError {
	exp := enumMsg(vals)
	return FieldError{Type: "enum", Loc: loc, Msg: "Input should be " + exp, Input: input, Ctx: map[string]any{"expected": exp}}
}

// QuotaDetail is the 402 detail of spec 7 (also the dashboard's upgrade_prompt).
type QuotaDetail struct {
	Reason      string     `json:"reason"`
	Quota       QuotaState `json:"quota"`
	UpgradeURL  string     `json:"upgrade_url"`
	PurchaseURL string     `json:"purchase_url"`
	Endpoint    string     `json:"endpoint"`
	Message     string     `json:"message,omitempty"`
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
	writeJSON(ctx, e.Status, map[string]any{"detail": e.Detail})
}

// Handlers for requests that reach no route, with the wrong method or a body too large.
func notFoundHandler(ctx *fasthttp.RequestCtx) {
	writeJSON(ctx, fasthttp.StatusNotFound, map[string]any{"detail": "Not Found: no route " + string(ctx.Path()) + "; see /openapi.json"})
}

func methodNotAllowedHandler(ctx *fasthttp.RequestCtx) {
	writeJSON(ctx, fasthttp.StatusMethodNotAllowed, map[string]any{"detail": "Method Not Allowed: " + string(ctx.Method()) + " " + string(ctx.Path()) + " accepts " + string(ctx.Response.Header.Peek("Allow"))})
}

func serverErrorHandler(maxBody int) func(ctx *fasthttp.RequestCtx, err error) {
	return func(ctx *fasthttp.RequestCtx, err error) {
		if errors.Is(err, fasthttp.ErrBodyTooLarge) {
			writeJSON(ctx, fasthttp.StatusRequestEntityTooLarge, map[string]any{"detail": "Request body too large: the limit is " + strconv.Itoa(maxBody) + " bytes"})
			return
		}
		writeJSON(ctx, fasthttp.StatusBadRequest, map[string]any{"detail": "Malformed HTTP request: " + err.Error()})
	}
}
