package api

import (
	"time"

	"github.com/planehq/hiringsignal/oltp"
)

// MeterClass says how a route is metered; "" means not billable (never metered, never paused,
// no quota or spend cap).
type MeterClass string

// Meter classes (spec 1). MeterCall is a metered call that serves no unit (company reads): it
// counts against the daily quota but adds nothing to spend.
const (
	MeterNone      MeterClass = ""
	MeterCall      MeterClass = oltp.MeterCall
	MeterSourceRow MeterClass = oltp.MeterSourceRow
	MeterChange    MeterClass = oltp.MeterChange
	MeterWatch     MeterClass = oltp.MeterWatch
)

// Scopes of a key. read: every GET read and search; write: webhooks, watches, outcomes,
// quickstart, replays and imports; keys: key management, pause and resume.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
	ScopeKeys  = "keys"
)

// AllScopes are the values POST /v1/keys accepts.
var AllScopes = []string{ScopeRead, ScopeWrite, ScopeKeys}

// Param is one path, query or header parameter of a route. The chain validates it before the
// handler runs (422 in the FastAPI shape) and applies its default.
type Param struct {
	Name        string
	In          string // path, query or header
	Type        string // integer, number, string, boolean, date-time
	Required    bool
	Repeatable  bool // query only: repeating ORs the values; otherwise a repeat is 422
	Min, Max    *int64
	Default     any
	Enum        []string
	AliasOf     string // a deprecated name answered exactly as AliasOf
	Sunset      string // with AliasOf: date (YYYY-MM-DD); from 00:00 UTC of it the alias is refused (422 naming AliasOf)
	Description string
	MinLength   int  // string: fewest characters (0: no bound)
	MaxLength   int  // string: most characters (0: no bound)
	ASCII       bool // string: printable ASCII only (space to ~), pattern PrintableASCII
	MaxItems    int  // Repeatable: most values (0: DefaultMaxItems)
	// Rows marks an integer that sizes the rows of an answer besides limit (reqs/search's
	// matched_reqs): like limit, it is held to DemoPageLimit for the shared demo key.
	Rows bool
}

// DefaultMaxItems is the most values a repeatable parameter or an array body field takes when
// its route sets no MaxItems; more is 422 (too_long).
const DefaultMaxItems = 100

// PrintableASCII is the pattern of a string parameter marked ASCII, as the document states it.
const PrintableASCII = "^[ -~]*$"

func (p *Param) maxItems() int {
	if p.MaxItems > 0 {
		return p.MaxItems
	}
	return DefaultMaxItems
}

// Field is one member of a JSON request body.
type Field struct {
	Name        string
	Type        string // string, integer, number, boolean, object, array
	Items       string // element type of an array
	Enum        []string
	Required    bool
	Forbidden   bool // present in the contract only to be refused (422), e.g. tier on POST /v1/keys
	Description string
	MaxItems    int // array: most elements (0: DefaultMaxItems)
	// Schema, when set, is the field's JSON Schema in the document instead of the one built from
	// Type, Items and Enum (a nested document such as criteria, or a range); the chain still
	// checks Type and the handler the rest.
	Schema map[string]any
	// Sensitive fields (a secret) are never echoed: a 422 about them carries input null.
	Sensitive bool
}

func (f *Field) maxItems() int {
	if f.MaxItems > 0 {
		return f.MaxItems
	}
	return DefaultMaxItems
}

// Body describes a JSON request body.
type Body struct {
	Required bool
	Fields   []Field
	Open     bool // accepts fields not listed (shapes the spec does not show yet)
	// CSV, when set, names the columns of a text/csv upload the route also takes instead of the
	// JSON body: a request with Content-Type text/csv skips the JSON checks and the handler reads
	// Call.CSVBody (the document lists text/csv beside application/json).
	CSV []string
	// CSVDoc, when set, is how the document describes the text/csv upload instead of the
	// default (a header row naming the CSV columns, any order, any case, others ignored).
	CSVDoc string
}

