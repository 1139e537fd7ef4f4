package criteria_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
)

// FuzzParse: any criteria object is parsed for either use without panic into a bounded list of
// 422 items at body.criteria, or criteria within the bounds:
// `go test -run=^$ -fuzz=FuzzParse -fuzztime=10s ./read/criteria/`.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{`{}`, `null`, `[]`, `{"req":{"function":["Engineering","Astrology"]}}`,
		`{"event":{"event_type":["opened","moved"],"function":"fn_7k2q"},"req":{"q":"senior engineer"}}`,
		`{"company":{"company_id":[1,-1,"x"],"agency_kind":"employer","hq_country":"DE"},"req":{"since":"2026"}}`,
		`{"person":{},"req":{"colour":1}}`} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, watch bool) {
		if !json.Valid(raw) {
			return // a body member is valid JSON
		}
		use := criteria.Qualified
		if watch {
			use = criteria.Watch
		}
		c, errs := criteria.Parse(raw, use)
		require.LessOrEqual(t, len(errs), problem.MaxFieldErrors)
		b, err := json.Marshal(errs)
		require.NoError(t, err)
		require.Less(t, len(b), 64<<10, "a bounded 422")
		for _, fe := range errs {
			require.Equal(t, []any{"body", "criteria"}, fe.Loc[:2])
		}
		if len(errs) > 0 {
			return
		}
		require.LessOrEqual(t, len(c.Query.CompanyIDs), criteria.MaxCompanyIDs)
		require.LessOrEqual(t, len(c.EventTypes), criteria.MaxCriterionValues)
		if !watch {
			require.Nil(t, c.EventTypes)
			require.Nil(t, c.EventFunctions)
		}
	})
}
