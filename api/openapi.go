package api

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/plans"
)

// APIVersion is info.version of the OpenAPI document (spec 9).
const APIVersion = "0.1.0"

func typ(t string) map[string]any { return map[string]any{"type": t} }
func dt() map[string]any          { return map[string]any{"type": "string", "format": "date-time"} }
func arr(item string) map[string]any {
	return map[string]any{"type": "array", "items": typ(item)}
}
func enum(vals ...string) map[string]any { return map[string]any{"type": "string", "enum": vals} }
func nullable(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []any{s["type"], "null"}
	return out
}
func obj(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}
func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func usageSchema() map[string]any {
	counts := map[string]any{"type": "object", "additionalProperties": typ("integer")}
	key := obj(map[string]any{"key_id": typ("integer"), "calls": typ("integer"), "source_rows": typ("integer"), "changes": typ("integer"),
		"watches": typ("integer"), "delivered_changes": typ("integer"), "forced_fresh": typ("integer"), "by_meter_class": counts, "by_function": counts})
	s := obj(map[string]any{"window": typ("integer"), "since": dt(), "calls": typ("integer"), "source_rows": typ("integer"), "changes": typ("integer"),
		"watches": typ("integer"), "delivered_changes": typ("integer"), "forced_fresh": typ("integer"), "by_meter_class": counts, "by_function": counts,
		"referral_credit_units": typ("integer"), "sla_credit_units": typ("integer"), "keys": map[string]any{"type": "array", "items": key}})
	s["description"] = "Each of calls, source_rows, changes, watches and delivered_changes equals the sum over keys[]; keys[] lists keys with metered events in the window, ascending by key_id."
	return s
}

func dashboardSchema() map[string]any {
	return obj(map[string]any{
		"account_id": typ("integer"), "tier": typ("string"), "tier_name": typ("string"), "account_status": enum("active", "paused"), "paused": typ("boolean"),
		"keys": map[string]any{"type": "array", "items": obj(map[string]any{"key_id": typ("integer"), "display": typ("string"), "used": typ("integer"),
			"quota": nullable(typ("integer")), "status": enum(StatusGreen, StatusAmber, StatusRed), "reset": nullable(dt())})},
		"spend_cap": obj(map[string]any{"account_used": typ("integer"), "account_soft_cap": nullable(typ("integer")), "account_hard_cap": nullable(typ("integer")),
			"status": enum("ok", "soft_cap_reached", "hard_cap_reached"), "reset": dt()}),
		"upgrade_prompt":            map[string]any{"oneOf": []any{ref("QuotaDetail"), typ("null")}},
		"expansion_nudge_triggered": typ("boolean"),
		"free_tier": map[string]any{"oneOf": []any{obj(map[string]any{"changes_allowance": typ("integer"), "changes_used": typ("integer"),
			"changes_wall_reached": typ("boolean"), "watches_allowance": typ("integer"), "watches_used": typ("integer")}), typ("null")}},
		"blocked_deliveries": obj(map[string]any{"wall_blocked": typ("integer"), "cap_blocked": typ("integer")}),
	})
}

func pricingSchema() map[string]any {
	num := nullable(typ("number"))
	tier := obj(map[string]any{"name": typ("string"), "tier_id": nullable(typ("string")), "monthly_amount": num, "currency": typ("string"),
		"sellable": typ("boolean"), "daily_quota": nullable(typ("integer")), "gated_endpoints": arr("string"),
		"default_hard_cap_units": nullable(typ("integer")), "default_soft_cap_units": nullable(typ("integer")),
		"bundle": map[string]any{"oneOf": []any{obj(map[string]any{"watches": typ("integer"), "fires": typ("integer"), "credits": typ("integer")}), typ("null")}}})
	return obj(map[string]any{
		"tiers":        map[string]any{"type": "array", "items": tier},
		"source_price": obj(map[string]any{"amount_per_weighted_unit": typ("number"), "currency": typ("string"), "weighted_unit": typ("string"), "weight": typ("integer")}),
		"rate_limits": obj(map[string]any{"window_seconds": typ("integer"), "per_key_by_tier": map[string]any{"type": "object", "additionalProperties": typ("integer")},
			"keyless_per_ip": typ("integer")}),
		"compliance": obj(map[string]any{"headline": typ("string"), "summary": typ("string"), "statement_url": typ("string")}),
	})
}

