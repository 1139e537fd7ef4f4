package criteria_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
)

// qualifiedFields are the fields reqs/qualified allows, as its extra_forbidden item lists them.
var qualifiedFields = []string{"company.company_id", "company.domain", "company.industry", "company.industry_terms",
	"company.headcount_band", "company.hq_country", "company.agency_kind", "req.q", "req.q_excludes", "req.function",
	"req.country", "req.source_type", "req.boards", "req.technologies", "req.seniority", "req.employment_type", "req.workplace_type", "req.since"}

// watchFields are the fields a watch allows: reqs/qualified's and the event group.
var watchFields = append(append([]string{}, qualifiedFields...), "event.function", "event.event_type")

// parse is Parse of a JSON text.
func parse(t *testing.T, raw string, use criteria.Use) (criteria.Criteria, []problem.FieldError) {
	t.Helper()
	return criteria.Parse(json.RawMessage(raw), use)
}

// refused parses raw for use and returns its 422 items (there must be some).
func refused(t *testing.T, raw string, use criteria.Use) []problem.FieldError {
	t.Helper()
	_, errs := parse(t, raw, use)
	require.NotEmpty(t, errs, raw)
	return errs
}

func loc(parts ...any) []any { return append([]any{"body", "criteria"}, parts...) }

func TestUnknownGroupsAndFieldsAreRefusedListingTheVocabularyOnce(t *testing.T) {
	t.Parallel()
	for use, allowed := range map[criteria.Use][]string{criteria.Qualified: qualifiedFields, criteria.Watch: watchFields} {
		require.Equal(t, []problem.FieldError{{Type: "extra_forbidden", Loc: loc("req", "colour"),
			Msg: "Extra inputs are not permitted: req.colour is not in the criteria vocabulary", Input: "colour",
			Ctx: map[string]any{"allowed": allowed}}}, refused(t, `{"req":{"colour":"blue"}}`, use))

		require.Equal(t, []problem.FieldError{
			{Type: "extra_forbidden", Loc: loc("event", "colour"), Msg: "Extra inputs are not permitted: event.colour is not in the criteria vocabulary",
				Input: "colour", Ctx: map[string]any{"allowed": allowed}},
			{Type: "extra_forbidden", Loc: loc("person"), Msg: "Extra inputs are not permitted: the criteria groups are company, req and event (the allowed fields are listed in the first item)",
				Input: "person", Ctx: map[string]any{}},
		}, refused(t, `{"person":{"name":"x"},"event":{"colour":1}}`, use))
	}
}

func TestEventFieldsAreRefusedOnQualifiedAndAllowedOnWatches(t *testing.T) {
	t.Parallel()
	require.Equal(t, []problem.FieldError{
		{Type: "value_error", Loc: loc("event", "event_type"), Msg: "Value error, event.event_type is for watches; read events with GET /v1/events",
			Input: "event_type", Ctx: map[string]any{"error": "event.event_type is for watches; read events with GET /v1/events"}},
		{Type: "value_error", Loc: loc("event", "function"), Msg: "Value error, event.function is for watches; on reqs/qualified use req.function",
			Input: "function", Ctx: map[string]any{"error": "event.function is for watches; on reqs/qualified use req.function"}},
	}, refused(t, `{"event":{"function":"Engineering","event_type":"opened"}}`, criteria.Qualified))

	c, errs := parse(t, `{"event":{"function":"Engineering","event_type":["opened","closed"]}}`, criteria.Watch)
	require.Empty(t, errs)
	ids, ok := normalize.ResolveFunction("Engineering")
	require.True(t, ok)
	require.Equal(t, ids, c.EventFunctions)
	require.Equal(t, []string{"opened", "closed"}, c.EventTypes)

	require.Equal(t, []problem.FieldError{problem.EnumError("moved", criteria.EventTypes, loc("event", "event_type", 0)...)},
		refused(t, `{"event":{"event_type":"moved"}}`, criteria.Watch))
	fe := refused(t, `{"event":{"function":["Astrology"]}}`, criteria.Watch)
	require.Len(t, fe, 1)
	require.Equal(t, loc("event", "function", 0), fe[0].Loc)
	require.Equal(t, normalize.FunctionNames(), fe[0].Ctx["expected"])
}

