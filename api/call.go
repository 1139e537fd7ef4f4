package api

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/oltp"
)

// Caller is who is calling, as the chain authenticated it.
type Caller struct {
	CustomerID string // empty for keyless calls
	AccountID  int64
	KeyID      int64
	Tier       string // tier_0..tier_3 or enterprise
	TierName   string
	Scopes     []string
	Demo       bool   // the shared public demo key: bills nothing, limited per IP, DemoPageLimit
	Keyless    bool   // no key at all (only routes marked Keyless)
	IP         string // client address used for per-IP limits
}

// Metered reports whether calls of this caller are metered and subject to quota and caps.
func (c Caller) Metered() bool { return !c.Demo && !c.Keyless }

// Plan is the caller's tier of the price list (the Free tier for keyless calls).
func (c Caller) Plan() plans.Tier {
	if t, ok := plans.ByID(c.Tier); ok {
		return t
	}
	t, _ := plans.ByID("tier_0")
	return t
}

// HandlerFunc serves one route after the chain admitted the call. It writes its answer with
// c.JSON / c.NoContent or returns an *Error (NotFound, Invalid, ...). units is what the call
// served in the route's meter class: rows for source_row routes, events for /v1/events, 1 for a
// created watch; it is ignored for MeterCall and non-billable routes. Units are metered only when
// the handler answered 200 or 201.
type HandlerFunc func(c *Call) (units int, err error)

// Call is one admitted request: the caller, the validated parameters and the body.
type Call struct {
	Ctx    *fasthttp.RequestCtx
	Route  *Route
	Caller Caller

	srv         *Server
	key         *admission.Key // nil for keyless calls
	vals        params         // validated parameters by name (validateParams)
	valsArr     [4]paramValue  // vals' first values, in the Call: no allocation for most routes
	body        json.RawMessage
	function    string
	forcedFresh bool
	notBilled   bool            // see NotBilled
	deadline    time.Time       // of store calls, set by startDeadline
	ctx         context.Context // ends at deadline; made by the first Context after startDeadline
	cancel      context.CancelFunc
	entered     entered // what enter counted in, for leave
}

// entered is what enter counted in for a call: its address's and its key's calls in flight.
type entered struct {
	ip  *addrCalls
	key *admission.Key
}

// Context is the context for store calls made by the chain and the handler: it ends
// Config.StoreTimeout (default 5 s) after the request was read, or when the server stops. A
// handler returning an error caused by it (Internal(err) included) answers 503. Do not use Ctx
// (the fasthttp request) as a context.
func (c *Call) Context() context.Context {
	if c.ctx == nil {
		if c.deadline.IsZero() {
			return c.srv.ctx
		}
		parent := c.srv.ctx
		if parent == nil { // a Server that was not started
			parent = context.Background()
		}
		c.ctx, c.cancel = context.WithDeadline(parent, c.deadline)
	}
	return c.ctx
}

// lazyContext is the call's Context made only once a callee uses it (Deadline, Done, Err or
// Value): the chain passes it to the admission and metering steps, which need a context only on
// their slow paths (a key not cached, a rate lease, a full queue), so a call served from memory
// makes no deadline timer. It is the Call itself, so passing it allocates nothing; like the Call,
// it is used by the call's goroutine (a store driver's watcher reads it only while the call waits
// on that store).
type lazyContext Call

func (l *lazyContext) Deadline() (time.Time, bool) { return (*Call)(l).Context().Deadline() }
func (l *lazyContext) Done() <-chan struct{}       { return (*Call)(l).Context().Done() }
func (l *lazyContext) Err() error                  { return (*Call)(l).Context().Err() }
func (l *lazyContext) Value(key any) any           { return (*Call)(l).Context().Value(key) }

// lazy is c's Context, made when first used (lazyContext).
func (c *Call) lazy() context.Context { return (*lazyContext)(c) }

// Now is the server's clock (Config.Now, default time.Now).
func (c *Call) Now() time.Time {
	if c.srv == nil { // a Call built without a server (the validation fuzz targets)
		return time.Now()
	}
	return c.srv.now()
}

// KeyAuth is the record of the presented key and its account (zero for keyless calls).
func (c *Call) KeyAuth() oltp.KeyAuth {
	if c.key == nil {
		return oltp.KeyAuth{}
	}
	return c.key.Auth
}

// FlushUsage moves what this instance metered into Postgres, so a usage read sees the caller's
// own calls (coalesced with concurrent usage reads), and drops the caller's account's cached spend.
func (c *Call) FlushUsage() error { return c.srv.flushUsageFor(c.Context(), c.Caller.AccountID) }

// ChangeKeys runs change, a transaction that revokes, rotates, pauses or resumes and sends token
// with its NOTIFY on oltp.AuthChannel. When it succeeds, ChangeKeys returns once every live
// instance dropped its cached keys, so the next call anywhere sees the change; when it fails, its
// error is returned.
func (c *Call) ChangeKeys(change func(token string) error) error {
	token, w := c.srv.auth.Expect(c.Context())
	if err := change(token); err != nil {
		c.srv.auth.Settle(token, nil)
		return err
	}
	c.srv.auth.Settle(token, w)
	return nil
}

