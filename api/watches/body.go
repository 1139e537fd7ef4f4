package watches

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/criteria"
)

// createBody is POST /v1/watches' body (the chain has checked the members' JSON types).
type createBody struct {
	CompanyID         *int64          `json:"company_id"`
	Criteria          json.RawMessage `json:"criteria"`
	WebhookEndpointID *int64          `json:"webhook_endpoint_id"`
	WebhookURL        *string         `json:"webhook_url"`
	Secret            *string         `json:"secret"`
	Q                 *string         `json:"q"`
	Geo               *string         `json:"geo"`
	EventTypes        *[]string       `json:"event_types"`
	MaxFiresPerHour   *int64          `json:"max_fires_per_hour"`
}

// validate checks everything that needs no store: what is watched (exactly one of company_id and
// criteria, q and geo folded into criteria), which endpoint is named (exactly one of
// webhook_endpoint_id and webhook_url), event_types and max_fires_per_hour, then the criteria
// vocabulary. The inline URL and secret are checked by the caller (webhooks' rules).
func (b *createBody) validate() (oltp.NewWatch, error) {
	var errs []problem.FieldError
	bad := func(msg string, input any, loc ...any) { errs = append(errs, problem.ValueError(input, msg, loc...)) }
	search := b.Criteria != nil || b.Q != nil || b.Geo != nil
	switch {
	case b.CompanyID != nil && search:
		bad("send exactly one of company_id and criteria (q and geo are shorthand for criteria.req.q and criteria.req.country): a watch is on one company or one saved search", nil, "body")
	case b.CompanyID == nil && !search:
		bad("send exactly one of company_id (one company) and criteria (one saved search; q and geo are shorthand for criteria.req.q and criteria.req.country)", nil, "body")
	case b.CompanyID != nil && *b.CompanyID < 1:
		errs = append(errs, problem.FieldError{Type: "greater_than_equal", Loc: problem.Loc("body", "company_id"), Msg: "Input should be greater than or equal to 1", Input: *b.CompanyID, Ctx: map[string]any{"ge": 1}})
	}
	switch {
	case b.WebhookEndpointID != nil && b.WebhookURL != nil:
		bad("send exactly one of webhook_endpoint_id (an endpoint registered with POST /v1/webhooks) and webhook_url (registered or reused here)", nil, "body")
	case b.WebhookEndpointID == nil && b.WebhookURL == nil:
		bad("send webhook_endpoint_id (an endpoint registered with POST /v1/webhooks) or webhook_url (registered or reused here)", nil, "body")
	}
	if b.Secret != nil && b.WebhookURL == nil {
		bad("secret goes with webhook_url only: an endpoint named by webhook_endpoint_id keeps its secret (change it with POST /v1/webhooks/{id}/rotate-secret)", nil, "body", "secret")
	}
	nw := oltp.NewWatch{CompanyID: b.CompanyID, EventTypes: api.DefaultWatchEventTypes, MaxFiresPerHour: api.DefaultWatchMaxFiresPerHour}
	if b.WebhookEndpointID != nil {
		nw.EndpointID = *b.WebhookEndpointID
	}
	if b.EventTypes != nil {
		if len(*b.EventTypes) == 0 {
			errs = append(errs, problem.FieldError{Type: "too_short", Loc: problem.Loc("body", "event_types"), Msg: "List should have at least 1 item after validation, not 0",
				Input: []string{}, Ctx: map[string]any{"min_length": 1}})
		}
		// In the vocabulary's order, each once (the chain checked every value is one of them).
		nw.EventTypes = nil
		for _, t := range criteria.EventTypes {
			if slices.Contains(*b.EventTypes, t) {
				nw.EventTypes = append(nw.EventTypes, t)
			}
		}
	}
	if m := b.MaxFiresPerHour; m != nil {
		if *m < MinMaxFiresPerHour || *m > MaxMaxFiresPerHour {
			errs = append(errs, problem.FieldError{Type: "less_than_equal", Loc: problem.Loc("body", "max_fires_per_hour"),
				Msg: fmt.Sprintf("Input should be between %d and %d", MinMaxFiresPerHour, MaxMaxFiresPerHour), Input: *m,
				Ctx: map[string]any{"ge": MinMaxFiresPerHour, "le": MaxMaxFiresPerHour}})
		} else {
			nw.MaxFiresPerHour = int(*m)
		}
	}
	if len(errs) > 0 {
		return nw, api.Invalid(errs...)
	}
	if !search {
		return nw, nil
	}
	doc, err := b.criteriaDoc()
	if err != nil {
		return nw, err
	}
	if _, items := criteria.Parse(doc, criteria.Watch); len(items) > 0 {
		for i := range items {
			items[i].Loc = b.inlineLoc(items[i].Loc)
		}
		return nw, api.Invalid(items...)
	}
	nw.Criteria = doc
	return nw, nil
}

