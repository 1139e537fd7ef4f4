package metering

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/oltp"
)

func TestRecordRoundTripsAndReadsLegacyJSON(t *testing.T) {
	t.Parallel()
	rec := Record{CustomerID: "cus_1", AccountID: 42, KeyID: -7, Method: "GET", Route: "/v1/reqs/search",
		MeterClass: oltp.MeterSourceRow, Function: "fn_eng", Calls: 1, Units: 1 << 40, ForcedFresh: true,
		OccurredAt: time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.UTC)}
	got, err := decodeRecord(encodeRecord(nil, rec))
	require.NoError(t, err)
	require.Equal(t, rec, got)

	got, err = decodeRecord([]byte(`{"u":"x","c":"cus_1","a":42,"k":-7,"m":"GET","r":"/v1/reqs/search","mc":"source_row","f":"fn_eng","n":1,"un":1099511627776,"ff":true,"t":"2026-11-21T10:00:00.123456789Z"}`))
	require.NoError(t, err, "segments of the JSON-era build still replay")
	require.Equal(t, rec, got)

	full := encodeRecord(nil, rec)
	for i := 0; i < len(full); i++ {
		_, err := decodeRecord(full[:i])
		require.Error(t, err, "a payload cut at %d bytes is refused", i)
	}

	// A tool call's record carries its channel (recordV2); a REST call's is written as before.
	require.Equal(t, byte(recordV1), full[0])
	rec.Channel = "mcp"
	v2 := encodeRecord(nil, rec)
	require.Equal(t, byte(recordV2), v2[0])
	got, err = decodeRecord(v2)
	require.NoError(t, err)
	require.Equal(t, rec, got)
	for i := 0; i < len(v2); i++ {
		_, err := decodeRecord(v2[:i])
		require.Error(t, err, "a payload cut at %d bytes is refused", i)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(nil, Record{CustomerID: "c", Route: "/v1/x", Calls: 1}))
	f.Add([]byte{recordV1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add(encodeRecord(nil, Record{CustomerID: "c", Route: "/v1/x", Calls: 1, Channel: "mcp"}))
	f.Fuzz(func(t *testing.T, p []byte) {
		rec, err := decodeRecord(p)
		if err == nil && len(p) > 0 && (p[0] == recordV1 || p[0] == recordV2) {
			again, err := decodeRecord(encodeRecord(nil, rec))
			require.NoError(t, err)
			require.Equal(t, rec, again)
		}
	})
}

// FuzzDecodeSegment: any bytes either decode (the records, then a torn tail that decodes to
// nothing when cut off) or are refused; never a panic.
func FuzzDecodeSegment(f *testing.F) {
	one, err := appendFrame(nil, Record{CustomerID: "c", Route: "/v1/x", Calls: 1, Units: 3})
	require.NoError(f, err)
	two := append(append([]byte(nil), one...), one...)
	f.Add(two)
	f.Add(append(append([]byte(nil), two...), one[:len(one)-2]...))
	f.Add(append(append([]byte(nil), one...), make([]byte, 64)...))
	bad := append([]byte(nil), two...)
	bad[10] ^= 0xff
	f.Add(bad)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, torn, err := decodeSegment(data)
		if err != nil {
			require.Nil(t, recs)
			return
		}
		require.LessOrEqual(t, torn, len(data))
		again, torn2, err := decodeSegment(data[:len(data)-torn])
		require.NoError(t, err)
		require.Zero(t, torn2)
		require.Equal(t, len(recs), len(again))
	})
}