// statuses lists every status a route can answer: its handler's plus what the chain adds.
func (r *route) statuses() []int {
	rt := r.rt
	out := append([]int{}, rt.Statuses...)
	if !rt.Public {
		out = append(out, 403, 429, 500, 503)
		if !rt.Keyless {
			out = append(out, 401)
		}
		if len(rt.Params) > 0 || rt.Body != nil {
			out = append(out, 422)
		}
		if rt.Body != nil {
			out = append(out, 413)
		}
		if rt.Billable() {
			out = append(out, 402)
		}
		if rt.Idempotent {
			out = append(out, 409, 422)
		}
		if r.h == nil {
			out = append(out, 501)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var statusText = map[int]string{200: "OK", 201: "Created", 202: "Accepted (crawling or over_cap)", 204: "No Content", 401: "Missing API key",
	403: "Invalid or revoked API key, key without the route's scope, or (billable routes) account_paused", 402: "Daily quota, plan gate or spend cap exhausted",
	404: "Not found (another customer's id answers the same)", 409: "A call with this Idempotency-Key is in progress", 413: "Request body too large",
	422: "Validation error", 429: "Rate limited (rate_limited) or throttled (key_throttled)", 500: "Internal error", 501: "Not built yet", 503: "A store is unavailable"}

func errorSchemaFor(status int) map[string]any {
	switch status {
	case 402:
		return ref("QuotaError")
	case 403:
		return ref("ForbiddenError")
	case 422:
		return ref("HTTPValidationError")
	case 429:
		return ref("RateLimitError")
	}
	return ref("ErrorMessage")
}

func intHeader(desc string, min int) map[string]any {
	return map[string]any{"description": desc, "schema": map[string]any{"type": "integer", "minimum": min}}
}

func (s *Server) operation(r *route) map[string]any {
	rt := r.rt
	op := map[string]any{"operationId": rt.Name, "summary": rt.Summary, "tags": []string{rt.Tag}}
	switch {
	case rt.Public:
		op["security"] = []any{}
	case rt.Keyless:
		op["security"] = []any{map[string]any{"ApiKeyHeader": []any{}}, map[string]any{"BearerAuth": []any{}}, map[string]any{}}
	}
	if !rt.Public {
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
		if r.h == nil {
			op["x-not-built-yet"] = rt.Issue
		}
	}
	var params []any
	for _, p := range rt.Params {
		sch := map[string]any{}
		switch p.Type {
		case "date-time":
			sch = dt()
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
		if p.Default != nil {
			sch["default"] = p.Default
		}
		if p.Repeatable {
			sch = map[string]any{"type": "array", "items": sch}
		}
		pm := map[string]any{"name": p.Name, "in": p.In, "required": p.Required, "schema": sch}
		desc := p.Description
		if p.Name == "limit" && p.Max != nil && *p.Max > DemoPageLimit {
			desc = strings.TrimSpace(desc + " The shared demo key is limited to " + strconv.Itoa(DemoPageLimit) + ".")
			pm["x-demo-maximum"] = DemoPageLimit
		}
		if p.AliasOf != "" {
			pm["deprecated"] = true
			desc += fmt.Sprintf(" Answered exactly as %s until %s; responses carry Deprecation and Sunset headers. Sending both is 422.", p.AliasOf, p.Sunset)
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
			var fs map[string]any
			if f.Type == "array" {
				item := typ(f.Items)
				if len(f.Enum) > 0 {
					item["enum"] = f.Enum
				}
				fs = map[string]any{"type": "array", "items": item}
			} else {
				fs = typ(f.Type)
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
			props[f.Name] = fs
			if f.Required {
				req = append(req, f.Name)
			}
		}
		sch := map[string]any{"type": "object", "properties": props, "additionalProperties": b.Open}
		if req != nil {
			sch["required"] = req
		}
		op["requestBody"] = map[string]any{"required": b.Required, "content": map[string]any{"application/json": map[string]any{"schema": sch}}}
	}
	resps := map[string]any{}
	for _, st := range r.statuses() {
		resp := map[string]any{"description": statusText[st]}
		switch {
		case st == 204:
		case st == 202:
			// Not the 200 body: a cold company (crawling, with the job to poll) or a free account
			// past its cost-to-serve cap (over_cap).
			accepted := obj(map[string]any{"status": enum("crawling", "over_cap"), "job_id": typ("integer"),
				"job_url": typ("string"), "message": typ("string"), "company_id": typ("integer"),
				"limit": typ("integer"), "reset": dt()})
			accepted["required"] = []string{"status"}
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": accepted}}
		case st < 300:
			sch := rt.Response
			if sch == nil {
				sch = map[string]any{"type": "object"}
			}
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": sch}}
		default:
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": errorSchemaFor(st)}}
		}
		if !rt.Public && (st == 200 || st == 201 || st == 429) {
			h := map[string]any{}
			h["RateLimit-Limit"] = intHeader("calls allowed in the current 60-second window", 1)
			h["RateLimit-Remaining"] = intHeader("calls left in the window", 0)
			h["RateLimit-Reset"] = intHeader("seconds until the window resets", 1)
			if st == 429 {
				h["Retry-After"] = intHeader("seconds to wait; absent (with RateLimit-*) when reason is key_throttled", 1)
			}
			for _, p := range rt.Params {
				if p.AliasOf != "" && st == 200 {
					h["Deprecation"] = map[string]any{"description": "sent when the deprecated " + p.Name + " parameter was used", "schema": typ("string")}
					h["Sunset"] = map[string]any{"description": "HTTP date after which " + p.Name + " is refused", "schema": typ("string")}
				}
			}
			resp["headers"] = h
		}
		resps[strconv.Itoa(st)] = resp
	}
	op["responses"] = resps
	return op
}

func (s *Server) components() map[string]any {
	fieldErr := obj(map[string]any{"type": typ("string"), "loc": map[string]any{"type": "array", "items": map[string]any{"type": []any{"string", "integer"}}},
		"msg": typ("string"), "input": map[string]any{}, "ctx": typ("object")})
	fieldErr["required"] = []string{"type", "loc", "msg", "input"}
	quota := obj(map[string]any{"reason": enum(ReasonQuotaExceeded, ReasonSpendCapExceeded),
		"quota":       obj(map[string]any{"limit": typ("integer"), "used": typ("integer"), "reset": nullable(dt())}),
		"upgrade_url": typ("string"), "purchase_url": typ("string"), "endpoint": typ("string"), "message": typ("string")})
	quota["required"] = []string{"reason", "endpoint"}
	return map[string]any{
		"securitySchemes": map[string]any{
			"ApiKeyHeader": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key"},
			"BearerAuth":   map[string]any{"type": "http", "scheme": "bearer", "description": "the same API key as Authorization: Bearer <key>"},
		},
		"schemas": map[string]any{
			"ErrorMessage":        obj(map[string]any{"detail": typ("string")}),
			"HTTPValidationError": obj(map[string]any{"detail": map[string]any{"type": "array", "items": fieldErr}}),
			"QuotaDetail":         quota,
			"QuotaError":          obj(map[string]any{"detail": ref("QuotaDetail")}),
			"RateLimitError": obj(map[string]any{"detail": obj(map[string]any{"reason": enum(ReasonRateLimited, ReasonKeyThrottled), "endpoint": typ("string"),
				"signup_url": map[string]any{"type": "string", "description": "only on the demo key's limit"}, "message": typ("string")})}),
			"ForbiddenError": obj(map[string]any{"detail": map[string]any{"oneOf": []any{
				map[string]any{"type": "string", "enum": []string{DetailInvalidKey}},
				obj(map[string]any{"reason": enum(ReasonAccountPaused, ReasonInsufficientScope), "endpoint": typ("string"), "message": typ("string"), "required_scope": typ("string")}),
			}}}),
		},
	}
}

// OpenAPI generates the OpenAPI 3.1 document from the contract and the handlers set so far.
func (s *Server) OpenAPI() ([]byte, error) {
	paths := map[string]any{}
	for _, r := range s.order {
		p, ok := paths[r.rt.Path].(map[string]any)
		if !ok {
			p = map[string]any{}
			paths[r.rt.Path] = p
		}
		p[strings.ToLower(r.rt.Method)] = s.operation(r)
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
		"x-rate-limits": map[string]any{"window_seconds": plans.WindowSeconds, "per_key_by_tier": perTier, "enterprise_per_key_default": EnterprisePerMinute,
			"keyless_per_ip": plans.KeylessPerMinute, "demo_key_per_ip": plans.KeylessPerMinute, "demo_page_limit": DemoPageLimit,
			"key_max_in_flight": s.cfg.KeyMaxInFlight},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("cannot generate the OpenAPI document: %w", err)
	}
	return b, nil
}
