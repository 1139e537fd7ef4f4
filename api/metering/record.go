package metering

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"time"
)

// Record is one metered event of the usage ledger, as the API instance logs it before the
// response leaves. Records reach Postgres rolled up, one write-ahead-log segment at a time.
type Record struct {
	CustomerID  string    `json:"c"`
	AccountID   int64     `json:"a"`
	KeyID       int64     `json:"k"`
	Method      string    `json:"m"`
	Route       string    `json:"r"`
	MeterClass  string    `json:"mc"`
	Function    string    `json:"f,omitempty"`
	Calls       int32     `json:"n"`
	Units       int64     `json:"un"`
	ForcedFresh bool      `json:"ff,omitempty"`
	OccurredAt  time.Time `json:"t"`
	// Channel is how the call reached the API: "" or "rest" for an HTTP request to its route,
	// "mcp" for an agent tool call (set by the chain, never by the caller).
	Channel string `json:"ch,omitempty"`
}

// recordV1 marks the binary payload of a usage record. Payloads starting with '{' are the JSON
// records of earlier versions and are still read, so segments left by an older build replay.
const recordV1 = 0x01

// recordV2 is recordV1 followed by one more length-prefixed string: the channel. A record whose
// channel is empty is written as recordV1, so segments of REST calls read the same everywhere.
const recordV2 = 0x02

// encodeRecord appends rec's binary payload: version, five length-prefixed strings (customer,
// method, route, meter class, function), zig-zag varints (account, key, calls, units,
// occurred_at in unix nanoseconds), the forced_fresh byte and, in recordV2, the channel.
func encodeRecord(buf []byte, rec Record) []byte {
	if rec.Channel != "" {
		buf = append(buf, recordV2)
	} else {
		buf = append(buf, recordV1)
	}
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
		buf = append(buf, 1)
	} else {
		buf = append(buf, 0)
	}
	if rec.Channel != "" {
		buf = binary.AppendUvarint(buf, uint64(len(rec.Channel)))
		buf = append(buf, rec.Channel...)
	}
	return buf
}

var errBadRecord = errors.New("malformed usage record")

// decodeRecord reads a payload written by encodeRecord (or a legacy JSON record).
func decodeRecord(p []byte) (Record, error) {
	var rec Record
	if len(p) > 0 && p[0] == '{' {
		err := json.Unmarshal(p, &rec)
		return rec, err
	}
	if len(p) == 0 || (p[0] != recordV1 && p[0] != recordV2) {
		return rec, errBadRecord
	}
	v2 := p[0] == recordV2
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
	if len(p) < 1 || p[0] > 1 {
		return rec, errBadRecord
	}
	rec.ForcedFresh = p[0] == 1
	p = p[1:]
	if v2 {
		var ok bool
		if rec.Channel, ok = str(); !ok || rec.Channel == "" {
			return rec, errBadRecord
		}
	}
	if len(p) != 0 {
		return rec, errBadRecord
	}
	rec.OccurredAt = time.Unix(0, at).UTC()
	return rec, nil
}

// appendFrame appends one record as a frame: length and CRC-32 of the payload, then the payload
// (encodeRecord).
func appendFrame(buf []byte, rec Record) ([]byte, error) {
	if len(rec.CustomerID)+len(rec.Method)+len(rec.Route)+len(rec.MeterClass)+len(rec.Function)+len(rec.Channel) > 1<<16 {
		return buf, errors.New("usage record too large")
	}
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)
	buf = encodeRecord(buf, rec)
	payload := buf[start+8:]
	binary.LittleEndian.PutUint32(buf[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[start+4:], crc32.ChecksumIEEE(payload))
	return buf, nil
}

// maxPayload bounds a frame's payload: no record comes near it (appendFrame refuses strings over
// 64 KiB), so a larger length is damage, not a record.
const maxPayload = 1 << 20

// errCorrupt marks a segment holding a damaged record before its end.
var errCorrupt = errors.New("damaged record")

// readSegment decodes every record of the segment at path (read with read; only its first valid
// bytes when valid >= 0). A torn tail is skipped and its length returned: a last frame cut short,
// a last frame failing its checksum, or zeros to the end of the file (a crash after the size
// grew) — a write a crash interrupted, never acknowledged. Anything else is an error and no
// record is returned: a read error, or a damaged frame with data after it, which no crash
// explains.
func readSegment(read func(string) ([]byte, error), path string, valid int64) (recs []Record, torn int, err error) {
	data, err := read(path)
	if err != nil {
		return nil, 0, err
	}
	if valid >= 0 && valid < int64(len(data)) {
		data = data[:valid]
	}
	return decodeSegment(data)
}

// decodeSegment is readSegment on the segment's bytes.
func decodeSegment(data []byte) (recs []Record, torn int, err error) {
	for off := 0; off < len(data); {
		rest := data[off:]
		if len(rest) < 8 {
			return recs, len(rest), nil
		}
		n := uint64(binary.LittleEndian.Uint32(rest[:4]))
		if n > maxPayload {
			return nil, 0, fmt.Errorf("%w at byte %d of %d: length %d", errCorrupt, off, len(data), n)
		}
		if 8+n > uint64(len(rest)) {
			return recs, len(rest), nil
		}
		payload := rest[8 : 8+n]
		var rec Record
		bad := crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(rest[4:8])
		if !bad {
			rec, err = decodeRecord(payload)
			bad = err != nil
		}
		if bad {
			if 8+n == uint64(len(rest)) || allZero(rest) {
				return recs, len(rest), nil
			}
			return nil, 0, fmt.Errorf("%w at byte %d of %d, with data after it", errCorrupt, off, len(data))
		}
		recs = append(recs, rec)
		off += 8 + int(n)
	}
	return recs, 0, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
