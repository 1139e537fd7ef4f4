package ats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The flex types below decode the polymorphic scalars real feeds send. Their UnmarshalJSON
// methods never return an error: a value of an unexpected shape decodes to the zero value,
// so one odd field never aborts decoding of the page (encoding/json stops at the first
// error returned by an Unmarshaler).

// flexString is a JSON string, or a number kept as its literal text (ids such as Greenhouse's
// 4012345678 are never routed through float64). null, booleans, objects and arrays decode to "".
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	*s = ""
	if len(b) == 0 {
		return nil
	}
	switch c := b[0]; {
	case c == '"':
		if v, ok := jsonStringValue(b); ok {
			*s = flexString(v)
		}
	case c == '-' || (c >= '0' && c <= '9'):
		*s = flexString(b)
	}
	return nil
}

// jsonStringValue returns the value of a JSON string literal. One with escapes (a description's
// HTML as "\u003cp\u003e", quotes, newlines) is unescaped by unescapeJSON, with encoding/json's
// answer (TestJSONStringValueMatchesEncodingJSON).
func jsonStringValue(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	return unescapeJSON(inner)
}

// unescapeJSON returns the value of s, the inside of a JSON string literal, as json.Unmarshal
// into a string does, without its validating pass over the literal and its reflection: false
// where the literal is not valid JSON (a bare quote or control character, an unknown escape, a
// \u without four hex digits); a \u escape of a lone or mismatched surrogate, and a byte that is
// not UTF-8, read as U+FFFD.
func unescapeJSON(s []byte) (string, bool) {
	var out strings.Builder
	out.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				out.WriteByte(e)
			case 'b':
				out.WriteByte('\b')
			case 'f':
				out.WriteByte('\f')
			case 'n':
				out.WriteByte('\n')
			case 'r':
				out.WriteByte('\r')
			case 't':
				out.WriteByte('\t')
			case 'u':
				r := hex4(s[i:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2 := hex4(s[i:]); r2 >= 0 {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							out.WriteRune(pair)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out.WriteRune(r)
				continue
			default:
				return "", false
			}
			i += 2
		case c == '"' || c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && s[j] >= ' ' && s[j] < utf8.RuneSelf && s[j] != '"' && s[j] != '\\' {
				j++
			}
			out.Write(s[i:j])
			i = j
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				out.WriteRune(r)
			} else {
				out.Write(s[i : i+n])
			}
			i += n
		}
	}
	return out.String(), true
}

// hex4 is the code unit of the \uXXXX escape s starts with; -1 when s does not start with one.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// flexNum is a JSON number or a numeric string ("85000", "85,000.50", " 12 "). OK is false
// for null, blank strings, non-numeric text and non-finite values.
type flexNum struct {
	V  float64
	OK bool
}

func (n *flexNum) UnmarshalJSON(b []byte) error {
	*n = flexNum{}
	if len(b) == 0 {
		return nil
	}
	var text string
	switch c := b[0]; {
	case c == '"':
		s, ok := jsonStringValue(b)
		if !ok {
			return nil
		}
		text = s
	case c == '-' || (c >= '0' && c <= '9'):
		text = string(b)
	default:
		return nil
	}
	n.V, n.OK = parseNumber(text)
	return nil
}

