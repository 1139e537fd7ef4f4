package api

import (
	"bytes"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/valyala/fasthttp"
)

// routeMetrics counts a route's calls per status and times them. Counters are made on first
// use of a status and kept in an array, so the answer path neither formats a name nor locks.
type routeMetrics struct {
	set      *metrics.Set
	name     string
	duration *metrics.PrometheusHistogram
	byStatus [600]atomic.Pointer[metrics.Counter]
}

func newRouteMetrics(set *metrics.Set, route string) *routeMetrics {
	return &routeMetrics{set: set, name: route,
		duration: set.GetOrCreatePrometheusHistogram(`hs_http_request_duration_seconds{route="` + route + `"}`)}
}

// observe records one answered call.
func (m *routeMetrics) observe(status int, start time.Time) {
	m.duration.UpdateDuration(start)
	if status < 100 || status >= len(m.byStatus) {
		status = 0
	}
	c := m.byStatus[status].Load()
	if c == nil {
		c = m.set.GetOrCreateCounter(`hs_http_requests_total{route="` + m.name + `",status="` + strconv.Itoa(status) + `"}`)
		m.byStatus[status].Store(c)
	}
	c.Inc()
}

// registerMeteringMetrics exposes the metering log's backlog (sealed segments not yet in
// Postgres) and how long the oldest has waited, its overflows (calls that waited for the disk writer or syncer; raise
// --metering-queue), its unreadable-segment retries, and the flushes usage reads forced.
func (s *Server) registerMeteringMetrics() {
	s.metrics.GetOrCreateCounter("hs_metering_read_flushes_total")
	if s.usage == nil {
		return
	}
	u := s.usage
	s.metrics.NewGauge("hs_metering_backlog_segments", func() float64 { return float64(u.Backlog()) })
	s.metrics.NewGauge("hs_metering_overflows_total", func() float64 { return float64(u.Overflows()) })
	// Beside the metered calls (hs_http_requests_total of billable routes): how many calls share
	// a write of the metering log.
	s.metrics.NewGauge("hs_metering_writes_total", func() float64 { return float64(u.Writes()) })
	s.metrics.NewGauge("hs_metering_segment_read_errors_total", func() float64 { return float64(u.SegmentReadErrors()) })
	// Alert on it: calls older than this live only on this instance's disk (docs/decisions.md,
	// "Several instances", the metering log).
	s.metrics.NewGauge("hs_metering_unflushed_seconds", func() float64 { return u.UnflushedFor(time.Now()).Seconds() })
}

// registerBoundsMetrics exposes the request bytes held by bodies being read against
// BodyBytesInFlight (--max-body-bytes-inflight): at the limit, the next body is refused with 503.
func (s *Server) registerBoundsMetrics() {
	b := &s.bodies
	s.metrics.NewGauge("hs_http_request_body_bytes_in_flight", func() float64 { return float64(b.used.Load()) })
	s.metrics.NewGauge("hs_http_request_body_bytes_limit", func() float64 { return float64(b.max) })
}

// metricsHandler serves the operator metrics in the Prometheus text format: the server's set
// (calls per route and status, latencies, and whatever the other parts registered in it) and
// the Go runtime and process metrics. It is outside /v1, never billed or limited.
func (s *Server) metricsHandler(ctx *fasthttp.RequestCtx) {
	var b bytes.Buffer
	s.metrics.WritePrometheus(&b)
	metrics.WriteProcessMetrics(&b)
	ctx.SetContentType("text/plain; version=0.0.4; charset=utf-8")
	ctx.SetBody(b.Bytes())
}
