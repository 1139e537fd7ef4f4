package api

import (
	"bytes"
	"strconv"

	"github.com/valyala/bytebufferpool"
	"github.com/valyala/fasthttp"
)

// Compression of answers: a JSON answer of at least Config.CompressMinBytes is sent
// compressed when the request's Accept-Encoding accepts zstd, br or gzip. It runs once the
// router has answered (serveHTTP), after the chain: metering, the idempotency store (which keeps
// the plain answer, compressed again for each replay), the route metrics and Execute's
// in-process calls (the agent tools) all see the plain body. The encoders are
// github.com/klauspost/compress's gzip and zstd and fasthttp's brotli, all at their fastest
// level: a reqs/search page of 20 companies shrinks to 0.14-0.16 of its size at that level
// already, in about 50 µs (bench/README.md, "Compressed answers").

// DefaultCompressMinBytes is the smallest JSON answer compressed (Config.CompressMinBytes):
// below it the saving is a few hundred bytes at most, not worth the encoder's time.
const DefaultCompressMinBytes = 1024

// Levels of the three encoders (measured in bench/README.md, "Compressed answers").
const (
	gzipLevel   = fasthttp.CompressBestSpeed       // klauspost/compress/gzip level 1
	brotliLevel = fasthttp.CompressBrotliBestSpeed // level 1
	zstdLevel   = fasthttp.CompressZstdBestSpeed   // klauspost/compress/zstd SpeedFastest
)

const (
	varyHeader = "Accept-Encoding" // every JSON answer varies with it
	codingsLen = 3                 // entries of codings
	maxCodings = 32                // Accept-Encoding entries read at most
	qUnset     = -1                // a coding the header does not name
	qInvalid   = -2                // a q-value that does not parse: not acceptable
)

// codings are the encodings served, in the order preferred when the client rates several
// equally: at their fastest levels zstd makes the smallest page of the three, in about the same
// time; gzip is what every client has.
var codings = [codingsLen]string{"zstd", "br", "gzip"}

// compress compresses ctx's answer in place when it is JSON, long enough and the client accepts
// one of the codings. Every JSON answer says Vary: Accept-Encoding, compressed or not, so a cache
// keeps the variants apart.
func (s *Server) compress(ctx *fasthttp.RequestCtx) {
	r := &ctx.Response
	if !isJSON(r.Header.ContentType()) {
		return
	}
	r.Header.Add(fasthttp.HeaderVary, varyHeader)
	st := r.StatusCode()
	if s.cfg.CompressMinBytes < 0 || st < 200 || st == fasthttp.StatusNoContent || st == fasthttp.StatusNotModified ||
		r.IsBodyStream() || len(r.Header.ContentEncoding()) > 0 {
		return
	}
	body := r.Body()
	if len(body) < s.cfg.CompressMinBytes {
		return
	}
	enc := negotiate(ctx.Request.Header.Peek(fasthttp.HeaderAcceptEncoding))
	if enc == "" {
		return
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	switch enc {
	case "zstd":
		buf.B = fasthttp.AppendZstdBytesLevel(buf.B, body, zstdLevel)
	case "br":
		buf.B = fasthttp.AppendBrotliBytesLevel(buf.B, body, brotliLevel)
	default:
		buf.B = fasthttp.AppendGzipBytesLevel(buf.B, body, gzipLevel)
	}
	if len(buf.B) >= len(body) {
		return // incompressible: the plain body is shorter
	}
	r.SetBody(buf.B) // copied: buf goes back to the pool; Content-Length follows the body
	r.Header.SetContentEncoding(enc)
}

// isJSON reports whether a Content-Type is application/json or a +json type.
func isJSON(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = bytes.TrimSpace(ct)
	return bytes.EqualFold(ct, []byte("application/json")) ||
		(len(ct) > 5 && bytes.EqualFold(ct[len(ct)-5:], []byte("+json")) && bytes.HasPrefix(bytes.ToLower(ct), []byte("application/")))
}

// negotiate picks the coding of codings the Accept-Encoding header rates highest (RFC 9110
// 12.5.3): a coding named with q=0 is refused, one not named takes the q of "*" when the header
// has one and is refused otherwise, "x-gzip" is gzip, and ties go to the order of codings. ""
// means identity: no header, nothing acceptable, or only identity. At most maxCodings entries are
// read (the header itself is bounded by the server's header limit).
func negotiate(header []byte) string {
	q := [codingsLen]int{qUnset, qUnset, qUnset}
	star := qUnset
	for n := 0; len(header) > 0 && n < maxCodings; n++ {
		var entry []byte
		if i := bytes.IndexByte(header, ','); i >= 0 {
			entry, header = header[:i], header[i+1:]
		} else {
			entry, header = header, nil
		}
		name, params, _ := bytes.Cut(entry, []byte(";"))
		name = bytes.TrimSpace(name)
		if len(name) == 0 {
			continue
		}
		w := qValue(params)
		switch {
		case len(name) == 1 && name[0] == '*':
			star = w
		case bytes.EqualFold(name, []byte("x-gzip")):
			q[2] = rate(q[2], w)
		default:
			for i, c := range codings {
				if bytes.EqualFold(name, []byte(c)) {
					q[i] = rate(q[i], w)
				}
			}
		}
	}
	best, bestQ := "", 0
	for i, c := range codings {
		w := q[i]
		if w == qUnset {
			w = star
		}
		if w > bestQ {
			best, bestQ = c, w
		}
	}
	return best
}

// rate is a coding's weight once the header named it with weight w (again, when old is set).
func rate(old, w int) int {
	if old == qUnset {
		return w
	}
	return max(old, w)
}

// qValue is the weight of an Accept-Encoding entry's parameters, in thousandths: 1000 when there
// is no q, qInvalid when q does not parse as a number from 0 to 1.
func qValue(params []byte) int {
	for len(params) > 0 {
		var p []byte
		p, params, _ = bytes.Cut(params, []byte(";"))
		k, v, ok := bytes.Cut(p, []byte("="))
		if !ok || !bytes.EqualFold(bytes.TrimSpace(k), []byte("q")) {
			continue
		}
		f, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
		if err != nil || !(f >= 0 && f <= 1) { // NaN too
			return qInvalid
		}
		return int(f*1000 + 0.5)
	}
	return 1000
}