// parseNumber parses a decimal number written by a human or a feed: surrounding spaces,
// thousands separators (",", "_", inner spaces) are ignored. Non-finite results are rejected.
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if strings.ContainsAny(s, ",_ \u00a0") {
		s = strings.Map(func(r rune) rune {
			switch r {
			case ',', '_', ' ', '\u00a0':
				return -1
			}
			return r
		}, s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// flexTime is an RFC 3339 (or other supported style, see parseTime) string, or an epoch
// number (milliseconds when large, as Lever sends, else seconds). Unparsable → zero time.
type flexTime struct{ T time.Time }

func (t *flexTime) UnmarshalJSON(b []byte) error {
	t.T = time.Time{}
	if len(b) == 0 {
		return nil
	}
	switch c := b[0]; {
	case c == '"':
		if s, ok := jsonStringValue(b); ok {
			t.T = parseTime(s)
		}
	case c == '-' || (c >= '0' && c <= '9'):
		if f, err := strconv.ParseFloat(string(b), 64); err == nil {
			t.T = epochTime(f)
		}
	}
	return nil
}

// flexBool is true for JSON true, "true"/"yes"/"1" strings and non-zero numbers.
type flexBool bool

func (v *flexBool) UnmarshalJSON(b []byte) error {
	*v = false
	if len(b) == 0 {
		return nil
	}
	switch c := b[0]; {
	case c == 't':
		*v = true
	case c == '"':
		s, _ := jsonStringValue(b)
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "1", "y":
			*v = true
		}
	case c == '-' || (c >= '0' && c <= '9'):
		f, err := strconv.ParseFloat(string(b), 64)
		*v = flexBool(err == nil && f != 0)
	}
	return nil
}

// optBool records whether a boolean was present at all (Ashby isListed: absent means listed).
type optBool struct {
	Set, V bool
}

func (o *optBool) UnmarshalJSON(b []byte) error {
	var v flexBool
	_ = v.UnmarshalJSON(b)
	*o = optBool{Set: len(b) > 0 && b[0] != 'n', V: bool(v)}
	return nil
}

// trimJSON strips a UTF-8 byte order mark and surrounding whitespace.
func trimJSON(body []byte) []byte {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	return bytes.TrimSpace(body)
}

// decodeTop decodes a whole response body whose top level must start with root ('{' or '[').
// Type mismatches inside records are tolerated (encoding/json zeroes the field, keeps
// decoding, and reports only the first one); the per-record checks then decide whether a
// record is usable. Syntax errors, a wrong top-level shape and a list field (listField, the
// name of the records array in an object body) that is not an array are fatal.
func decodeTop(body []byte, root byte, v any, listField string) error {
	body = trimJSON(body)
	if len(body) == 0 {
		return errors.New("empty body")
	}
	if body[0] != root {
		if root == '[' {
			return errors.New("top level is not a JSON array")
		}
		return errors.New("top level is not a JSON object")
	}
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if listField != "" && te.Field == listField && te.Type != nil && te.Type.Kind() == reflect.Slice {
			return fmt.Errorf("%q is a JSON %s, not an array", listField, te.Value)
		}
		return nil
	}
	return err
}

// record is one record of a JSON page: idTitle returns its id and its title, cleaned.
type record interface{ idTitle() (id, title string) }

// decodePage decodes body, a JSON page whose records are the array under key, into env (key
// "": the body is that bare array) and maps the records onto a Page: one without an id or a
// title counts as Malformed, and add appends the Postings of every other one to ps (none for a
// record the feed marks hidden). list returns env's records; env keeps the rest of the body
// (paging, the account name) for the caller, and for add, which runs after it is decoded.
// Errors name vendor; an absent or null records array is one.
func decodePage[E, R any, PR interface {
	*R
	record
}](vendor string, body []byte, key string, env *E, list func(*E) *[]R, add func(r PR, id string, ps []Posting) []Posting) (Page, error) {
	root := byte('{')
	if key == "" {
		root = '['
	}
	if err := decodeTop(body, root, env, key); err != nil {
		return Page{}, fmt.Errorf("%s: %w", vendor, err)
	}
	rs := list(env)
	if rs == nil {
		return Page{}, fmt.Errorf("%s: no %s array", vendor, key)
	}
	page := Page{Postings: make([]Posting, 0, len(*rs))}
	for i := range *rs {
		r := PR(&(*rs)[i])
		id, title := r.idTitle()
		if id == "" || title == "" {
			page.Malformed++
			continue
		}
		page.Postings = add(r, id, page.Postings)
	}
	return page, nil
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(raw rawJSON) bool {
	return len(raw) == 0 || (raw[0] == 'n')
}

// forEachRaw calls fn for raw itself, or for each element when raw is an array.
func forEachRaw(raw rawJSON, fn func(rawJSON) bool) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return
	}
	if raw[0] != '[' {
		fn(raw)
		return
	}
	eachElement(raw, fn)
}

// eachElement calls fn for each element of arr, a JSON array already known to be valid (a
// value an earlier decode captured, never raw page text), until fn returns false. It yields
// what decoding arr into []json.RawMessage would, without decoding: each element exactly,
// without the whitespace around it.
func eachElement(arr rawJSON, fn func(rawJSON) bool) {
	i := 1 // past '['
	for {
		i = skipJSONSpace(arr, i)
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		start, end := i, valueEnd(arr, i)
		i = end
		for end > start && isJSONSpace(arr[end-1]) {
			end--
		}
		if !fn(arr[start:end:end]) || i >= len(arr) || arr[i] == ']' {
			return
		}
		i++ // past ','
	}
}

