package criteria_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
)

var uses = []criteria.Use{criteria.Qualified, criteria.Watch}

// The OpenAPI criteria text names every field of the vocabulary.
func TestVocabularyIsPublished(t *testing.T) {
	t.Parallel()
	for _, use := range uses {
		for _, cr := range criteria.Vocabulary() {
			require.Contains(t, criteria.Doc(use), cr.Group+"."+cr.Name)
			for _, e := range cr.Enum {
				require.Contains(t, criteria.Doc(use), e)
			}
		}
		s := criteria.Schema(use)
		require.Contains(t, s["properties"], "req")
		require.Contains(t, s["properties"], "event")
	}
	require.Contains(t, criteria.Doc(criteria.Qualified), "are 422 on reqs/qualified")
	require.NotContains(t, criteria.Doc(criteria.Watch), "are 422 on reqs/qualified")
	event := func(use criteria.Use) string {
		e := criteria.Schema(use)["properties"].(map[string]any)["event"].(map[string]any)["properties"].(map[string]any)
		return e["event_type"].(map[string]any)["description"].(string)
	}
	require.Contains(t, event(criteria.Qualified), "Refused (422) on reqs/qualified")
	require.NotContains(t, event(criteria.Watch), "Refused")
}

// The criteria description states the bounds the parser enforces.
func TestCriteriaDocStatesTheBounds(t *testing.T) {
	t.Parallel()
	for _, use := range uses {
		doc := criteria.Doc(use)
		for _, n := range []int{criteria.MaxCriterionValues, criteria.MaxValueLength, criteria.MaxQLength, criteria.MaxQWords, problem.MaxFieldErrors} {
			require.Contains(t, doc, " "+strconv.Itoa(n)+" ")
		}
		require.Contains(t, doc, "1,000")
		require.Equal(t, 1000, criteria.MaxCompanyIDs)
		s := criteria.Schema(use)
		req := s["properties"].(map[string]any)["req"].(map[string]any)["properties"].(map[string]any)
		fn := req["function"].(map[string]any)["oneOf"].([]any)[1].(map[string]any)
		require.Equal(t, criteria.MaxCriterionValues, fn["maxItems"])
		require.Equal(t, criteria.MaxQLength, req["q"].(map[string]any)["maxLength"])
		require.True(t, strings.HasPrefix(doc, "Closed vocabulary"))
	}
}