// Vocabulary errors come alone, before any other check.
func TestVocabularyErrorsComeAlone(t *testing.T) {
	t.Parallel()
	errs := refused(t, `{"req":{"colour":"blue","function":"Astrology","since":"yesterday"},"event":{"event_type":"opened"}}`, criteria.Qualified)
	require.Len(t, errs, 2)
	require.Equal(t, "value_error", errs[0].Type)
	require.Equal(t, loc("event", "event_type"), errs[0].Loc)
	require.Equal(t, "extra_forbidden", errs[1].Type)
	require.Equal(t, loc("req", "colour"), errs[1].Loc)
}

func TestWrongTypesAreRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw  string
		want []problem.FieldError
	}{
		{`[]`, []problem.FieldError{{Type: "dict_type", Loc: loc(), Msg: "Input should be an object of groups (company, req, event), each an object of fields", Ctx: map[string]any{}}}},
		{`{"req":1}`, []problem.FieldError{{Type: "dict_type", Loc: loc(), Msg: "Input should be an object of groups (company, req, event), each an object of fields", Ctx: map[string]any{}}}},
		{`{"req":{"q":5}}`, []problem.FieldError{{Type: "string_type", Loc: loc("req", "q"), Msg: "Input should be a valid string", Input: 5.0, Ctx: map[string]any{}}}},
		{`{"req":{"q":["a"]}}`, []problem.FieldError{{Type: "string_type", Loc: loc("req", "q"), Msg: "Input should be a valid string", Ctx: map[string]any{}}}},
		{`{"req":{"since":"yesterday"}}`, []problem.FieldError{{Type: "datetime_parsing", Loc: loc("req", "since"),
			Msg: "Input should be a valid datetime (ISO 8601, e.g. 2026-01-31T00:00:00Z)", Input: "yesterday", Ctx: map[string]any{}}}},
		{`{"company":{"company_id":"x"}}`, []problem.FieldError{{Type: "int_type", Loc: loc("company", "company_id"),
			Msg: "Input should be a positive integer or an array of positive integers", Input: "x", Ctx: map[string]any{}}}},
		{`{"company":{"company_id":[1,"x",1.5,0,{}]}}`, []problem.FieldError{
			{Type: "int_type", Loc: loc("company", "company_id", 1), Msg: "Input should be a positive integer or an array of positive integers", Input: "x", Ctx: map[string]any{}},
			{Type: "int_type", Loc: loc("company", "company_id", 2), Msg: "Input should be a positive integer or an array of positive integers", Input: 1.5, Ctx: map[string]any{}},
			{Type: "int_type", Loc: loc("company", "company_id", 3), Msg: "Input should be a positive integer or an array of positive integers", Input: 0.0, Ctx: map[string]any{}},
			{Type: "int_type", Loc: loc("company", "company_id", 4), Msg: "Input should be a positive integer or an array of positive integers", Ctx: map[string]any{}},
		}},
		{`{"req":{"boards":["indeed",true]}}`, []problem.FieldError{{Type: "string_type", Loc: loc("req", "boards", 1),
			Msg: "Input should be a string or an array of strings", Input: true, Ctx: map[string]any{}}}},
		{`{"req":{"function":[]}}`, []problem.FieldError{{Type: "too_short", Loc: loc("req", "function"),
			Msg: "List should have at least 1 item (omit the field to not filter on it)", Input: []any{}, Ctx: map[string]any{"min_length": 1}}}},
		{`{"req":{"country":["Germany","DE"]}}`, []problem.FieldError{{Type: "value_error", Loc: loc("req", "country", 1), Input: "DE",
			Msg: "Value error, 'DE' is a two-letter country code: " + criteria.CountryRule + ". Send 'Germany'",
			Ctx: map[string]any{"error": "'DE' is a two-letter country code: " + criteria.CountryRule + ". Send 'Germany'", "expected": "a country name", "suggestion": "Germany"}}}},
	} {
		require.Equal(t, c.want, refused(t, c.raw, criteria.Watch), c.raw)
	}
}