// criteriaDoc is the criteria document to validate and store: criteria as sent, with q and geo
// set as req.q and req.country. Sending one of them and its criteria field too is 422; a
// criteria naming no field at all is 422 (it would fire on every req of the corpus).
func (b *createBody) criteriaDoc() (json.RawMessage, error) {
	if b.Q == nil && b.Geo == nil {
		if isEmpty(b.Criteria) {
			return nil, api.Invalid(problem.ValueError(b.Criteria, "criteria names no field: a watch on every req of the corpus is refused; name at least one field (e.g. req.q, req.function, company.company_id)", "body", "criteria"))
		}
		return b.Criteria, nil
	}
	groups := map[string]map[string]json.RawMessage{}
	if b.Criteria != nil {
		if json.Unmarshal(b.Criteria, &groups) != nil { // not groups of fields: Parse says why
			if _, items := criteria.Parse(b.Criteria, criteria.Watch); len(items) > 0 {
				return nil, api.Invalid(items...)
			}
			return nil, api.Invalid(problem.ValueError(nil, "criteria must be an object of groups (company, req, event), each an object of fields", "body", "criteria"))
		}
	}
	if groups["req"] == nil {
		groups["req"] = map[string]json.RawMessage{}
	}
	var errs []problem.FieldError
	set := func(v *string, field, name string) {
		if v == nil {
			return
		}
		if _, dup := groups["req"][field]; dup {
			errs = append(errs, problem.ValueError(*v, fmt.Sprintf("%s is shorthand for criteria.req.%s, which is set too: send one of them", name, field), "body", name))
			return
		}
		raw, _ := json.Marshal(*v)
		groups["req"][field] = raw
	}
	set(b.Q, "q", "q")
	set(b.Geo, "country", "geo")
	if len(errs) > 0 {
		return nil, api.Invalid(errs...)
	}
	doc, err := json.Marshal(groups)
	if err != nil {
		return nil, fmt.Errorf("cannot build the criteria document: %w", err)
	}
	return doc, nil
}

// inlineLoc reports a problem of a criteria field that q or geo set at q or geo (one string:
// no item index).
func (b *createBody) inlineLoc(loc []any) []any {
	if len(loc) < 4 || loc[0] != "body" || loc[1] != "criteria" || loc[2] != "req" {
		return loc
	}
	switch {
	case loc[3] == "q" && b.Q != nil:
		return problem.Loc("body", "q")
	case loc[3] == "country" && b.Geo != nil:
		return problem.Loc("body", "geo")
	}
	return loc
}

// isEmpty reports whether a criteria document names no field ({} or groups that are all {}).
func isEmpty(raw json.RawMessage) bool {
	var groups map[string]map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(raw), &groups) != nil {
		return false // not this shape: Parse says why
	}
	for _, fields := range groups {
		if len(fields) > 0 {
			return false
		}
	}
	return true
}
