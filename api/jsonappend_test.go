package api

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// jsonAnswer is what Call.JSON writes for v.
func jsonAnswer(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return b.String()
}

func TestAppendedTimesAreJSONsOwn(t *testing.T) {
	t.Parallel()
	for _, tm := range []time.Time{time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.FixedZone("x", 3600)), {}} {
		got, ok := AppendJSONTime(nil, tm)
		require.True(t, ok)
		require.Equal(t, jsonAnswer(t, tm), string(got)+"\n", "time %v", tm)
	}
	_, ok := AppendJSONTime(nil, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
	require.False(t, ok, "a year JSON refuses is left to JSON")
}
