package problem_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/problem"
)

// An enum item words its values as FastAPI does, and Bound writes a long vocabulary once: a
// later item expecting the same list points to the first.
func TestBoundWritesALongVocabularyOnce(t *testing.T) {
	vals := make([]string, 20)
	for i := range vals {
		vals[i] = "value_" + strings.Repeat("x", i%3)
	}
	first := problem.EnumError("a", vals, "query", "f", 0)
	require.True(t, strings.HasPrefix(first.Msg, "Input should be 'value_', 'value_x'"), first.Msg)
	require.True(t, strings.HasSuffix(first.Msg, " or 'value_x'"), first.Msg)

	items := problem.Bound([]problem.FieldError{first, problem.EnumError("b", vals, "query", "f", 1), problem.Missing("body")}, 0)
	require.Equal(t, first.Msg, items[0].Msg)
	require.Equal(t, "Input should be one of the values listed in item 0", items[1].Msg)
	require.Equal(t, map[string]any{"expected_in": 0}, items[1].Ctx)
	require.Equal(t, map[string]any{}, items[2].Ctx, "every ctx is an object")
}

// Past MaxFieldErrors the last item counts the others, those not even built included.
func TestBoundCountsWhatItDoesNotList(t *testing.T) {
	items := make([]problem.FieldError, problem.MaxFieldErrors)
	for i := range items {
		items[i] = problem.Missing("body", i)
	}
	out := problem.Bound(items, 7)
	require.Len(t, out, problem.MaxFieldErrors)
	last := out[len(out)-1]
	require.Equal(t, "too_many_errors", last.Type)
	require.Equal(t, 8, last.Ctx["omitted"])
}

func TestClipMarksACut(t *testing.T) {
	require.Equal(t, "héllo", problem.Clip("héllo", 5))
	require.Equal(t, "hé…", problem.Clip("héllo", 2))
}
