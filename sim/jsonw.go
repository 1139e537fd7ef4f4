package sim

import (
	"math"
	"strconv"
	"time"

	"github.com/planehq/hiringsignal/internal/jsonw"
)

// Allocation-free JSON/XML/HTML appenders used by the format renderers.

const hexDigits = "0123456789abcdef"

// appendEsc appends s JSON-escaped (without quotes), as encoding/json escapes it.
func appendEsc[T string | []byte](b []byte, s T) []byte { return jsonw.AppendEscaped(b, s, false) }

// appendEscH appends s JSON-escaped with <, > and & escaped as in encoding/json's HTML-safe
// mode, so the JSON can sit inside a <script> element.
func appendEscH[T string | []byte](b []byte, s T) []byte { return jsonw.AppendEscaped(b, s, true) }

// appendStr appends s as a JSON string.
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEsc(b, s)
	return append(b, '"')
}

// appendStrH appends s as an HTML-safe JSON string.
func appendStrH[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	b = appendEscH(b, s)
	return append(b, '"')
}

// appendEntityJSON appends raw HTML entity-escaped and then JSON-escaped (without quotes), the
// way Greenhouse serves job content.
func appendEntityJSON(b []byte, raw []byte) []byte {
	for _, c := range raw {
		switch {
		case c == '<':
			b = append(b, "&lt;"...)
		case c == '>':
			b = append(b, "&gt;"...)
		case c == '&':
			b = append(b, "&amp;"...)
		case c == '"':
			b = append(b, "&quot;"...)
		case c == '\\':
			b = append(b, '\\', '\\')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendStrBytes appends raw text bytes as a JSON string.
func appendStrBytes(b []byte, s []byte) []byte {
	b = append(b, '"')
	b = appendEsc(b, s)
	return append(b, '"')
}

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// appendNum appends a float without exponent, as an integer when it has no fraction.
func appendNum(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// appendTime appends t formatted with layout, quoted.
func appendTime(b []byte, t time.Time, layout string) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, layout)
	return append(b, '"')
}

// appendXML appends s with XML/HTML special characters escaped.
func appendXML[T string | []byte](b []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		if !xmlSpecial[s[i]] {
			continue
		}
		var rep string
		switch s[i] {
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '&':
			rep = "&amp;"
		case '"':
			rep = "&quot;"
		case '\'':
			rep = "&#39;"
		}
		b = append(b, s[start:i]...)
		b = append(b, rep...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// xmlSpecial marks the bytes appendXML replaces by an entity.
var xmlSpecial = [256]bool{'<': true, '>': true, '&': true, '"': true, '\'': true}

// appendUUID appends a version-4-shaped UUID whose first 32 bits are id (unique per source).
func appendUUID(b []byte, id uint32, salt uint64) []byte {
	x := mix64(uint64(id) ^ salt)
	y := mix64(x + golden)
	hex8 := func(b []byte, v uint64, n int) []byte {
		for i := n - 1; i >= 0; i-- {
			b = append(b, hexDigits[(v>>(uint(i)*4))&0xF])
		}
		return b
	}
	b = hex8(b, uint64(id), 8)
	b = append(b, '-')
	b = hex8(b, x>>48, 4)
	b = append(b, '-', '4')
	b = hex8(b, x>>36, 3)
	b = append(b, '-', "89ab"[(x>>34)&3])
	b = hex8(b, x>>20, 3)
	b = append(b, '-')
	b = hex8(b, y, 12)
	return b
}

// appendHexUpper appends v as n upper-case hex digits.
func appendHexUpper(b []byte, v uint64, n int) []byte {
	const up = "0123456789ABCDEF"
	for i := n - 1; i >= 0; i-- {
		b = append(b, up[(v>>(uint(i)*4))&0xF])
	}
	return b
}
