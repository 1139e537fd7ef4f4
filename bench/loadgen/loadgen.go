// Package loadgen is the closed-loop load generator of the bench/ programs: a number of
// connections each sending its next request as soon as the last one answered, for a duration,
// recording every latency. It is for bench/ programs only and must not be imported by the
// service.
package loadgen

import (
	neturl "net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Result is one measured run.
type Result struct {
	Name     string
	Requests int64
	Errors   int64
	Elapsed  time.Duration
	Lat      []time.Duration // every request's latency, ascending
}

// RPS is requests per second.
func (r Result) RPS() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

// Pct is the latency at quantile p (0..1).
func (r Result) Pct(p float64) time.Duration {
	if len(r.Lat) == 0 {
		return 0
	}
	return r.Lat[min(len(r.Lat)-1, int(float64(len(r.Lat))*p))]
}

// Merge sums the runs of all called name (rounds of one target) into one Result.
func Merge(all []Result, name string) Result {
	m := Result{Name: name}
	for _, r := range all {
		if r.Name == name {
			m.Requests += r.Requests
			m.Errors += r.Errors
			m.Elapsed += r.Elapsed
			m.Lat = append(m.Lat, r.Lat...)
		}
	}
	slices.Sort(m.Lat)
	return m
}

// Spec is one run: Conns workers for Dur (at most MaxReq requests in all); worker w sends Method
// to Base+Paths[i] (with Bodies[i] when Bodies is set) for i = w, w+1, ... round the list.
type Spec struct {
	Name    string
	Base    string
	Method  string   // default GET
	Paths   []string // default: Base itself
	Bodies  [][]byte // optional, one per path
	Headers map[string]string
	// OK (may be nil) sees the body of every 200 answer and says whether it counts as a success
	// (an MCP tool result with isError, say, does not).
	OK func(body []byte) bool
	// Status (may be nil) is told the status of every answer other than 200, 0 for a call that
	// got none (a timeout, a refused connection).
	Status func(code int)
	Conns  int
	Dur    time.Duration
	MaxReq int64
}

// Run runs s and returns its result; answers other than 200 (and those OK refuses) are errors.
func Run(s Spec) Result {
	if len(s.Paths) == 0 {
		s.Paths = []string{""}
	}
	u, _ := neturl.Parse(s.Base)
	c := &fasthttp.HostClient{Addr: u.Host, MaxConns: s.Conns, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, MaxResponseBodySize: 64 << 20}
	var n, errs atomic.Int64
	lats := make([][]time.Duration, s.Conns)
	deadline := time.Now().Add(s.Dur)
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < s.Conns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(res)
			for k, v := range s.Headers {
				req.Header.Set(k, v)
			}
			if s.Method != "" {
				req.Header.SetMethod(s.Method)
			}
			req.SetRequestURI(s.Base + s.Paths[w%len(s.Paths)])
			for i := w; time.Now().Before(deadline) && n.Add(1) <= s.MaxReq; i++ {
				if len(s.Paths) > 1 {
					req.SetRequestURI(s.Base + s.Paths[i%len(s.Paths)])
				}
				if s.Bodies != nil {
					req.SetBody(s.Bodies[i%len(s.Bodies)])
				}
				t0 := time.Now()
				err := c.Do(req, res)
				lats[w] = append(lats[w], time.Since(t0))
				if err != nil || res.StatusCode() != 200 || (s.OK != nil && !s.OK(res.Body())) {
					errs.Add(1)
					if s.Status != nil {
						code := res.StatusCode()
						if err != nil {
							code = 0
						}
						s.Status(code)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	r := Result{Name: s.Name, Elapsed: time.Since(start), Errors: errs.Load()}
	for _, l := range lats {
		r.Lat = append(r.Lat, l...)
	}
	r.Requests = int64(len(r.Lat))
	slices.Sort(r.Lat)
	return r
}
