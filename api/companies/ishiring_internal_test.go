package companies

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestIsHiringIsWrittenAsJSONWritesIt(t *testing.T) {
	t.Parallel()
	yes, n, motion := true, 12, time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)
	for _, v := range []isHiringView{
		{CompanyID: 42, Name: "Acme & Co", Domain: "acme.example", IsHiring: &yes, OpenReqCount: &n, CoverageStatus: "covered",
			MotionAsOf: &motion, AsOf: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)},
		{CompanyID: 1<<63 + 5, Name: "Müller \"GmbH\"\n", CoverageStatus: "no_ats_signal", AsOf: time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", -7200))},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(v))
		got, ok := v.appendJSON(nil)
		require.True(t, ok)
		require.Equal(t, want.String(), string(got))
	}
	_, ok := isHiringView{AsOf: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}.appendJSON(nil)
	require.False(t, ok, "a time JSON refuses is left to JSON, which answers 500 as before")
}
