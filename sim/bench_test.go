package sim

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func BenchmarkTenantBodies(b *testing.B) {
	w := New(Config{Seed: 1, Companies: 2000})
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := &w.companies[i%len(w.companies)]
		switch c.vendor {
		case vGreenhouse:
			buf = w.renderGreenhouse(buf[:0], c, 50, true, false)
		case vLever:
			buf = w.renderLever(buf[:0], c, 50, 0, 100, false)
		case vAshby:
			buf = w.renderAshby(buf[:0], c, 50, true, false)
		case vWorkable:
			buf = w.renderWorkable(buf[:0], c, 50, false, false)
		case vSmartRecruiters:
			buf = w.renderSmartRecruiters(buf[:0], c, 50, 0, 100, false)
		case vRecruitee:
			buf = w.renderRecruitee(buf[:0], c, 50, false)
		case vPersonio:
			buf = w.renderPersonio(buf[:0], c, 50, false)
		case vTeamtailor:
			buf = w.renderTeamtailor(buf[:0], c, 50, 0, 200, false)
		case vBambooHR:
			buf = w.renderBambooHR(buf[:0], c, 50, false)
		case vBreezy:
			buf = w.renderBreezy(buf[:0], c, 50, false)
		case vPinpoint:
			buf = w.renderPinpoint(buf[:0], c, 50, false)
		case vJoin:
			buf = w.renderJoin(buf[:0], c, 50, 1, joinMaxPageSize, false)
		case vWorkday:
			buf = w.renderWorkday(buf[:0], c, 50, 0, workdayMaxLimit, false)
		case vICIMS:
			buf = w.renderICIMS(buf[:0], c, 50, 0, false)
		case vJobvite:
			buf = w.renderJobvite(buf[:0], c, 50, 0, false)
		case vJazzHR:
			buf = w.renderJazzHR(buf[:0], c, 50, false)
		case vRippling:
			buf = w.renderRippling(buf[:0], c, 50, 0, 50, false)
		}
	}
}

func BenchmarkBoardPage(b *testing.B) {
	w := New(Config{Seed: 1, Companies: 20000})
	w.snapshot(50)
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = w.renderJSONLD(buf[:0], 0, 50, 1+i%20, "http://x", false)
	}
}

func BenchmarkServeTenant(b *testing.B) {
	w := New(Config{Seed: 1, Companies: 2000, BaseURL: "http://x"})
	w.Pin(50)
	h := w.Handler()
	d := w.Directory(50)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := d.Sources[i%(len(d.Sources)-21)]
		req := httptest.NewRequest("GET", s.URL, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		rw := httptest.NewRecorder()
		h.ServeHTTP(rw, req)
	}
}

// BenchmarkFullTickHTTP serves one full tick of a 100,000-company world over loopback HTTP
// (gzip, 16 concurrent readers following every source's pagination), the way the crawler
// reads it: go test -run '^$' -bench FullTickHTTP -benchtime 1x ./sim/
func BenchmarkFullTickHTTP(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	start := time.Now()
	w := New(Config{Seed: 42, Companies: 100000, BaseURL: base})
	b.Logf("build: %v", time.Since(start))
	srv := &http.Server{Handler: w.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	next := regexp.MustCompile(`<link rel="next" href="([^"]+)">`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Pin(100 + i)
		start := time.Now()
		var pages, size atomic.Int64
		fetch := func(u string) []byte {
			resp, err := client.Get(u)
			if err != nil {
				b.Error(err)
				return nil
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			pages.Add(1)
			size.Add(int64(len(body)))
			return body
		}
		var d Directory
		if err := json.Unmarshal(fetch(base+"/_sim/directory"), &d); err != nil {
			b.Fatal(err)
		}
		ch := make(chan Source)
		var wg sync.WaitGroup
		for j := 0; j < 16; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for s := range ch {
					for u := s.URL; u != ""; {
						body := fetch(u)
						u = ""
						switch s.Vendor {
						case "jsonld":
							if m := next.FindSubmatch(body); m != nil {
								u = string(m[1])
							}
						case "aggregator":
							var env struct {
								Next string `json:"next_cursor"`
							}
							json.Unmarshal(body, &env) //nolint:errcheck
							if env.Next != "" {
								u = s.URL + "&cursor=" + env.Next
							}
						}
					}
				}
			}()
		}
		for _, s := range d.Sources {
			ch <- s
		}
		close(ch)
		wg.Wait()
		b.Logf("tick %d: %d sources, %d pages, %.0f MB in %v", 100+i, len(d.Sources), pages.Load(), float64(size.Load())/1e6, time.Since(start))
	}
}
