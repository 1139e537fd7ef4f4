package criteria_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/read/criteria"
)

// The posting-fact fields resolve to the one vocabulary: technologies by slug or name, any case;
// the others exactly. A value outside it is 422 listing the vocabulary once; more than 20 values
// is 422 before any is looked at.
func TestPostingFactFieldsShareOneVocabulary(t *testing.T) {
	t.Parallel()
	for _, use := range []criteria.Use{criteria.Qualified, criteria.Watch} {
		c, errs := parse(t, `{"req":{"technologies":["Go","kubernetes","PostgreSQL"],"seniority":"senior","employment_type":["full_time","contract"],"workplace_type":"remote"}}`, use)
		require.Empty(t, errs)
		f := c.Query.Filter
		require.Equal(t, []string{"go", "kubernetes", "postgresql"}, f.Technologies)
		require.Equal(t, []string{"senior"}, f.Seniority)
		require.Equal(t, []string{"full_time", "contract"}, f.EmploymentTypes)
		require.Equal(t, []string{"remote"}, f.WorkplaceTypes)
	}

	errs := refused(t, `{"req":{"technologies":["go","cobolt","fortan"]}}`, criteria.Qualified)
	require.Len(t, errs, 2)
	require.Equal(t, loc("req", "technologies", 1), errs[0].Loc)
	require.Equal(t, criteria.Technologies(), errs[0].Ctx["expected"], "the first bad value lists every slug")
	require.NotContains(t, errs[1].Ctx, "expected", "listed once")

	errs = refused(t, `{"req":{"workplace_type":["remote","office"]}}`, criteria.Watch)
	require.Len(t, errs, 1)
	require.Equal(t, "enum", errs[0].Type)
	require.Contains(t, errs[0].Msg, "'onsite', 'hybrid' or 'remote'")

	many := "["
	for i := range criteria.MaxFactValues + 1 {
		if i > 0 {
			many += ","
		}
		many += fmt.Sprintf("%q", "go")
	}
	errs = refused(t, `{"req":{"technologies":`+many+`]}}`, criteria.Qualified)
	require.Equal(t, "too_long", errs[0].Type)
	require.Equal(t, criteria.MaxFactValues, errs[0].Ctx["max_length"])
}

// The query parameters of the search routes resolve through the same parser.
func TestFactValuesForQueryParameters(t *testing.T) {
	t.Parallel()
	got, errs := criteria.FactValues(criteria.FactTechnologies, []string{"React", "node.js"}, "query", "technologies")
	require.Empty(t, errs)
	require.Equal(t, []string{"react", "nodejs"}, got)
	_, errs = criteria.FactValues(criteria.FactSeniority, []string{"guru"}, "query", "seniority")
	require.Len(t, errs, 1)
	require.Equal(t, []any{"query", "seniority"}, errs[0].Loc, "a single query value's item is at the parameter")
	for _, name := range criteria.FactFilterNames {
		require.NotEmpty(t, criteria.FactValuesOf(name))
		require.NotEmpty(t, criteria.FactDescription(name))
	}
}
