package api

import (
	"time"
	"unicode/utf8"
)

// Answers encoded by appending. A route answered on every call with a small, fixed shape (whoami,
// is-hiring) may build its JSON with these instead of JSON's reflection: the bytes are the ones
// JSON writes for the same value (encoding/json without HTML escaping, then a newline), which
// the handler's tests hold it to.

// RawJSON writes body, a JSON value the handler encoded itself (a newline after it, as JSON
// writes one), as the answer with status. body is copied.
func (c *Call) RawJSON(status int, body []byte) error {
	c.Ctx.Response.SetBody(body)
	c.Ctx.SetStatusCode(status)
	c.Ctx.SetContentType("application/json")
	return nil
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, escaped as encoding/json escapes it without HTML
// escaping: control characters, '"' and '\\' escaped, invalid UTF-8 as \ufffd, U+2028 and
// U+2029 as \u2028 and \u2029.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendJSONTime appends t as JSON encodes a time.Time (RFC 3339 with nanoseconds, in t's
// location); ok is false (and dst unchanged) for a time JSON refuses to encode (a year outside
// 0-9999), whose answer the handler leaves to JSON.
func AppendJSONTime(dst []byte, t time.Time) (_ []byte, ok bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return dst, false
	}
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"'), true
}
