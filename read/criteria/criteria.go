// Package criteria owns the closed criteria vocabulary that POST /v1/reqs/qualified and criteria
// watches share (spec 2.3): its fields and their documentation (Vocabulary, Doc, Schema), its
// validation into 422 items in the FastAPI shape (Parse, with the input bounds and the helpers
// the search routes reuse for their own parameters), and its matching (Criteria.Match, which asks
// the search index the same per-req question reqs/qualified asks), so a watch fires for a ledger
// event exactly when reqs/qualified would serve its req.
//
// It validates, resolves and matches; it does no I/O and holds no state beyond a Criteria's
// compiled form. It must not serve HTTP (no fasthttp, no handler package), read or write a store,
// or know about callers, plans or metering. Its 422 items are built with the leaf
// internal/problem (FieldError and the functions that build it); it must not import package api,
// which would link the HTTP server into the push side.
package criteria

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// Use is where a criteria object is used: the vocabularies differ by the event group.
type Use int

const (
	// Qualified is POST /v1/reqs/qualified: event.* is refused (422 with the advice in
	// Criterion.RefusedOnQualified).
	Qualified Use = iota
	// Watch is a criteria watch: event.function and event.event_type are allowed.
	Watch
)

// Criteria is a validated, resolved criteria object. Set Query's fields (if at all) before the
// first Match: the compiled form is cached. A Criteria is safe for concurrent use by Match.
type Criteria struct {
	// Query is the company and req groups resolved (what reqs/qualified runs), with the defaults
	// of the use: exclude_agencies true (for a watch, false when company.agency_kind is given),
	// live_only true on reqs/qualified and false for a watch (a closed req still matches its
	// closed event).
	Query          searchindex.QualifiedQuery
	EventFunctions []string // event.function resolved to taxonomy ids (nil: any)
	EventTypes     []string // event.event_type (nil: any)

	compiled *compiledCache // shared by copies; nil (a Criteria not from Parse): compiled per Match
}

// Parse validates raw (a JSON object, or empty/null meaning no criteria) against the vocabulary
// for use and resolves it. Problems are 422 items at body.criteria..., at most
// problem.MaxFieldErrors. Vocabulary errors (an unknown group or field, event.* on reqs/qualified)
// come first and alone: nothing else is looked at. A vocabulary (the allowed fields, an enum,
// the function names) is listed once, in the first item that needs it, so a large bad body costs
// bounded work and a bounded answer.
func Parse(raw json.RawMessage, use Use) (Criteria, []problem.FieldError) {
	c := Criteria{compiled: &compiledCache{}}
	c.Query.Filter.ExcludeAgencies = true
	c.Query.Filter.IncludeClosed = use == Watch
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return c, nil
	}
	var groups map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &groups); err != nil {
		return c, []problem.FieldError{{Type: "dict_type", Loc: problem.Loc("body", "criteria"), Msg: "Input should be an object of groups (company, req, event), each an object of fields", Input: nil, Ctx: map[string]any{}}}
	}
	vocab := map[string]Criterion{}
	var names []string
	for _, cr := range Vocabulary() {
		vocab[cr.Group+"."+cr.Name] = cr
		if !cr.refused(use) {
			names = append(names, cr.Group+"."+cr.Name)
		}
	}
	var p Problems
	listed := false // the allowed fields are listed in the first extra_forbidden item only
	forbidden := func(msg string, input string, loc ...any) {
		ctx := map[string]any{}
		if listed {
			msg += " (the allowed fields are listed in the first item)"
		} else {
			ctx["allowed"], listed = names, true
		}
		p.Add(problem.FieldError{Type: "extra_forbidden", Loc: loc, Msg: msg, Input: Clip(input), Ctx: ctx})
	}
	gnames := sortedKeys(groups)
	for _, g := range gnames {
		if p.Full() {
			break
		}
		if g != "company" && g != "req" && g != "event" {
			forbidden("Extra inputs are not permitted: the criteria groups are company, req and event", g, "body", "criteria", Clip(g))
			continue
		}
		for _, f := range sortedKeys(groups[g]) {
			if p.Full() {
				break
			}
			cr, ok := vocab[g+"."+f]
			switch {
			case !ok:
				forbidden(fmt.Sprintf("Extra inputs are not permitted: %s.%s is not in the criteria vocabulary", g, Clip(f)), f, "body", "criteria", g, Clip(f))
			case cr.refused(use):
				p.Add(problem.FieldError{Type: "value_error", Loc: problem.Loc("body", "criteria", g, f),
					Msg: "Value error, " + cr.RefusedOnQualified, Input: f, Ctx: map[string]any{"error": cr.RefusedOnQualified}})
			}
		}
	}
	if len(p.Items()) > 0 {
		return c, p.Items()
	}
	for _, g := range gnames {
		for _, f := range sortedKeys(groups[g]) {
			if p.Full() {
				return c, p.Items()
			}
			c.apply(vocab[g+"."+f], groups[g][f], &p)
		}
	}
	if use == Watch && c.Query.AgencyKinds != nil {
		c.Query.Filter.ExcludeAgencies = false
	}
	return c, p.Items()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
