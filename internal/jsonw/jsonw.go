// Package jsonw appends JSON strings exactly as encoding/json writes them, without reflection or
// allocation, for the writers that build their JSON by appending (the simulator's vendor feeds,
// the API's fixed-shape answers). It owns the escaping rules and nothing else, and imports
// nothing of the project.
package jsonw

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendString appends s as a quoted JSON string, escaped as encoding/json escapes it with HTML
// escaping off (json.Encoder.SetEscapeHTML(false)).
//
// Not inlined: a caller that inlined it would call the generic AppendEscaped itself, and the
// compiler takes any buffer passed to a generic function from another package as escaping, so a
// caller's stack buffer would move to the heap (one allocation per answer). Called, AppendString
// carries its own escape summary (dst flows only to the result).
//
//go:noinline
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s, false)
	return append(dst, '"')
}

// AppendEscaped appends s JSON-escaped, without quotes, as encoding/json escapes a string: '"',
// '\\' and the control characters escaped (\b, \f, \n, \r and \t by name), invalid UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029; with html also <, > and & (encoding/json's
// HTML-safe mode, so the JSON can sit inside a <script> element).
func AppendEscaped[T string | []byte](b []byte, s T, html bool) []byte {
	safe := &plainSafe
	if html {
		safe = &htmlSafe
	}
	start := 0
	for i := 0; i < len(s); {
		// Runs of bytes that need no escape (most of any text) are skipped a byte at a time
		// through a table, then copied at once.
		for i < len(s) && safe[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		var rb [utf8.UTFMax]byte
		n := copy(rb[:], s[i:])
		r, size := utf8.DecodeRune(rb[:n])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			if r == utf8.RuneError {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// plainSafe marks the ASCII bytes a JSON string carries as they are (htmlSafe: also outside <, >
// and &); every other byte is escaped or, from 0x80, decoded as UTF-8 first.
var plainSafe, htmlSafe = func() (plain, html [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
		html[c] = plain[c] && c != '<' && c != '>' && c != '&'
	}
	return plain, html
}()
