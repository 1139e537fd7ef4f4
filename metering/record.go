package metering

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"os"
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
}

// recordV1 marks the binary payload of a usage record. Payloads starting with '{' are the JSON
// records of earlier versions and are still read, so segments left by an older build replay.
const recordV1 = 0x01

// encodeRecord appends rec's binary payload: version, five length-prefixed strings (customer,
// method, route, meter class, function), zig-zag varints (account, key, calls, units,
// occurred_at in unix nanoseconds) and the forced_fresh byte.
func encodeRecord(buf []byte, rec Record) []byte {
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
func decodeRecord(p []byte) (Record, error) {
	var rec Record
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

// appendFrame appends one record as a frame: length and CRC-32 of the payload, then the payload
// (encodeRecord).
func appendFrame(buf []byte, rec Record) ([]byte, error) {
	if len(rec.CustomerID)+len(rec.Method)+len(rec.Route)+len(rec.MeterClass)+len(rec.Function) > 1<<16 {
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

// readSegment decodes every whole record of a segment; a torn or corrupt tail (a write cut by a
// crash, never acknowledged) ends the read.
func readSegment(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var out []Record
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return out, nil
		}
		n := binary.LittleEndian.Uint32(hdr[:4])
		if n > 1<<20 {
			return out, nil
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return out, nil
		}
		if crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(hdr[4:]) {
			return out, nil
		}
		rec, err := decodeRecord(payload)
		if err != nil {
			return out, nil
		}
		out = append(out, rec)
	}
}
