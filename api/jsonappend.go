package api

import "time"

// Answers encoded by appending. A route answered on every call with a small, fixed shape (whoami,
// is-hiring) may build its JSON with these and jsonw.AppendString instead of JSON's reflection:
// the bytes are the ones JSON writes for the same value (encoding/json without HTML escaping,
// then a newline), which the handler's tests hold it to.

// RawJSON writes body, a JSON value the handler encoded itself (a newline after it, as JSON
// writes one), as the answer with status. body is copied.
func (c *Call) RawJSON(status int, body []byte) error {
	c.Ctx.Response.SetBody(body)
	c.Ctx.SetStatusCode(status)
	c.Ctx.SetContentType("application/json")
	return nil
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
