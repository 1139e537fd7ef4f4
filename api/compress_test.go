package api_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"testing"

	brotli "github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

// decode undoes a Content-Encoding with decoders other than the server's encoders (the standard
// library's gzip, andybalholm's brotli, klauspost's zstd decoder).
func decode(t *testing.T, enc string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch enc {
	case "":
		return body
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		require.NoError(t, err)
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(body))
		require.NoError(t, err)
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("unexpected Content-Encoding %q", enc)
	}
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	return out
}

// searchPage is a reqs/search stub answering 1,000 rows: a JSON answer of about 2 KB.
const searchPage = 1000

func TestEachEncodingDecodesToTheIdenticalAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSearch(searchPage))
	a := h.account("growth")
	plain := h.do("GET", "/v1/reqs/search", a.Key, "")
	require.Equal(t, 200, plain.status, string(plain.body))
	require.Empty(t, plain.header["Content-Encoding"], "not asked: not compressed")
	require.Equal(t, "Accept-Encoding", plain.header["Vary"])
	require.Greater(t, len(plain.body), api.DefaultCompressMinBytes)
	for _, tc := range []struct{ accept, want string }{
		{"gzip", "gzip"}, {"br", "br"}, {"zstd", "zstd"},
		{"gzip, deflate, br, zstd", "zstd"},          // equal weights: zstd first
		{"gzip;q=1.0, br;q=0.8, zstd;q=0.5", "gzip"}, // the client's weights win
		{"br;q=0.9, *;q=0.1", "br"},
		{"x-gzip", "gzip"},
	} {
		r := h.do("GET", "/v1/reqs/search", a.Key, "", "Accept-Encoding", tc.accept)
		require.Equal(t, 200, r.status, tc.accept)
		require.Equal(t, tc.want, r.header["Content-Encoding"], tc.accept)
		require.Equal(t, "Accept-Encoding", r.header["Vary"], tc.accept)
		require.Equal(t, strconv.Itoa(len(r.body)), r.header["Content-Length"], tc.accept)
		require.Less(t, len(r.body), len(plain.body)/4, "%s: compressed", tc.accept)
		require.Equal(t, plain.body, decode(t, tc.want, r.body), tc.accept)
	}
}

func TestRefusedOrAbsentCodingsAnswerPlain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSearch(searchPage))
	a := h.account("growth")
	for _, accept := range []string{"identity", "gzip;q=0", "gzip;q=0, br;q=0, zstd;q=0", "*;q=0", "identity, *;q=0",
		"deflate", "compress", "gzip;q=abc", "gzip;q=2"} {
		r := h.do("GET", "/v1/reqs/search", a.Key, "", "Accept-Encoding", accept)
		require.Equal(t, 200, r.status, accept)
		require.Empty(t, r.header["Content-Encoding"], accept)
		require.Equal(t, "Accept-Encoding", r.header["Vary"], accept)
		require.Contains(t, string(r.body), `"companies":[0,0,`, accept)
	}
	// A coding refused by name is not taken through "*".
	r := h.do("GET", "/v1/reqs/search", a.Key, "", "Accept-Encoding", "zstd;q=0, br;q=0, *")
	require.Equal(t, "gzip", r.header["Content-Encoding"])
}

func TestSmallAnswersAndNonJSONStayPlain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	a := h.account("growth")
	r := h.do("GET", "/v1/whoami", a.Key, "", "Accept-Encoding", "gzip, br, zstd")
	require.Equal(t, 200, r.status)
	require.Less(t, len(r.body), api.DefaultCompressMinBytes)
	require.Empty(t, r.header["Content-Encoding"], "under 1 KiB: plain")
	require.Equal(t, "Accept-Encoding", r.header["Vary"])
	// /metrics is Prometheus text, not JSON: left as it is whatever its length.
	m := h.do("GET", "/metrics", "", "", "Accept-Encoding", "gzip")
	require.Equal(t, 200, m.status)
	require.Greater(t, len(m.body), api.DefaultCompressMinBytes)
	require.Empty(t, m.header["Content-Encoding"])
	require.Contains(t, string(m.body), "hs_http_requests_total")
}

func TestCompressionCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *api.Config, s *api.Server) {
		c.CompressMinBytes = -1
		withSearch(searchPage)(c, s)
	})
	r := h.do("GET", "/v1/reqs/search", h.account("growth").Key, "", "Accept-Encoding", "gzip")
	require.Equal(t, 200, r.status)
	require.Empty(t, r.header["Content-Encoding"])
}

// A stock client (net/http, compression left on) asks for gzip by itself and reads the answer
// decoded.
func TestStockClientDecodesTransparently(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSearch(searchPage))
	a := h.account("growth")
	plain := h.do("GET", "/v1/reqs/search", a.Key, "")
	req, err := http.NewRequest("GET", h.s.Base+"/v1/reqs/search", nil)
	require.NoError(t, err)
	req.Header.Set("X-API-Key", a.Key)
	c := &http.Client{Transport: &http.Transport{DisableCompression: false}}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, 200, res.StatusCode)
	require.True(t, res.Uncompressed, "the transport received gzip and decoded it")
	require.Equal(t, plain.body, body)
	c.CloseIdleConnections()
}

// Metering counts the plain answer once, and an Idempotency-Key replay, stored plain, is
// compressed again for whoever asks for it.
func TestCompressionKeepsMeteringAndIdempotentReplays(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSearch(searchPage))
	a := h.account("growth")
	first := h.do("GET", "/v1/reqs/search", a.Key, "", "Accept-Encoding", "zstd", "Idempotency-Key", "gz-1")
	require.Equal(t, 200, first.status)
	require.Equal(t, "zstd", first.header["Content-Encoding"])
	again := h.do("GET", "/v1/reqs/search", a.Key, "", "Accept-Encoding", "gzip", "Idempotency-Key", "gz-1")
	require.Equal(t, 200, again.status)
	require.Equal(t, "gzip", again.header["Content-Encoding"])
	plain := h.do("GET", "/v1/reqs/search", a.Key, "", "Idempotency-Key", "gz-1")
	require.Empty(t, plain.header["Content-Encoding"])
	require.Equal(t, plain.body, decode(t, "zstd", first.body))
	require.Equal(t, plain.body, decode(t, "gzip", again.body))
	require.Equal(t, searchPage, h.s.SourceRows(t, a.Key), "three answers, one metered call of its rows")
}

func TestHeadAndNotModifiedCarryNoCompressedBody(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	get := h.do("GET", "/openapi.json", "", "", "Accept-Encoding", "br")
	require.Equal(t, 200, get.status)
	require.Equal(t, "br", get.header["Content-Encoding"])
	require.Equal(t, 405, h.do("HEAD", "/openapi.json", "", "", "Accept-Encoding", "br").status, "HEAD is not routed")
	// The reference's assets answer 304 to their ETag, without a body.
	asset := h.do("GET", api.DocsPath+"/swagger-ui.css", "", "", "Accept-Encoding", "gzip")
	require.Equal(t, 200, asset.status)
	require.Equal(t, "gzip", asset.header["Content-Encoding"])
	require.NotEmpty(t, asset.header["Etag"])
	nm := h.do("GET", api.DocsPath+"/swagger-ui.css", "", "", "Accept-Encoding", "gzip", "If-None-Match", asset.header["Etag"])
	require.Equal(t, 304, nm.status)
	require.Empty(t, nm.body)
}