func TestBoundsAreRefusedNeverCut(t *testing.T) {
	t.Parallel()
	body := func(group, field string, v any) string {
		b, err := json.Marshal(map[string]any{group: map[string]any{field: v}})
		require.NoError(t, err)
		return string(b)
	}
	many := func(v any, n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	tooLong := func(field string, limit, n int) []problem.FieldError {
		g, f, _ := strings.Cut(field, ".")
		return []problem.FieldError{{Type: "too_long", Loc: loc(g, f), Msg: fmt.Sprintf("List should have at most %d items after validation, not %d", limit, n),
			Ctx: map[string]any{"field_type": "List", "max_length": limit, "actual_length": n}}}
	}
	require.Equal(t, tooLong("company.company_id", 1000, 1001), refused(t, body("company", "company_id", many(1, 1001)), criteria.Qualified))
	require.Equal(t, tooLong("req.function", 100, 100_000), refused(t, body("req", "function", many("nope", 100_000)), criteria.Qualified))
	require.Equal(t, tooLong("event.event_type", 100, 101), refused(t, body("event", "event_type", many("opened", 101)), criteria.Watch))
	_, errs := parse(t, body("company", "company_id", many(7, 1000)), criteria.Qualified)
	require.Empty(t, errs, "at the bound")

	long := strings.Repeat("x", 201)
	require.Equal(t, []problem.FieldError{{Type: "string_too_long", Loc: loc("company", "industry", 0), Msg: "String should have at most 200 characters",
		Input: strings.Repeat("x", 200) + "…", Ctx: map[string]any{"max_length": 200}}}, refused(t, body("company", "industry", long), criteria.Qualified))
	_, errs = parse(t, body("company", "industry", long[:200]), criteria.Qualified)
	require.Empty(t, errs)

	require.Equal(t, []problem.FieldError{{Type: "string_too_long", Loc: loc("req", "q_excludes", 0), Msg: "String should have at most 300 characters",
		Input: strings.Repeat("x", 200) + "…", Ctx: map[string]any{"max_length": 300}}}, refused(t, body("req", "q_excludes", strings.Repeat("x", 301)), criteria.Qualified))
	words := strings.Repeat("engineer ", 33)
	errs = refused(t, body("req", "q", words), criteria.Qualified)
	require.Len(t, errs, 1)
	require.Equal(t, "value_error", errs[0].Type)
	require.Equal(t, loc("req", "q"), errs[0].Loc)
	require.Equal(t, 32, errs[0].Ctx["max_words"])
	_, errs = parse(t, body("req", "q", strings.Repeat("engineer ", 32)), criteria.Qualified)
	require.Empty(t, errs)
}

// A field of bad values answers at most problem.MaxFieldErrors items, the vocabulary listed once.
func TestBadValuesListTheVocabularyOnceAndStopAtTheCap(t *testing.T) {
	t.Parallel()
	errs := refused(t, `{"company":{"headcount_band":["huge","tiny"]}}`, criteria.Qualified)
	require.Equal(t, []problem.FieldError{
		problem.EnumError("huge", normalize.HeadcountBands(), loc("company", "headcount_band", 0)...),
		{Type: "enum", Loc: loc("company", "headcount_band", 1), Msg: "Input should be one of the values listed in the first item of this field", Input: "tiny", Ctx: map[string]any{}},
	}, errs)

	errs = refused(t, `{"req":{"function":["Astrology","Alchemy"]}}`, criteria.Qualified)
	require.Len(t, errs, 2)
	require.Equal(t, normalize.FunctionNames(), errs[0].Ctx["expected"])
	require.Equal(t, problem.ValueError("Alchemy", "'Alchemy' is not a function name or taxonomy id (the names are listed in the first item of this field)",
		loc("req", "function", 1)...), errs[1])

	bad := make([]string, 100)
	for i := range bad {
		bad[i] = fmt.Sprintf("nope%d", i)
	}
	b, err := json.Marshal(map[string]any{"req": map[string]any{"function": bad}, "event": map[string]any{"function": bad}})
	require.NoError(t, err)
	errs = refused(t, string(b), criteria.Watch)
	require.Len(t, errs, problem.MaxFieldErrors)
}

func TestParseResolvesEveryField(t *testing.T) {
	t.Parallel()
	c, errs := parse(t, `{
		"company":{"company_id":[7,9],"domain":" Acme.COM ","industry":"Software","industry_terms":["soft"],"headcount_band":"51-200",
			"hq_country":"USA","agency_kind":["employer"]},
		"req":{"q":"backend engineer","q_excludes":["senior"],"function":"Engineering","country":["Germany"],"source_type":"board",
			"boards":["Indeed"],"seniority":["mid","staff"],"since":"2026-02-01T01:00:00+01:00"}}`, criteria.Qualified)
	require.Empty(t, errs)
	q := c.Query
	eng, _ := normalize.ResolveFunction("Engineering")
	require.Equal(t, []uint64{7, 9}, q.CompanyIDs)
	require.Equal(t, []string{"acme.com"}, q.Domains)
	require.Equal(t, []string{"Software"}, q.Filter.Industry)
	require.Equal(t, []string{"soft"}, q.Filter.IndustryTerms)
	require.Equal(t, []string{"51-200"}, q.Filter.Headcount)
	require.Equal(t, []string{"United States"}, q.HQCountries)
	require.Equal(t, []string{"employer"}, q.AgencyKinds)
	require.Equal(t, "backend engineer", q.Q)
	require.Equal(t, []string{"senior"}, q.QExcludes)
	require.Equal(t, eng, q.Filter.Functions)
	require.Equal(t, []string{"Germany"}, q.Filter.Countries)
	require.Equal(t, []string{"board"}, q.SourceTypes)
	require.Equal(t, []string{"Indeed"}, q.Boards)
	require.Equal(t, []string{"mid", "staff"}, q.Filter.Seniority)
	require.Equal(t, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), q.Filter.Since)
	require.Nil(t, c.EventTypes)
	require.Nil(t, c.EventFunctions)
}

// The defaults of each use: reqs/qualified's exclude_agencies and live_only, and for a watch
// closed reqs (their closed events) and, when company.agency_kind names kinds, those agencies.
func TestParseDefaultsPerUse(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{``, `null`, ` null `, `{}`, `{"req":{}}`} {
		c, errs := parse(t, raw, criteria.Qualified)
		require.Empty(t, errs, raw)
		require.True(t, c.Query.Filter.ExcludeAgencies, raw)
		require.False(t, c.Query.Filter.IncludeClosed, raw)
		c, errs = parse(t, raw, criteria.Watch)
		require.Empty(t, errs, raw)
		require.True(t, c.Query.Filter.ExcludeAgencies, raw)
		require.True(t, c.Query.Filter.IncludeClosed, raw)
	}
	c, _ := parse(t, `{"company":{"agency_kind":"staffing_agency"}}`, criteria.Watch)
	require.False(t, c.Query.Filter.ExcludeAgencies)
	c, _ = parse(t, `{"company":{"agency_kind":"staffing_agency"}}`, criteria.Qualified)
	require.True(t, c.Query.Filter.ExcludeAgencies, "reqs/qualified: the body's exclude_agencies decides")
}
