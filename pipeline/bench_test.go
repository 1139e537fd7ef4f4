package pipeline

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"sort"
	"testing"

	"github.com/planehq/hiringsignal/pipeline/ats"
	"github.com/planehq/hiringsignal/sim"
)

// The benchmarks below measure the crawl's per-posting hot path on real simulator pages, with
// the HTTP and the simulator's rendering done in setup so allocs/op are the crawler's own:
// go test -run '^$' -bench 'Parse|Observe|ReadBody' -benchmem ./pipeline/

// benchPage is one page of the world as the crawler reads it.
type benchPage struct {
	src     *Source
	url     string
	body    []byte // decoded
	gz      []byte // as sent to a client accepting gzip
	gzipped bool   // gz is gzipped (small pages are sent plain)
}

type benchWorld struct {
	dir   *Directory
	pages []benchPage
}

// loadBenchWorld fetches every page of a 2,000-company world at one tick, plain and gzipped.
func loadBenchWorld(b *testing.B) *benchWorld {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	w := sim.New(sim.Config{Seed: 42, Companies: 2000, BaseURL: base})
	w.Pin(2000)
	srv := &http.Server{Handler: w.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	b.Cleanup(func() { srv.Close() })
	ctx := context.Background()
	dir, err := FetchDirectory(ctx, http.DefaultClient, base, 2000)
	if err != nil {
		b.Fatal(err)
	}
	get := func(u string, gz bool) ([]byte, bool) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		tr := &http.Transport{DisableCompression: true}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			b.Fatal(err)
		}
		return body, resp.Header.Get("Content-Encoding") == "gzip"
	}
	bw := &benchWorld{dir: dir}
	for i := range dir.Sources {
		src := &dir.Sources[i]
		ad, ok := ats.For(src.Vendor)
		if !ok {
			b.Fatalf("no adapter for %s", src.Vendor)
		}
		for u := src.URL; u != ""; {
			body, _ := get(u, false)
			page, err := ad.Parse(body, u)
			if err != nil {
				break // a page the world serves broken on purpose
			}
			gz, gzipped := get(u, true)
			bw.pages = append(bw.pages, benchPage{src: src, url: u, body: body, gz: gz, gzipped: gzipped})
			u = page.NextURL
		}
	}
	return bw
}

func (bw *benchWorld) vendors() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range bw.pages {
		if !seen[p.src.Vendor] {
			seen[p.src.Vendor] = true
			out = append(out, p.src.Vendor)
		}
	}
	sort.Strings(out)
	return out
}

// BenchmarkParse parses every page of one vendor once per op.
func BenchmarkParse(b *testing.B) {
	bw := loadBenchWorld(b)
	for _, vendor := range bw.vendors() {
		b.Run(vendor, func(b *testing.B) {
			ad, _ := ats.For(vendor)
			var pages []benchPage
			postings := 0
			for _, p := range bw.pages {
				if p.src.Vendor == vendor {
					pages = append(pages, p)
					pg, _ := ad.Parse(p.body, p.url)
					postings += len(pg.Postings)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, p := range pages {
					if _, err := ad.Parse(p.body, p.url); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(postings), "postings/op")
		})
	}
}

// BenchmarkReadBody decodes every gzipped page of the world once per op, as the fetch stage does.
func BenchmarkReadBody(b *testing.B) {
	bw := loadBenchWorld(b)
	f := testFetcher(b, FetchConfig{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range bw.pages {
			body, release, err := f.decodeBody(bytes.NewReader(p.gz), p.gzipped)
			if err != nil {
				b.Fatal(err)
			}
			if len(body) != len(p.body) {
				b.Fatalf("%s: decoded %d bytes, want %d", p.url, len(body), len(p.body))
			}
			release()
		}
	}
	b.ReportMetric(float64(len(bw.pages)), "pages/op")
}

// BenchmarkObserve normalizes every posting of the world once per op (the normalize stage).
func BenchmarkObserve(b *testing.B) {
	bw := loadBenchWorld(b)
	res := newResolver(bw.dir.Companies)
	type parsed struct {
		src      *Source
		postings []ats.Posting
	}
	var all []parsed
	postings := 0
	for _, p := range bw.pages {
		ad, _ := ats.For(p.src.Vendor)
		pg, _ := ad.Parse(p.body, p.url)
		all = append(all, parsed{p.src, pg.Postings})
		postings += len(pg.Postings)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range all {
			for j := range p.postings {
				res.observe(p.src, &p.postings[j])
			}
		}
	}
	b.ReportMetric(float64(postings), "postings/op")
}
