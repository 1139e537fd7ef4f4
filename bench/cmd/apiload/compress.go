package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/bench/benchapi"
)

// The search-compressed target: the reqs/search mix of the search target, in the same run, with
// no Accept-Encoding and with each coding the server offers, by an Enterprise key of its own
// (its answers are compressed, so the search target's row count does not see them).
// Before the rounds, the encoders' levels are timed on one 20-company page.

// encodings are the Accept-Encoding values loaded ("" sends none).
var encodings = []string{"", "gzip", "br", "zstd"}

type compressTarget struct {
	st    *searchTarget
	bytes map[string]*atomic.Int64 // body bytes received per encoding
	n     map[string]*atomic.Int64 // 200 answers per encoding
}

func setupCompressed(ctx context.Context, pool *pgxpool.Pool, st *searchTarget) (*compressTarget, error) {
	acct, err := benchapi.Account(ctx, pool, "enterprise", "search-compressed-bench@example.com")
	if err != nil {
		return nil, err
	}
	ct := &compressTarget{st: &searchTarget{key: acct.Key, account: acct.AccountID, urls: st.urls},
		bytes: map[string]*atomic.Int64{}, n: map[string]*atomic.Int64{}}
	for _, e := range encodings {
		ct.bytes[e], ct.n[e] = &atomic.Int64{}, &atomic.Int64{}
	}
	return ct, nil
}

func encName(e string) string {
	if e == "" {
		return "GET /v1/reqs/search, no Accept-Encoding"
	}
	return "GET /v1/reqs/search, Accept-Encoding: " + e
}

// load runs the mix asking for enc; bytes are counted for the runs that are measured.
func (ct *compressTarget) load(enc, base string, conns int, dur time.Duration, maxReq int64, count bool) result {
	hdr := map[string]string{"X-API-Key": ct.st.key}
	if enc != "" {
		hdr["Accept-Encoding"] = enc
	}
	return loadMix(encName(enc), base, ct.st.urls, hdr, conns, dur, maxReq, func(body []byte) {
		if count {
			ct.bytes[enc].Add(int64(len(body)))
			ct.n[enc].Add(1)
		}
	})
}

// report prints bytes per answer and throughput per encoding.
func (ct *compressTarget) report(merged map[string]result) {
	plain := float64(ct.bytes[""].Load()) / float64(max(1, ct.n[""].Load()))
	fmt.Printf("\nreqs/search 14-query mix, compressed or not (same run, same server, alternating rounds):\n\n")
	fmt.Println("| Accept-Encoding | requests | errors | req/s | p50 | p95 | p99 | bytes per answer (mean) | of plain |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, e := range encodings {
		r := merged[e]
		per := float64(ct.bytes[e].Load()) / float64(max(1, ct.n[e].Load()))
		name := e
		if name == "" {
			name = "(none)"
		}
		fmt.Printf("| %s | %d | %d | %.0f | %s | %s | %s | %.0f | %.3f |\n", name, r.Requests, r.Errors, r.RPS(),
			r.Pct(0.50).Round(time.Microsecond), r.Pct(0.95).Round(time.Microsecond), r.Pct(0.99).Round(time.Microsecond), per, per/plain)
	}
}

// levels times each encoder at a few levels on two pages of the first query of the mix, 20
// companies each: the default page and the heavy one (include=momentum&matched_reqs=50, the
// shape every page had when both were the default), fetched plain, after checking that the
// server's own answer in each coding decodes to the plain page.
func (ct *compressTarget) levels(base string) error {
	for _, q := range []string{"q=engineer&limit=20", "q=engineer&limit=20&include=momentum&matched_reqs=50"} {
		if err := ct.levelsOn(base + "/v1/reqs/search?" + q); err != nil {
			return err
		}
	}
	return nil
}

func (ct *compressTarget) levelsOn(url string) error {
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI(url)
	req.Header.Set("X-API-Key", ct.st.key)
	if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
		return fmt.Errorf("cannot fetch a reqs/search page: %w", err)
	}
	if res.StatusCode() != 200 {
		return fmt.Errorf("cannot fetch a reqs/search page: status %d: %s", res.StatusCode(), res.Body())
	}
	page := append([]byte(nil), res.Body()...)
	for _, e := range encodings[1:] {
		req.Header.Set("Accept-Encoding", e)
		if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
			return err
		}
		got, err := res.BodyUncompressed()
		if err != nil {
			return fmt.Errorf("cannot decode the %s answer: %w", e, err)
		}
		if string(res.Header.ContentEncoding()) != e || !bytes.Equal(got, page) {
			return fmt.Errorf("the %s answer (Content-Encoding %q) does not decode to the plain page", e, res.Header.ContentEncoding())
		}
	}
	fmt.Printf("\n%s (%d companies): %d bytes plain; each encoder on one goroutine, the fastest of 10 batches of 20:\n\n",
		url[strings.Index(url, "/v1/"):], bytes.Count(page, companyRowMarker), len(page))
	fmt.Println("| encoder | level | bytes | of plain | µs per page |")
	fmt.Println("|---|---|---:|---:|---:|")
	type enc struct {
		name, level string
		f           func(dst, src []byte) []byte
	}
	for _, x := range []enc{
		{"gzip (klauspost)", "1 (BestSpeed, served)", func(d, s []byte) []byte { return fasthttp.AppendGzipBytesLevel(d, s, fasthttp.CompressBestSpeed) }},
		{"gzip (klauspost)", "6 (default)", func(d, s []byte) []byte {
			return fasthttp.AppendGzipBytesLevel(d, s, fasthttp.CompressDefaultCompression)
		}},
		{"br (fasthttp)", "1 (BestSpeed, served)", func(d, s []byte) []byte {
			return fasthttp.AppendBrotliBytesLevel(d, s, fasthttp.CompressBrotliBestSpeed)
		}},
		{"br (fasthttp)", "4 (default)", func(d, s []byte) []byte {
			return fasthttp.AppendBrotliBytesLevel(d, s, fasthttp.CompressBrotliDefaultCompression)
		}},
		{"zstd (klauspost)", "SpeedFastest (served)", func(d, s []byte) []byte { return fasthttp.AppendZstdBytesLevel(d, s, fasthttp.CompressZstdBestSpeed) }},
		{"zstd (klauspost)", "SpeedDefault", func(d, s []byte) []byte { return fasthttp.AppendZstdBytesLevel(d, s, fasthttp.CompressZstdDefault) }},
	} {
		var out []byte
		out = x.f(out[:0], page) // warm the encoder pool
		// The fastest of 10 batches of 20: other processes' load only ever adds time.
		per := time.Duration(1<<63 - 1)
		for b := 0; b < 10; b++ {
			t0 := time.Now()
			for i := 0; i < 20; i++ {
				out = x.f(out[:0], page)
			}
			per = min(per, time.Since(t0)/20)
		}
		fmt.Printf("| %s | %s | %d | %.3f | %d |\n", x.name, x.level, len(out), float64(len(out))/float64(len(page)), per.Microseconds())
	}
	return nil
}
