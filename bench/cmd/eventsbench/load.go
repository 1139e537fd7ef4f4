package main

import (
	"encoding/json"
	neturl "net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api/events"
)

// result is one measured run.
type result struct {
	name     string
	requests int64
	errors   int64
	events   int64 // events in the 200 answers
	elapsed  time.Duration
	lat      []time.Duration
}

func (r result) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r result) pct(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	return r.lat[min(len(r.lat)-1, int(float64(len(r.lat))*p))]
}

// load runs conns workers for dur; worker w sends base+paths[i] for i = w, w+conns, ... round the
// list, and onOK (may be nil) counts the events of every 200 answer.
func load(name, base string, paths []string, headers map[string]string, conns int, dur time.Duration, onOK func([]byte) int) result {
	u, _ := neturl.Parse(base)
	c := &fasthttp.HostClient{Addr: u.Host, MaxConns: conns, ReadTimeout: 30 * time.Second, WriteTimeout: 10 * time.Second, MaxResponseBodySize: 64 << 20}
	var errs, events atomic.Int64
	lats := make([][]time.Duration, conns)
	deadline := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(res)
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			for i := w; time.Now().Before(deadline); i += conns {
				req.SetRequestURI(base + paths[i%len(paths)])
				t0 := time.Now()
				err := c.Do(req, res)
				lats[w] = append(lats[w], time.Since(t0))
				if err != nil || res.StatusCode() != 200 {
					errs.Add(1)
					continue
				}
				if onOK != nil {
					events.Add(int64(onOK(res.Body())))
				}
			}
		}()
	}
	wg.Wait()
	r := result{name: name, elapsed: time.Since(start), errors: errs.Load(), events: events.Load()}
	for _, l := range lats {
		r.lat = append(r.lat, l...)
	}
	r.requests = int64(len(r.lat))
	slices.Sort(r.lat)
	return r
}

// feedPage is the answer's shape, for the decoding baseline and to count events.
type feedPage = events.Page

// decodeRun decodes body with encoding/json on workers goroutines for dur: the client-side
// floor of consuming one page.
func decodeRun(name string, body []byte, workers int, dur time.Duration) result {
	lats := make([][]time.Duration, workers)
	deadline := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	var errs atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				t0 := time.Now()
				var p feedPage
				if err := json.Unmarshal(body, &p); err != nil {
					errs.Add(1)
				}
				lats[w] = append(lats[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	r := result{name: name, elapsed: time.Since(start), errors: errs.Load()}
	for _, l := range lats {
		r.lat = append(r.lat, l...)
	}
	r.requests = int64(len(r.lat))
	slices.Sort(r.lat)
	return r
}
