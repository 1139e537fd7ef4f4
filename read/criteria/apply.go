package criteria

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/internal/problem"
)

// maxSafeID is the largest integer a JSON number carries exactly (company ids are 48-bit).
const maxSafeID = 1 << 53

// apply checks one field's value against its type and bounds and resolves it into c, adding its
// problems to p. An array over its bound is one item and its values are not looked at; each
// later problem is about one value, echoed (clipped) on its own.
func (c *Criteria) apply(cr Criterion, raw json.RawMessage, p *Problems) {
	q := &c.Query
	loc := problem.Loc("body", "criteria", cr.Group, cr.Name)
	at := func(i int) []any { return append(append([]any{}, loc...), i) }
	var in any
	_ = json.Unmarshal(raw, &in) // raw is a member of an object already parsed: valid JSON
	switch cr.Type {
	case "string", "date-time":
		s, ok := in.(string)
		if !ok {
			p.Add(problem.FieldError{Type: "string_type", Loc: loc, Msg: "Input should be a valid string", Input: echo(in), Ctx: map[string]any{}})
			return
		}
		if cr.Type == "date-time" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				p.Add(problem.FieldError{Type: "datetime_parsing", Loc: loc, Msg: "Input should be a valid datetime (ISO 8601, e.g. 2026-01-31T00:00:00Z)", Input: Clip(s), Ctx: map[string]any{}})
				return
			}
			q.Filter.Since = t.UTC()
			return
		}
		if fe := CheckQ(s, loc...); fe != nil {
			p.Add(*fe)
			return
		}
		q.Q = s
		return
	}
	vals, isArr := in.([]any)
	if !isArr {
		vals = []any{in}
	}
	if n, limit := len(vals), cr.maxItems(); n > limit {
		p.Add(TooLong(n, limit, loc...))
		return
	}
	if len(vals) == 0 {
		p.Add(problem.FieldError{Type: "too_short", Loc: loc, Msg: "List should have at least 1 item (omit the field to not filter on it)", Input: []any{}, Ctx: map[string]any{"min_length": 1}})
		return
	}
	if cr.Type == "integers" {
		ids := make([]uint64, 0, len(vals))
		for i, v := range vals {
			n, ok := v.(float64)
			if !ok || n != math.Trunc(n) || n < 1 || n > maxSafeID {
				l := loc
				if isArr {
					l = at(i)
				}
				p.Add(problem.FieldError{Type: "int_type", Loc: l, Msg: "Input should be a positive integer or an array of positive integers", Input: echo(v), Ctx: map[string]any{}})
				if p.Full() {
					return
				}
				continue
			}
			ids = append(ids, uint64(n))
		}
		q.CompanyIDs = ids
		return
	}
	strs := make([]string, 0, len(vals))
	enumListed := false // the enum is listed in the field's first enum item only
	for i, v := range vals {
		var fe *problem.FieldError
		switch s, ok := v.(string); {
		case !ok:
			fe = &problem.FieldError{Type: "string_type", Loc: at(i), Msg: "Input should be a string or an array of strings", Input: echo(v), Ctx: map[string]any{}}
		case cr.Name == "q_excludes":
			fe = CheckQ(s, at(i)...)
		default:
			fe = CheckValue(s, at(i)...)
			if fe == nil && len(cr.Enum) > 0 && !slices.Contains(cr.Enum, s) {
				item := enumItem(s, cr.Enum, enumListed, at(i)...)
				fe, enumListed = &item, true
			}
		}
		if fe == nil {
			strs = append(strs, v.(string))
			continue
		}
		p.Add(*fe)
		if p.Full() {
			return
		}
	}
	if len(strs) < len(vals) {
		return
	}
	switch cr.Group + "." + cr.Name {
	case "company.domain":
		for _, v := range strs {
			q.Domains = append(q.Domains, strings.ToLower(strings.TrimSpace(v)))
		}
	case "company.industry":
		q.Filter.Industry = strs
	case "company.industry_terms":
		q.Filter.IndustryTerms = strs
	case "company.headcount_band":
		q.Filter.Headcount = strs
	case "company.hq_country":
		q.HQCountries = countries(strs, loc, p)
	case "company.agency_kind":
		q.AgencyKinds = strs
	case "req.q_excludes":
		q.QExcludes = strs
	case "req.function":
		q.Filter.Functions = functions(strs, at, p)
	case "req.country":
		q.Filter.Countries = countries(strs, loc, p)
	case "req.source_type":
		q.SourceTypes = strs
	case "req.boards":
		q.Boards = strs
	case "req.seniority":
		q.Filter.Seniority = strs
	case "req.technologies":
		slugs, errs := FactValues(FactTechnologies, strs, loc...)
		p.Add(errs...)
		q.Filter.Technologies = slugs
	case "req.employment_type":
		q.Filter.EmploymentTypes = strs
	case "req.workplace_type":
		q.Filter.WorkplaceTypes = strs
	case "event.function":
		c.EventFunctions = functions(strs, at, p)
	case "event.event_type":
		c.EventTypes = strs
	}
}

// countries resolves country names, adding the problems of bad ones to p.
func countries(vals []string, loc []any, p *Problems) []string {
	names, errs := CountryNames(vals, loc...)
	p.Add(errs...)
	return names
}

// functions resolves function names or taxonomy ids to taxonomy ids; the names are listed in the
// field's first bad value only.
func functions(vals []string, at func(int) []any, p *Problems) []string {
	var out []string
	listed := false
	for i, v := range vals {
		ids, fe := ResolveFunction(v, !listed, at(i)...)
		if fe != nil {
			listed = true
			p.Add(*fe)
			if p.Full() {
				return out
			}
		}
		out = append(out, ids...)
	}
	return out
}

// enumItem is the 422 item of a value outside an enum; once the field has one (listed), later
// items refer to it instead of listing the values again.
func enumItem(v string, enum []string, listed bool, loc ...any) problem.FieldError {
	if !listed {
		return problem.EnumError(v, enum, loc...)
	}
	return problem.FieldError{Type: "enum", Loc: loc, Msg: "Input should be one of the values listed in the first item of this field", Input: v, Ctx: map[string]any{}}
}

// echo is a value of the caller's body as a 422 item echoes it: strings clipped, arrays and
// objects not at all (their size is the caller's).
func echo(v any) any {
	switch x := v.(type) {
	case string:
		return Clip(x)
	case []any, map[string]any:
		return nil
	}
	return v
}
