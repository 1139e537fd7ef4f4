package search_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
)

// qualifiedBody is a reqs/qualified body with criteria.group.field = vals.
func qualifiedBody(t *testing.T, group, field string, vals any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"criteria": map[string]any{group: map[string]any{field: vals}}})
	require.NoError(t, err)
	return b
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// 100,000 bad req.function values (0.5 MB) sent with the public demo key answer a bounded 422,
// not one of 69 MB with every item repeating the function names: every criteria array is
// bounded, validation stops at MaxFieldErrors problems and a vocabulary is listed once.
func TestQualifiedBadFunctionFloodAnswersABounded422(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	post := func(body []byte) []problem.FieldError {
		t.Helper()
		r := fx.srv.Post(t, "/v1/reqs/qualified", api.PublicDemoKey, body)
		require.Equal(t, 422, r.Status, "%.300s", r.Body)
		require.Less(t, len(r.Body), 32<<10, "a bounded 422 for a %d-byte body", len(body))
		return r.Invalid(t).Detail
	}

	// Over the bound: one item, the values are neither looked at nor echoed.
	flood := qualifiedBody(t, "req", "function", repeat("nope", 100_000))
	require.Greater(t, len(flood), 500_000)
	items := post(flood)
	require.Len(t, items, 1)
	require.Equal(t, "too_long", items[0].Type)
	require.Equal(t, []any{"body", "criteria", "req", "function"}, items[0].Loc)
	require.EqualValues(t, criteria.MaxCriterionValues, items[0].Ctx["max_length"])

	// At the bound, every value bad: at most MaxFieldErrors items, the names listed once.
	items = post(qualifiedBody(t, "req", "function", repeat("nope", criteria.MaxCriterionValues)))
	require.LessOrEqual(t, len(items), problem.MaxFieldErrors+1) // the framework may add a count item
	require.GreaterOrEqual(t, len(items), problem.MaxFieldErrors)
	listed := 0
	for _, it := range items {
		if _, ok := it.Ctx["expected"]; ok || strings.Contains(it.Msg, "Engineering") {
			listed++
		}
	}
	require.Equal(t, 1, listed, "the function names are listed once")

	// Every other array is bounded too; company ids at MaxCompanyIDs.
	for _, c := range []struct {
		group, field string
		vals         any
		limit        int
	}{
		{"company", "company_id", repeat(1, criteria.MaxCompanyIDs+1), criteria.MaxCompanyIDs},
		{"company", "domain", repeat("acme.com", criteria.MaxCriterionValues+1), criteria.MaxCriterionValues},
		{"company", "headcount_band", repeat("huge", 100_000), criteria.MaxCriterionValues},
		{"req", "country", repeat("Germany", criteria.MaxCriterionValues+1), criteria.MaxCriterionValues},
		{"req", "q_excludes", repeat("senior", criteria.MaxCriterionValues+1), criteria.MaxCriterionValues},
	} {
		items := post(qualifiedBody(t, c.group, c.field, c.vals))
		require.Len(t, items, 1, c.field)
		require.Equal(t, "too_long", items[0].Type, c.field)
		require.EqualValues(t, c.limit, items[0].Ctx["max_length"], c.field)
	}
	// A string value over MaxValueLength is refused and echoed clipped.
	items = post(qualifiedBody(t, "company", "industry", []string{strings.Repeat("x", 500_000)}))
	require.Equal(t, "string_too_long", items[0].Type)
	// Unknown fields: bounded too, the allowed fields listed once.
	unknown := map[string]any{}
	for i := range 10_000 {
		unknown[fmt.Sprintf("no_such_field_%05d", i)] = 1
	}
	b, err := json.Marshal(map[string]any{"criteria": map[string]any{"req": unknown}})
	require.NoError(t, err)
	items = post(b)
	require.LessOrEqual(t, len(items), problem.MaxFieldErrors+1)
	withAllowed := 0
	for _, it := range items {
		if _, ok := it.Ctx["allowed"]; ok {
			withAllowed++
		}
	}
	require.Equal(t, 1, withAllowed)

	// Within the bounds the criteria are served.
	key := fx.srv.Account(t, "starter").Key
	ids := make([]uint64, 0, criteria.MaxCompanyIDs)
	for id := range fx.facts {
		ids = append(ids, id)
	}
	for len(ids) < criteria.MaxCompanyIDs {
		ids = append(ids, uint64(len(ids)+1))
	}
	fx.srv.Post(t, "/v1/reqs/qualified", key, qualifiedBody(t, "company", "company_id", ids)).Decode(t, 200, &qualifiedPage{})
}

// A q of 60 words whose last word matches nothing returns no companies: a lexer that read 48
// words and dropped the rest broke the rule that every word must match. A q over MaxQWords words
// or MaxQLength characters is 422 on every route that takes one, never cut.
func TestLongQIsRefusedNotCut(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	key := fx.srv.Account(t, "starter").Key
	long := strings.Repeat("engineer ", 59) + "zzqxnomatch"
	fits := strings.Repeat("engineer ", criteria.MaxQWords)
	for _, q := range []string{long, fits + "engineer", strings.Repeat("x", criteria.MaxQLength+1), strings.Repeat("evp ", 30)} {
		inv := fx.srv.Get(t, "/v1/reqs/search", key, url.Values{"q": {q}}).Invalid(t)
		require.Equal(t, []string{"query.q"}, inv.Locs(), "%.40s", q)
		inv = fx.srv.Get(t, "/v1/jobs/search", key, url.Values{"q": {q}}).Invalid(t)
		require.Equal(t, []string{"query.q"}, inv.Locs(), "%.40s", q)
		inv = fx.srv.Post(t, "/v1/reqs/qualified", key, qualifiedBody(t, "req", "q", q)).Invalid(t)
		require.Equal(t, []string{"body.criteria.req.q"}, inv.Locs(), "%.40s", q)
		inv = fx.srv.Post(t, "/v1/reqs/qualified", key, qualifiedBody(t, "req", "q_excludes", []string{q})).Invalid(t)
		require.Equal(t, []string{"body.criteria.req.q_excludes.0"}, inv.Locs(), "%.40s", q)
	}
	// Within the bounds every word is searched.
	p := getReqs[reqsPage](t, fx, key, url.Values{"q": {fits}})
	require.NotEmpty(t, p.Companies, "engineer matches titles")
	p = getReqs[reqsPage](t, fx, key, url.Values{"q": {strings.Repeat("engineer ", criteria.MaxQWords-1) + "zzqxnomatch"}})
	require.Empty(t, p.Companies, "the last word matches nothing")
}

// Repeatable query parameters of reqs/search and jobs/search are bounded like criteria arrays.
func TestRepeatedSearchParametersAreBounded(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	key := fx.srv.Account(t, "starter").Key
	inv := fx.srv.Get(t, "/v1/reqs/search", key, url.Values{"geo": repeat("Germany", criteria.MaxCriterionValues+1)}).Invalid(t)
	require.Equal(t, []string{"query.geo"}, inv.Locs())
	inv = fx.srv.Get(t, "/v1/jobs/search", key, url.Values{"industry": {strings.Repeat("x", criteria.MaxValueLength+1)}}).Invalid(t)
	require.Equal(t, []string{"query.industry.0"}, inv.Locs())
}

func getReqs[T any](t *testing.T, fx *fixture, key string, q url.Values) T {
	t.Helper()
	var v T
	fx.srv.Get(t, "/v1/reqs/search", key, q).Decode(t, 200, &v)
	return v
}
