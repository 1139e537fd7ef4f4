package apitest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/internal/problem"
)

// Response is an answer of the server.
type Response struct {
	Status int
	Header map[string]string
	Body   []byte
}

// Do calls the server: key goes in X-API-Key ("" sends none); body is sent as JSON (a string or
// []byte as is, nil as no body, anything else marshalled); headers are name, value pairs.
func (s *Server) Do(tb testing.TB, method, path, key string, body any, headers ...string) Response {
	tb.Helper()
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	res := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod(method)
	req.SetRequestURI(s.Base + path)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	if body != nil {
		var b []byte
		switch v := body.(type) {
		case string:
			b = []byte(v)
		case []byte:
			b = v
		default:
			var err error
			b, err = json.Marshal(v)
			require.NoError(tb, err)
		}
		req.Header.SetContentType("application/json")
		req.SetBody(b)
	}
	for i := 0; i+1 < len(headers); i += 2 { // after the body: a Content-Type here replaces JSON's
		req.Header.Set(headers[i], headers[i+1])
	}
	require.NoError(tb, fasthttp.DoTimeout(req, res, 30*time.Second), "%s %s", method, path)
	out := Response{Status: res.StatusCode(), Header: map[string]string{}, Body: append([]byte(nil), res.Body()...)}
	for _, k := range res.Header.PeekKeys() {
		out.Header[string(k)] = string(res.Header.PeekBytes(k))
	}
	return out
}

// Get calls GET path?q.
func (s *Server) Get(tb testing.TB, path, key string, q url.Values) Response {
	tb.Helper()
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return s.Do(tb, "GET", path, key, nil)
}

// Post calls POST path with a JSON body (see Do).
func (s *Server) Post(tb testing.TB, path, key string, body any) Response {
	tb.Helper()
	return s.Do(tb, "POST", path, key, body)
}

// Decode requires the status want and decodes the body into v.
func (r Response) Decode(tb testing.TB, want int, v any) {
	tb.Helper()
	require.Equal(tb, want, r.Status, "%s", r.Body)
	require.NoError(tb, json.Unmarshal(r.Body, v), "%s", r.Body)
}

// Fields requires a JSON object body and returns its members undecoded, to check which fields
// an answer has (a struct cannot tell absent from null).
func (r Response) Fields(tb testing.TB) map[string]json.RawMessage {
	tb.Helper()
	var m map[string]json.RawMessage
	require.NoError(tb, json.Unmarshal(r.Body, &m), "%s", r.Body)
	return m
}

// GetJSON calls GET path?q, requires the status want and decodes the answer into a T.
func GetJSON[T any](tb testing.TB, s *Server, path, key string, q url.Values, want int) T {
	tb.Helper()
	var v T
	s.Get(tb, path, key, q).Decode(tb, want, &v)
	return v
}

// PostJSON calls POST path with body, requires the status want and decodes the answer into a T.
func PostJSON[T any](tb testing.TB, s *Server, path, key string, body any, want int) T {
	tb.Helper()
	var v T
	s.Post(tb, path, key, body).Decode(tb, want, &v)
	return v
}

// Problem is an error answer whose detail is a sentence (404, 402, ...).
type Problem struct {
	Detail string `json:"detail"`
}

// Invalid is a 422 answer.
type Invalid struct {
	Detail []problem.FieldError `json:"detail"`
}

// Invalid requires a 422 and decodes it.
func (r Response) Invalid(tb testing.TB) Invalid {
	tb.Helper()
	var v Invalid
	r.Decode(tb, 422, &v)
	require.NotEmpty(tb, v.Detail, "%s", r.Body)
	return v
}

// Locs are the locations of the field errors, dotted: "query.geo.1", "body.criteria.req.colour".
func (v Invalid) Locs() []string {
	out := make([]string, 0, len(v.Detail))
	for _, d := range v.Detail {
		parts := make([]string, len(d.Loc))
		for i, p := range d.Loc {
			parts[i] = fmt.Sprint(p)
		}
		out = append(out, strings.Join(parts, "."))
	}
	return out
}

// Msgs are the field errors' messages.
func (v Invalid) Msgs() []string {
	out := make([]string, 0, len(v.Detail))
	for _, d := range v.Detail {
		out = append(out, d.Msg)
	}
	return out
}