// Route is one operation of the API and its handler. Handler packages declare their routes next
// to their response types and register them with Server.Register; the router, the chain and the
// OpenAPI document are all built from the routes registered, so a route is served and documented
// exactly when its handler exists.
type Route struct {
	Name       string // operation id
	Method     string
	Path       string
	Summary    string
	Tag        string
	Meter      MeterClass
	Keyless    bool   // callable without a key (per-IP limit)
	Scope      string // scope the key needs; "" for any key
	Gate       string // entry of a plan's gated_endpoints the route needs; "" when ungated
	Idempotent bool   // honours Idempotency-Key (the header parameter is added on registration)
	Params     []Param
	Body       *Body
	Statuses   []int          // what the handler itself answers (the chain adds its own)
	Response   map[string]any // JSON Schema of the success body; nil = an object not detailed yet
	// ErrorBodies are the JSON Schemas of error bodies that differ from the chain's for their
	// status (e.g. a 409 whose detail is an object), keyed by status.
	ErrorBodies map[int]map[string]any
	// Describe holds the descriptions of statuses whose meaning on this route differs from the
	// chain's (a mounted interface's own answers), keyed by status.
	Describe map[int]string
	Handler  HandlerFunc // serves the call once the chain admitted it

	public   bool   // this package's own routes outside the /v1 chain: no key, no limit (health, readiness, OpenAPI)
	mounted  bool   // served by a handler of its own behind key authentication (Mount), outside the chain
	textBody bool   // the success body is text/plain (the operator metrics), not JSON
	media    string // the success body's media type when it is neither JSON nor text/plain (the reference at /docs)
}

// Billable reports whether the route is metered (pause, quota and spend cap apply).
func (r *Route) Billable() bool { return r.Meter != MeterNone }

// DemoPageLimit is the largest page the shared demo key gets on any paged route.
const DemoPageLimit = 5

// MaxIdempotencyKey is the longest Idempotency-Key (printable ASCII, at least one character).
const MaxIdempotencyKey = 255

// idempotencyKey is the header parameter of every Idempotent route.
func idempotencyKey() Param {
	return Param{Name: "Idempotency-Key", In: "header", Type: "string", MinLength: 1, MaxLength: MaxIdempotencyKey, ASCII: true,
		Description: "1 to 255 printable ASCII characters; the same key and request within 24 h answers the stored response, metered once"}
}

// publicRoutes are the routes this package serves itself, outside the /v1 chain.
func publicRoutes() []*Route {
	return []*Route{
		{Name: "healthz", Method: "GET", Path: "/healthz", Summary: "Process is up", Tag: "health", public: true, Statuses: []int{200},
			Response: Object(map[string]any{"status": Enum("ok")})},
		{Name: "readyz", Method: "GET", Path: "/readyz", Summary: "Both stores answer and are migrated", Tag: "health", public: true, Statuses: []int{200, 503},
			Response:    Object(map[string]any{"status": Enum("ready")}),
			ErrorBodies: map[int]map[string]any{503: Object(map[string]any{"status": Enum("unavailable"), "detail": map[string]any{"type": "string", "description": "names the stores that do not answer, never why"}})}},
		{Name: "openapi", Method: "GET", Path: "/openapi.json", Summary: "This OpenAPI 3.1 document", Tag: "meta", public: true, Statuses: []int{200},
			Response: map[string]any{"type": "object", "description": "an OpenAPI 3.1 document (its own schema: https://spec.openapis.org/oas/3.1/schema)"}},
		{Name: "metrics", Method: "GET", Path: "/metrics", Summary: "Operator metrics in the Prometheus text format (counts and latencies, no customer data)", Tag: "health", public: true, textBody: true, Statuses: []int{200}},
	}
}

// sunsetTime is the start (00:00 UTC) of p's Sunset date; ok is false when p has none.
func (p *Param) sunsetTime() (time.Time, bool) {
	if p.Sunset == "" {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02", p.Sunset)
	return t.UTC(), err == nil
}
