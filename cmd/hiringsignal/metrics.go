package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Operator metrics: one metrics.Set per process, made here and handed to each part. The API
// serves it at /metrics; `crawl` serves it on --metrics-listen when set.

// snapshotMetrics returns the OnBuild hook of the read snapshot and registers its gauges.
func snapshotMetrics(set *metrics.Set, current func() *snapshot.Snapshot) func(time.Duration, error) {
	took := set.NewPrometheusHistogram("hs_snapshot_build_duration_seconds")
	failed := set.NewCounter("hs_snapshot_build_failures_total")
	set.NewGauge("hs_snapshot_watermark", func() float64 {
		if s := current(); s != nil {
			return float64(s.Watermark)
		}
		return 0
	})
	set.NewGauge("hs_snapshot_data_age_seconds", func() float64 {
		if s := current(); s != nil && !s.AsOf.IsZero() {
			return time.Since(s.AsOf).Seconds()
		}
		return 0
	})
	return func(d time.Duration, err error) {
		took.Update(d.Seconds())
		if err != nil {
			failed.Inc()
		}
	}
}

// crawlMetrics records every crawl's cycles in its set: durations per region, failed sources
// per vendor, events, 304 replays, page-cache evictions, published pay dropped as implausible,
// and crawls that failed whole. Like every Metrics set of the service, a nil one given to
// newCrawlMetrics means a set of its own, served nowhere.
type crawlMetrics struct{ set *metrics.Set }

func newCrawlMetrics(set *metrics.Set) crawlMetrics {
	if set == nil {
		set = metrics.NewSet()
	}
	return crawlMetrics{set: set}
}

func (m crawlMetrics) observe(stats []pipeline.CycleStats, err error) {
	if err != nil {
		m.set.GetOrCreateCounter("hs_crawl_failures_total").Inc()
	}
	for _, s := range stats {
		if s.Skipped {
			continue
		}
		m.set.GetOrCreatePrometheusHistogram(fmt.Sprintf(`hs_crawl_cycle_duration_seconds{region=%q}`, s.Region)).Update(s.Duration.Seconds())
		m.set.GetOrCreateCounter(fmt.Sprintf(`hs_crawl_events_total{region=%q}`, s.Region)).Add(s.Events)
		m.set.GetOrCreateCounter(`hs_crawl_pages_not_modified_total`).Add(s.NotModified)
		m.set.GetOrCreateCounter(`hs_crawl_pages_body_unchanged_total`).Add(s.BodyUnchanged) // of not_modified: a 200 whose body hashed as before
		m.set.GetOrCreateCounter(`hs_crawl_pages_throttled_total`).Add(s.Throttled)          // 429s answered
		m.set.GetOrCreateCounter(`hs_crawl_sources_blocked_total`).Add(s.Blocked)            // by robots.txt
		m.set.GetOrCreateCounter(`hs_crawl_pages_total`).Add(s.Pages)
		m.set.GetOrCreateCounter(`hs_crawl_page_cache_evictions_total`).Add(s.CacheEvicted)
		m.set.GetOrCreateCounter(`hs_crawl_page_cache_refused_total`).Add(s.CacheRefused) // full: raise --page-cache-mib
		m.set.GetOrCreateCounter(`hs_crawl_salary_dropped_total`).Add(s.SalaryDropped)    // implausible published pay not served
		m.set.GetOrCreateCounter(`hs_crawl_sources_total`).Add(s.Sources)
		for vendor, n := range s.FailedVendors {
			m.set.GetOrCreateCounter(fmt.Sprintf(`hs_crawl_sources_failed_total{vendor=%q}`, vendor)).Add(n)
		}
	}
}

// metricsServer serves a set on its own listener (the `crawl` command has no API listener).
type metricsServer struct {
	addr string
	set  *metrics.Set
	log  *slog.Logger
	srv  *http.Server
	done chan struct{}
}

func (m *metricsServer) Start(context.Context) error {
	if m.srv != nil {
		return nil
	}
	ln, err := net.Listen("tcp", m.addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s for metrics: %w; pass another --metrics-listen (env HS_METRICS_LISTEN)", m.addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		m.set.WritePrometheus(w)
		metrics.WriteProcessMetrics(w)
	})
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	m.done = make(chan struct{})
	go func() {
		defer close(m.done)
		if err := m.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.log.Error("metrics listener stopped", "err", err)
		}
	}()
	m.log.Info("metrics listening", "addr", ln.Addr().String())
	return nil
}

func (m *metricsServer) Stop(ctx context.Context) error {
	if m.srv == nil {
		return nil
	}
	err := m.srv.Shutdown(ctx)
	<-m.done
	m.srv = nil
	return err
}
