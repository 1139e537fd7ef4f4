package oltp

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"
)

// recordV1 marks the binary payload of a usage record. Payloads starting with '{' are the JSON
// records of earlier versions and are still read, so segments left by an older build replay.
const recordV1 = 0x01

// encodeRecord appends rec's binary payload: version, five length-prefixed strings (customer,
// method, route, meter class, function), zig-zag varints (account, key, calls, units,
// occurred_at in unix nanoseconds) and the forced_fresh byte.
func encodeRecord(buf []byte, rec UsageRecord) []byte {
	buf = append(buf, recordV1)
	for _, s := range [...]string{rec.CustomerID, rec.Method, rec.Route, rec.MeterClass, rec.Function} {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	buf = binary.AppendVarint(buf, rec.AccountID)
	buf = binary.AppendVarint(buf, rec.KeyID)
	buf = binary.AppendVarint(buf, int64(rec.Calls))
	buf = binary.AppendVarint(buf, rec.Units)
	buf = binary.AppendVarint(buf, rec.OccurredAt.UnixNano())
	if rec.ForcedFresh {
		return append(buf, 1)
	}
	return append(buf, 0)
}

var errBadRecord = errors.New("malformed usage record")

// decodeRecord reads a payload written by encodeRecord (or a legacy JSON record).
func decodeRecord(p []byte) (UsageRecord, error) {
	var rec UsageRecord
	if len(p) > 0 && p[0] == '{' {
		err := json.Unmarshal(p, &rec)
		return rec, err
	}
	if len(p) == 0 || p[0] != recordV1 {
		return rec, errBadRecord
	}
	p = p[1:]
	str := func() (string, bool) {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return "", false
		}
		s := string(p[k : k+int(n)])
		p = p[k+int(n):]
		return s, true
	}
	num := func() (int64, bool) {
		v, k := binary.Varint(p)
		if k <= 0 {
			return 0, false
		}
		p = p[k:]
		return v, true
	}
	var ok [10]bool
	rec.CustomerID, ok[0] = str()
	rec.Method, ok[1] = str()
	rec.Route, ok[2] = str()
	rec.MeterClass, ok[3] = str()
	rec.Function, ok[4] = str()
	rec.AccountID, ok[5] = num()
	rec.KeyID, ok[6] = num()
	calls, ok7 := num()
	rec.Calls, ok[7] = int32(calls), ok7
	rec.Units, ok[8] = num()
	var at int64
	at, ok[9] = num()
	for _, b := range ok {
		if !b {
			return rec, errBadRecord
		}
	}
	if len(p) != 1 || p[0] > 1 {
		return rec, errBadRecord
	}
	rec.ForcedFresh = p[0] == 1
	rec.OccurredAt = time.Unix(0, at).UTC()
	return rec, nil
}
