package api

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/oltp"
)

// APIVersion is info.version of the OpenAPI document (spec 9).
const APIVersion = "0.1.0"

// statuses lists every status a route can answer: its handler's plus what the chain adds.
func (rt *Route) statuses() []int {
	out := append([]int{}, rt.Statuses...)
	out = append(out, 431) // any request whose line and headers pass MaxHeaderBytes
	if !rt.public {
		out = append(out, 403, 429, 500, 503)
		if !rt.Keyless {
			out = append(out, 401)
		}
		out = append(out, 422) // an undeclared query parameter is 422 on every route
		if rt.Body != nil {
			out = append(out, 408, 413)
		}
		if rt.Billable() {
			out = append(out, 402)
		}
		if rt.Idempotent {
			out = append(out, 409, 422)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var statusText = map[int]string{200: "OK", 400: "Bad request for its protocol", 201: "Created", 202: "Accepted (crawling or over_cap)", 204: "No Content", 304: "Not Modified (If-None-Match)", 401: "Missing API key",
	403: "Invalid or revoked API key, key without the route's scope, or (billable routes; a test delivery or a replay) account_paused", 402: "Daily quota, plan gate or spend cap exhausted",
	404: "Not found (another customer's id answers the same)", 408: "Request body not received within the body timeout",
	409: "A call with this Idempotency-Key is in progress, or its answer was not kept", 413: "Request body too large", 431: "Request line and headers (the query string included) over the server's limit",
	422: "Validation error: a bad parameter or body, or a query parameter the operation does not declare", 429: "Rate limited (rate_limited) or throttled (key_throttled)", 500: "Internal error", 503: "A store is unavailable"}

func errorSchemaFor(status int) map[string]any {
	switch status {
	case 402:
		return Ref("QuotaError")
	case 403:
		return Ref("ForbiddenError")
	case 422:
		return Ref("HTTPValidationError")
	case 429:
		return Ref("RateLimitError")
	}
	return Ref("ErrorMessage")
}

func intHeader(desc string, min int) map[string]any {
	return map[string]any{"description": desc, "schema": map[string]any{"type": "integer", "minimum": min}}
}

func (s *Server) operation(rt *Route) map[string]any {
	op := map[string]any{"operationId": rt.Name, "summary": rt.Summary, "tags": []string{rt.Tag}}
	switch {
	case rt.public:
		op["security"] = []any{}
	case rt.Keyless:
		op["security"] = []any{map[string]any{"ApiKeyHeader": []any{}}, map[string]any{"BearerAuth": []any{}}, map[string]any{}}
	}
	if !rt.public {
		op["x-billable"] = rt.Billable()
		if rt.Billable() {
			op["x-meter-class"] = string(rt.Meter)
		}
		op["x-keyless"] = rt.Keyless
		if rt.Scope != "" {
			op["x-scope"] = rt.Scope
		}
		if rt.Gate != "" {
			op["x-gated-endpoint"] = rt.Gate
		}
	}
	var params []any
	for _, p := range rt.Params {
		sch := ParamSchema(p)
		pm := map[string]any{"name": p.Name, "in": p.In, "required": p.Required, "schema": sch}
		desc := p.Description
		if (p.Name == "limit" || p.Rows) && p.Max != nil && *p.Max > DemoPageLimit {
			desc = strings.TrimSpace(desc + " The shared demo key is limited to " + strconv.Itoa(DemoPageLimit) + ".")
			pm["x-demo-maximum"] = DemoPageLimit
		}
		if p.AliasOf != "" {
			pm["deprecated"] = true
			desc += fmt.Sprintf(" Answered exactly as %s before %s 00:00 UTC; from then on (its Sunset) it is refused with 422 naming %s. Responses that saw it carry Deprecation and Sunset (an HTTP-date, GMT) headers. Sending both is 422.", p.AliasOf, p.Sunset, p.AliasOf)
		}
		if p.Repeatable {
			pm["style"], pm["explode"] = "form", true
		}
		if desc != "" {
			pm["description"] = strings.TrimSpace(desc)
		}
		params = append(params, pm)
	}
	if params != nil {
		op["parameters"] = params
	}
	if b := rt.Body; b != nil {
		props := map[string]any{}
		var req []string
		for _, f := range b.Fields {
			fs := FieldSchema(f)
			props[f.Name] = fs
			if f.Required {
				req = append(req, f.Name)
			}
		}
		sch := map[string]any{"type": "object", "properties": props, "additionalProperties": b.Open}
		if req != nil {
			sch["required"] = req
		}
		content := map[string]any{"application/json": map[string]any{"schema": sch}}
		desc := fmt.Sprintf("JSON, at most %d bytes (413 past it)", s.cfg.MaxBodyBytes)
		if b.CSV != nil {
			csvDoc := "a header row naming the columns (" + strings.Join(b.CSV, ", ") + "; any order, any case, others ignored), then one row per item"
			if b.CSVDoc != "" {
				csvDoc = b.CSVDoc
			}
			content["text/csv"] = map[string]any{"schema": map[string]any{"type": "string", "description": csvDoc}}
			desc = fmt.Sprintf("JSON or text/csv, at most %d bytes (413 past it)", s.cfg.MaxBodyBytes)
		}
		op["requestBody"] = map[string]any{"required": b.Required, "content": content, "description": desc, "x-max-body-bytes": s.cfg.MaxBodyBytes}
	}
	resps := map[string]any{}
	for _, st := range rt.statuses() {
		resp := map[string]any{"description": statusText[st]}
		if d, ok := rt.Describe[st]; ok {
			resp["description"] = d
		}
		switch {
		case st == 204 || st == 304 || (st == 202 && rt.mounted): // a mounted interface's 202 is its own: no body
		case st == 202:
			// Not the 200 body: a cold company (crawling, with the job to poll) or a free account
			// past its cost-to-serve cap (over_cap).
			accepted := map[string]any{"oneOf": []any{
				Object(map[string]any{"status": Enum("crawling"), "job_id": Type("integer"), "job_url": Type("string"), "company_id": Type("integer"), "message": Type("string")}),
				Object(map[string]any{"status": Enum("over_cap"), "company_id": Type("integer"), "limit": Type("integer"), "reset": DateTime(), "message": Type("string")}),
			}}
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": accepted}}
		case st < 300 && rt.media != "":
			resp["content"] = map[string]any{rt.media: map[string]any{"schema": Type("string")}}
		case st < 300 && rt.textBody:
			resp["content"] = map[string]any{"text/plain": map[string]any{"schema": Type("string")}}
		case st < 300:
			sch := rt.Response
			if sch == nil {
				sch = map[string]any{"type": "object"}
			}
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": sch}}
		case rt.ErrorBodies[st] != nil:
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": rt.ErrorBodies[st]}}
		default:
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": errorSchemaFor(st)}}
		}
		if !rt.public && !rt.mounted {
			h := historyHeaderDocs()
			switch st {
			case 409:
				h["Retry-After"] = intHeader("seconds to wait, when the conflict passes by itself: a request with the same Idempotency-Key still in flight, "+
					"or a daily budget spent (label_budget_exhausted, creation_budget_exhausted: also in detail.retry_after); absent otherwise", 1)
			case 503:
				h["Retry-After"] = intHeader(fmt.Sprintf("seconds to wait before retrying; on every 503: %d while a store is down or a read side is first being built, "+
					"1 when a store did not answer in time or the server is busy (other bodies, searches)", UnavailableRetryAfter), 1)
			}
			resp["headers"] = h
		}
		if rt.mounted && st == 429 { // Mount's protocol window and unknown-key budget; key_throttled sends none
			resp["headers"] = map[string]any{
				"RateLimit-Limit":     intHeader("requests allowed in the window; absent when reason is key_throttled", 1),
				"RateLimit-Remaining": intHeader("requests left in the window (0); absent when reason is key_throttled", 0),
				"RateLimit-Reset":     intHeader("seconds until the window resets; absent when reason is key_throttled", 1),
				"Retry-After":         intHeader("seconds to wait; absent when reason is key_throttled", 1),
			}
		}
		if !rt.public && !rt.mounted && (st == 200 || st == 201 || st == 429) {
			h := historyHeaderDocs()
			h["RateLimit-Limit"] = intHeader("calls allowed in the current 60-second window", 1)
			h["RateLimit-Remaining"] = intHeader("calls left in the window", 0)
			h["RateLimit-Reset"] = intHeader("seconds until the window resets", 1)
			if st == 429 {
				h["Retry-After"] = intHeader("seconds to wait; absent (with RateLimit-*) when reason is key_throttled", 1)
			}
			for _, p := range rt.Params {
				if p.AliasOf != "" && (st == 200 || st == 422) {
					h["Deprecation"] = map[string]any{"description": "sent when the deprecated " + p.Name + " parameter was used", "schema": Type("string")}
					h["Sunset"] = map[string]any{"description": "HTTP-date (IMF-fixdate, GMT) from which " + p.Name + " is refused with 422", "schema": Type("string")}
				}
			}
			h["Vary"] = map[string]any{"description": "Accept-Encoding, on every JSON answer", "schema": Type("string")}
			if s.cfg.CompressMinBytes >= 0 {
				h["Content-Encoding"] = map[string]any{"description": "zstd, br or gzip when the request's Accept-Encoding accepts one (q-values honoured) and the JSON answer is at least " +
					strconv.Itoa(s.cfg.CompressMinBytes) + " bytes; absent otherwise", "schema": Enum("zstd", "br", "gzip")}
			}
			resp["headers"] = h
		}
		if h, ok := resp["headers"].(map[string]any); ok && rt.Billable() && (st == 200 || st == 201 || st == 202) {
			h[UnitsChargedHeader] = intHeader("the units this call was metered in its meter class (x-meter-class; X-Meter-Class): rows for source_row, "+
				"events for change, 1 for watch; 0 for a per-call route (call), a 202, a call of the demo key and an answer replayed for an Idempotency-Key. "+
				"Its price is the plan's unit price of the class (GET /v1/pricing) once the month's credits are spent", 0)
			h[MeterClassHeader] = map[string]any{"description": "the meter class the units are of", "schema": Enum(string(rt.Meter))}
		}
		resps[strconv.Itoa(st)] = resp
	}
	op["responses"] = resps
	return op
}

func (s *Server) components() map[string]any {
	fieldErr := Object(map[string]any{"type": Type("string"), "loc": map[string]any{"type": "array", "items": map[string]any{"type": []any{"string", "integer"}}},
		"msg": Type("string"), "input": map[string]any{}, "ctx": Type("object")})
	quota := Object(map[string]any{"reason": Enum(ReasonQuotaExceeded, ReasonSpendCapExceeded),
		"quota":       Object(map[string]any{"limit": Type("integer"), "used": Type("integer"), "reset": Nullable(DateTime())}),
		"upgrade_url": Type("string"), "purchase_url": Type("string"), "endpoint": Type("string"), "message": Optional(Type("string")),
		"plan_gate": Optional(map[string]any{"type": "object", "additionalProperties": false, "description": "present only when the caller's plan does not include the route at all (reason stays quota_exceeded, " +
			"with quota limit 0 and used 0): the route's gated_endpoints entry, the caller's plan, every plan that includes it, and the cheapest sellable one (null when none is)",
			"properties": map[string]any{"gated_endpoint": Type("string"), "plan": Type("string"), "included_in": ArrayOf("string"), "upgrade_to": Nullable(Type("string"))},
			"required":   []string{"gated_endpoint", "plan", "included_in", "upgrade_to"}})})
	validation := Object(map[string]any{"detail": map[string]any{"type": "array", "items": fieldErr, "maxItems": problem.MaxFieldErrors,
		"description": fmt.Sprintf("at most %d items: past that the last item (type too_many_errors) counts the rest in ctx.omitted. A list of expected values "+
			"longer than %d characters is written once: later items expecting the same list carry ctx.expected_in, the index of the item listing it", problem.MaxFieldErrors, problem.LongVocab)}})
	return map[string]any{
		"securitySchemes": map[string]any{
			"ApiKeyHeader": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key"},
			"BearerAuth":   map[string]any{"type": "http", "scheme": "bearer", "description": "the same API key as Authorization: Bearer <key>"},
		},
		"schemas": map[string]any{
			"ErrorMessage":        Object(map[string]any{"detail": Type("string")}),
			"HTTPValidationError": validation,
			"QuotaDetail":         quota,
			"QuotaError":          Object(map[string]any{"detail": Ref("QuotaDetail")}),
			"RateLimitError": Object(map[string]any{"detail": Object(map[string]any{"reason": Enum(ReasonRateLimited, ReasonKeyThrottled), "endpoint": Type("string"),
				"signup_url": Optional(map[string]any{"type": "string", "description": "only on the demo key's limit"}), "message": Optional(Type("string"))})}),
			"ForbiddenError": Object(map[string]any{"detail": map[string]any{"oneOf": []any{
				map[string]any{"type": "string", "enum": []string{DetailInvalidKey}},
				Object(map[string]any{"reason": Enum(ReasonAccountPaused, ReasonInsufficientScope), "endpoint": Type("string"), "message": Type("string"), "required_scope": Optional(map[string]any{"type": "string", "description": "only with reason insufficient_scope"})}),
			}}}),
		},
	}
}

// bounds states the work and memory one call may cost, as this instance is configured.
func (s *Server) bounds() map[string]any {
	return map[string]any{
		"max_body_bytes": s.cfg.MaxBodyBytes, "max_header_bytes": s.cfg.MaxHeaderBytes, "max_items_default": DefaultMaxItems,
		"max_validation_errors": problem.MaxFieldErrors, "store_timeout_seconds": s.cfg.StoreTimeout.Seconds(),
		"read_header_timeout_seconds": s.cfg.ReadHeaderTimeout.Seconds(), "read_body_timeout_seconds": s.cfg.ReadBodyTimeout.Seconds(),
		"idempotency": map[string]any{"key_max_length": MaxIdempotencyKey, "key_pattern": PrintableASCII, "ttl_hours": oltp.IdempotencyTTL,
			"max_answer_bytes": s.cfg.IdempotencyBodyBytes, "max_customer_bytes": s.cfg.IdempotencyCustomerBytes,
			"max_wait_seconds": min(MaxIdempotencyWait, s.cfg.StoreTimeout).Seconds()},
	}
}

// OpenAPI generates the OpenAPI 3.1 document from the routes registered so far.
func (s *Server) OpenAPI() ([]byte, error) {
	paths := map[string]any{}
	for _, rt := range s.routes {
		p, ok := paths[rt.Path].(map[string]any)
		if !ok {
			p = map[string]any{}
			paths[rt.Path] = p
		}
		p[strings.ToLower(rt.Method)] = s.operation(rt)
	}
	perTier := map[string]int{}
	for _, t := range plans.All() {
		if t.PerMinute > 0 {
			perTier[t.ID] = t.PerMinute
		}
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "hiringsignal",
			"version": APIVersion,
			"description": "Hiring-signal API over deduplicated job postings. Authenticate with X-API-Key or Authorization: Bearer. " +
				"Decisions on what the spec leaves open: docs/decisions.md. Schema changes: GET /v1/changelog.",
		},
		"servers":    []any{map[string]any{"url": "/"}},
		"security":   []any{map[string]any{"ApiKeyHeader": []any{}}, map[string]any{"BearerAuth": []any{}}},
		"paths":      paths,
		"components": s.components(),
		"x-rate-limits": map[string]any{"window_seconds": plans.WindowSeconds, "per_key_by_tier": perTier, "enterprise_per_key_default": admission.EnterprisePerMinute,
			"keyless_per_ip": plans.KeylessPerMinute, "demo_key_per_ip": plans.KeylessPerMinute, "demo_page_limit": DemoPageLimit,
			"key_max_in_flight": s.cfg.KeyMaxInFlight, "ip_max_in_flight": s.cfg.IPMaxInFlight},
		"x-bounds": s.bounds(),
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("cannot generate the OpenAPI document: %w", err)
	}
	return b, nil
}

// ParamSchema is the JSON Schema of a parameter's value as the document states it (an array of
// them for a repeatable parameter). The agent tools' input schemas are built with it, so a tool
// and its route cannot disagree.
func ParamSchema(p Param) map[string]any {
	sch := map[string]any{}
	switch p.Type {
	case "date-time":
		sch = DateTime()
	default:
		sch["type"] = p.Type
	}
	if len(p.Enum) > 0 {
		sch["enum"] = p.Enum
	}
	if p.Min != nil {
		sch["minimum"] = *p.Min
	}
	if p.Max != nil {
		sch["maximum"] = *p.Max
	}
	if p.MinLength > 0 {
		sch["minLength"] = p.MinLength
	}
	if p.MaxLength > 0 {
		sch["maxLength"] = p.MaxLength
	}
	if p.ASCII {
		sch["pattern"] = PrintableASCII
	}
	if p.Default != nil {
		sch["default"] = p.Default
	}
	if p.Repeatable {
		sch = map[string]any{"type": "array", "items": sch, "maxItems": p.maxItems()}
	}
	return sch
}

// FieldSchema is the JSON Schema of a request body field as the document states it.
func FieldSchema(f Field) map[string]any {
	var fs map[string]any
	if f.Schema != nil {
		fs = map[string]any{}
		for k, v := range f.Schema {
			fs[k] = v
		}
	} else if f.Type == "array" {
		item := Type(f.Items)
		if len(f.Enum) > 0 {
			item["enum"] = f.Enum
		}
		fs = map[string]any{"type": "array", "items": item, "maxItems": f.maxItems()}
	} else {
		fs = Type(f.Type)
		if len(f.Enum) > 0 {
			fs["enum"] = f.Enum
		}
	}
	if f.Description != "" {
		fs["description"] = f.Description
	}
	if f.Forbidden {
		fs["deprecated"] = true
		fs["description"] = "Refused with 422: " + f.Description
	}
	return fs
}