// Int returns a validated integer parameter (path or query); ok is false when absent without a default.
func (c *Call) Int(name string) (v int64, ok bool) { v, ok = c.vals.get(name).(int64); return }

// Float returns a validated number parameter.
func (c *Call) Float(name string) (v float64, ok bool) { v, ok = c.vals.get(name).(float64); return }

// String returns a validated string parameter. A deprecated alias (role for q) is answered here
// under the current name.
func (c *Call) String(name string) (v string, ok bool) { v, ok = c.vals.get(name).(string); return }

// Strings returns every value of a repeatable parameter.
func (c *Call) Strings(name string) []string { v, _ := c.vals.get(name).([]string); return v }

// Bool returns a validated boolean parameter.
func (c *Call) Bool(name string) (v bool, ok bool) { v, ok = c.vals.get(name).(bool); return }

// Time returns a validated date-time parameter.
func (c *Call) Time(name string) (v time.Time, ok bool) { v, ok = c.vals.get(name).(time.Time); return }

// Limit is the validated page size (the route's default when absent); already capped for the demo key.
func (c *Call) Limit() int { v, _ := c.vals.get("limit").(int64); return int(v) }

// PageCap is the largest page the caller may ask for on a route whose maximum is max.
func (c *Call) PageCap(max int) int { return PageCap(c.Caller, max) }

// PageCap is the largest page caller may ask for on a route whose maximum is max: the demo key
// gets at most DemoPageLimit rows.
func PageCap(caller Caller, max int) int {
	if caller.Demo && max > DemoPageLimit {
		return DemoPageLimit
	}
	return max
}

// Decode unmarshals the request body (already checked against the route's Body) into dst.
func (c *Call) Decode(dst any) error {
	if len(c.body) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.body, dst); err != nil {
		return Invalid(problem.FieldError{Type: "model_type", Loc: problem.Loc("body"), Msg: "Input does not match the body schema: " + err.Error(), Input: nil})
	}
	return nil
}

// PresentedKey is the API key the call was authenticated with, as sent ("" for keyless calls):
// for answers that hand the caller's own key back (quickstart snippets). Never log it.
func (c *Call) PresentedKey() string {
	if c.Caller.Keyless {
		return ""
	}
	k, _ := presentedKey(c.Ctx)
	return k
}

// IsCSV reports whether the call is a text/csv upload to a route whose Body takes one (Body.CSV).
func (c *Call) IsCSV() bool {
	if c.Route.Body == nil || c.Route.Body.CSV == nil {
		return false
	}
	ct := strings.ToLower(strings.TrimSpace(string(c.Ctx.Request.Header.ContentType())))
	return ct == "text/csv" || strings.HasPrefix(ct, "text/csv;")
}

// CSVBody is the raw body of a text/csv upload (IsCSV); nil otherwise. It is valid only during
// the handler.
func (c *Call) CSVBody() []byte {
	if !c.IsCSV() {
		return nil
	}
	return c.Ctx.Request.Body()
}

// SetFunction records the function (taxonomy id) the call concerned, for usage by_function.
func (c *Call) SetFunction(fn string) { c.function = fn }

// ForcedFresh marks the call as having forced a fresh read (max_age), counted in usage.
func (c *Call) ForcedFresh() { c.forcedFresh = true }

// NotBilled marks a 200 of a billable route as one the caller is not billed for: an enrichment
// that found no company, free as companies/resolve is. It is still metered to the presented key
// (a usage record of the route's meter class, so the key's last use shows it) but with no call
// and no unit: the daily quota call is given back and the spend reservation settles to nothing.
func (c *Call) NotBilled() { c.notBilled = true }

// JSON writes a JSON answer.
func (c *Call) JSON(status int, v any) error {
	writeJSON(c.Ctx, status, v)
	return nil
}

// NoContent writes 204 with no body.
func (c *Call) NoContent() error {
	c.Ctx.SetStatusCode(fasthttp.StatusNoContent)
	c.Ctx.Response.ResetBody()
	c.Ctx.Response.Header.SetContentLength(0)
	return nil
}

// paramValue is one validated parameter.
type paramValue struct {
	name string
	v    any
}

// params are a call's validated parameters: a route has a handful, so a list searched in order
// is cheaper than a map made for every call.
type params []paramValue

// get is the value of name (nil when absent).
func (p params) get(name string) any {
	for i := range p {
		if p[i].name == name {
			return p[i].v
		}
	}
	return nil
}

// set gives name the value v (replacing the one it had).
func (p *params) set(name string, v any) {
	for i := range *p {
		if (*p)[i].name == name {
			(*p)[i].v = v
			return
		}
	}
	*p = append(*p, paramValue{name: name, v: v})
}