// decodeMembers decodes obj, a JSON object already known to be valid, as encoding/json would
// decode it into a struct of flex and raw fields, without decoding it again: set is called with
// each member's key (the bytes between its quotes) and value, in order, so a repeated key's last
// value wins; set matches keys with keyIs. An object with a key that has an escape or a
// non-ASCII byte (encoding/json unescapes those and folds Unicode case) is decoded by fallback
// instead. It reports whether obj decoded.
func decodeMembers(obj rawJSON, set func(key []byte, val rawJSON), fallback func() bool) bool {
	if len(obj) == 0 || obj[0] != '{' {
		return fallback()
	}
	// One walk: the members are held until every key is known to be plain, then set in order
	// (a walk per check and set scanned every value, a posting's description among them, twice).
	var held [24]objMember
	ms := held[:0]
	if !eachMember(obj, func(k []byte, v rawJSON) { ms = append(ms, objMember{k, v}) }) {
		return fallback()
	}
	for _, m := range ms {
		set(m.key, m.val)
	}
	return true
}

// objMember is one member of a JSON object: its key and value, aliasing the object.
type objMember struct {
	key []byte
	val rawJSON
}

// eachMember walks the members of obj (valid JSON, starting with '{'), calling set, when not
// nil, with each key and value. It reports false, at the first such key, when a key is not
// plain ASCII without escapes.
func eachMember(obj rawJSON, set func(key []byte, val rawJSON)) bool {
	i := 1 // past '{'
	for {
		i = skipJSONSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return true // '}'
		}
		ks := i + 1
		for i = ks; i < len(obj) && obj[i] != '"'; i++ {
			if obj[i] == '\\' || obj[i] >= 0x80 {
				return false
			}
		}
		key := obj[ks:i]
		i = skipJSONSpace(obj, i+1) // at ':'
		i = skipJSONSpace(obj, i+1)
		start, end := i, valueEnd(obj, i)
		i = end
		for end > start && isJSONSpace(obj[end-1]) {
			end--
		}
		if set != nil {
			set(key, obj[start:end:end])
		}
		if i >= len(obj) || obj[i] == '}' {
			return true
		}
		i++ // past ','
	}
}

// unmarshalInto is unmarshalTolerant into *dst, which must be zero, through a copy: dst itself
// never reaches encoding/json, so a caller's struct can stay on its stack (decodeMembers calls
// its fallback only for the rare object it cannot read itself).
func unmarshalInto[T any](b []byte, dst *T) bool {
	var tmp T
	ok := unmarshalTolerant(b, &tmp)
	*dst = tmp
	return ok
}

// setString decodes a valid JSON value into a plain string field as encoding/json does: a
// string sets it (unescaped, invalid UTF-8 replaced); null and any other type leave it as it was.
func setString(dst *string, v rawJSON) {
	if len(v) < 2 || v[0] != '"' {
		return
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		*dst = string(inner)
		return
	}
	_ = json.Unmarshal(v, dst)
}

// keyIs reports whether a plain-ASCII member key names the field name the way encoding/json
// matches it: exactly, or with ASCII letters in either case.
func keyIs(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := 0; i < len(key); i++ {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// valueEnd returns the index of the ',', ']' or '}' that ends the value starting at b[i] (or
// len(b)), in valid JSON.
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

// isJSONSpace is JSON's insignificant whitespace.
func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// firstRaw returns raw, or its first non-null element when raw is an array.
func firstRaw(raw rawJSON) rawJSON {
	var out rawJSON
	forEachRaw(raw, func(r rawJSON) bool {
		if isNull(r) {
			return true
		}
		out = r
		return false
	})
	return out
}

// rawString returns the string (or number text) held by raw, "" otherwise.
func rawString(raw rawJSON) string {
	var s flexString
	_ = s.UnmarshalJSON(bytes.TrimSpace(raw))
	return string(s)
}

// clean trims whitespace around a published value.
func clean[S ~string](s S) string { return strings.TrimSpace(string(s)) }

// rawJSON is a json.RawMessage that aliases the decoder's input instead of copying it, so it
// is valid only while that input is: decode into it only from a body being parsed, and keep
// nothing of it past the parse (everything a Posting keeps is a string, hence a copy).
type rawJSON []byte

func (m *rawJSON) UnmarshalJSON(b []byte) error {
	*m = b
	return nil
}
