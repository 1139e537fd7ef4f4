package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
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
// and crawls that failed whole (observe); every request by vendor, host and outcome, and its
// latency per host (request); and each committed window of the registry crawl (window). Like
// every Metrics set of the service, a nil one given to newCrawlMetrics means a set of its own,
// served nowhere.
type crawlMetrics struct {
	set   *metrics.Set
	hosts *hostLabels
}

func newCrawlMetrics(set *metrics.Set) crawlMetrics {
	if set == nil {
		set = metrics.NewSet()
	}
	return crawlMetrics{set: set, hosts: newHostLabels()}
}

// request counts one request of the fetcher (pipeline.FetchConfig.OnRequest):
// hs_crawl_requests_total{vendor,host,outcome} and the VictoriaMetrics histogram
// hs_crawl_request_duration_seconds{host} (time to the response headers), whose vmrange buckets
// give any quantile, p95 included:
//
//	histogram_quantile(0.95, sum(rate(hs_crawl_request_duration_seconds_bucket[1h])) by (host, vmrange))
func (m crawlMetrics) request(o pipeline.FetchOutcome) {
	host := m.hosts.label(o.Host)
	vendor := o.Vendor
	if vendor == "" {
		vendor = "none"
	}
	m.set.GetOrCreateCounter(fmt.Sprintf(`hs_crawl_requests_total{vendor=%q,host=%q,outcome=%q}`, vendor, host, o.Outcome)).Inc()
	m.set.GetOrCreateHistogram(fmt.Sprintf(`hs_crawl_request_duration_seconds{host=%q}`, host)).Update(o.Took.Seconds())
}

// pageCap counts a source whose chain of pages went past --fetch-max-pages
// (pipeline.FetchConfig.OnPageCap): hs_crawl_page_cap_total{vendor}. The crawl logs the source
// and the setting to raise.
func (m crawlMetrics) pageCap(_, vendor string) {
	m.set.GetOrCreateCounter(fmt.Sprintf(`hs_crawl_page_cap_total{vendor=%q}`, vendor)).Inc()
}

// worker registers what a registry worker counts of its own: the batches of reads it stored
// (hs_crawl_read_stores_total, one transaction each), the reads that waited for a full read store
// (hs_crawl_read_store_overflows_total: raise --read-store-queue), and the pages of numbered
// chains read ahead, taken or dropped (hs_crawl_chain_pages_ahead_total{use}: dropped ones are
// requests past a chain's end or a guess disproved).
func (m crawlMetrics) worker(c *sources.Crawl) {
	m.set.NewGauge(`hs_crawl_read_stores_total`, func() float64 { return float64(c.Stores()) })
	m.set.NewGauge(`hs_crawl_read_store_overflows_total`, func() float64 { return float64(c.StoreOverflows()) })
	m.set.NewGauge(`hs_crawl_chain_pages_ahead_total{use="taken"}`, func() float64 { used, _ := c.Crawler.Fetcher().ChainPages(); return float64(used) })
	m.set.NewGauge(`hs_crawl_chain_pages_ahead_total{use="dropped"}`, func() float64 { _, w := c.Crawler.Fetcher().ChainPages(); return float64(w) })
}

// window records one committed window of the registry crawl (sources.Crawl.OnWindow): the
// sources read by vendor and status (hs_crawl_window_sources_total, a counter: its increase over
// 3 h is one window's), the reqs held open only by sources not read ok (the gauge
// hs_crawl_reqs_held_open_unread: the "no fake closes" number), the chains of pages carried to a
// later window (the gauge hs_crawl_chains_carried: read in part, none of their reqs closed until
// one is read to its end), and the registry's sources by status and cooling down (gauges,
// refreshed each window).
func (m crawlMetrics) window(h sources.WindowHealth) {
	for vs, n := range h.Sources {
		m.set.GetOrCreateCounter(fmt.Sprintf(`hs_crawl_window_sources_total{vendor=%q,status=%q}`, vs.Vendor, vs.Status)).Add(n)
	}
	m.set.GetOrCreateGauge(`hs_crawl_reqs_held_open_unread`, nil).Set(float64(h.HeldOpen))
	m.set.GetOrCreateGauge(`hs_crawl_window_committed_tick`, nil).Set(float64(h.Tick))
	if h.Carried >= 0 { // -1: not counted this time, the gauge keeps the last window's figure
		m.set.GetOrCreateGauge(`hs_crawl_chains_carried`, nil).Set(float64(h.Carried))
	}
	if h.Registry == nil {
		return // not counted this time: the gauges keep the last window's figures
	}
	for status, n := range h.Registry {
		m.set.GetOrCreateGauge(fmt.Sprintf(`hs_crawl_registry_sources{status=%q}`, status), nil).Set(float64(n))
	}
	m.set.GetOrCreateGauge(`hs_crawl_registry_sources_cooling`, nil).Set(float64(h.Cooling))
}

// maxNamedHosts is how many hosts other than the vendors' own (employers' careers sites, boards,
// the aggregator's feed) keep their name as a label.
const maxNamedHosts = 20

// otherHosts is the label every host past maxNamedHosts shares.
const otherHosts = "other"

// workdayDomain is the domain of every Workday tenant's host, {company}.{wdN}.myworkdayjobs.com.
const workdayDomain = ".myworkdayjobs.com"

// hostLabels bounds the host label of the request metrics. A vendor's API host (atsurl.Hosts) is
// its own label, a tenant's subdomain folded into the vendor's host it is on, the most specific
// one: acme.recruitee.com is "*.recruitee.com", acme.na.teamtailor.com "*.na.teamtailor.com",
// careers-acme.icims.com "*.icims.com", acme.wd5.myworkdayjobs.com "*.wd5.myworkdayjobs.com" (a
// Workday data centre atsurl does not list is "*.myworkdayjobs.com"). Any other host keeps its
// name while the process has named fewer than maxNamedHosts of them, so a registry with few
// careers sites sees each one; every later one is "other". The set is at most one label per
// atsurl.Hosts entry, "*.myworkdayjobs.com", twenty others and "other".
type hostLabels struct {
	exact    map[string]bool
	suffixes []string // ".recruitee.com" for "*.recruitee.com", longest first

	mu    sync.Mutex
	named map[string]bool
}

func newHostLabels() *hostLabels {
	h := &hostLabels{exact: map[string]bool{}, named: map[string]bool{}}
	for _, host := range atsurl.Hosts() {
		if rest, ok := strings.CutPrefix(host, "*"); ok {
			h.suffixes = append(h.suffixes, rest)
		} else {
			h.exact[host] = true
		}
	}
	// A tenant of a regional host (acme.na.teamtailor.com) folds into that host's label, not
	// the vendor's main one it also ends with.
	sort.SliceStable(h.suffixes, func(i, j int) bool { return len(h.suffixes[i]) > len(h.suffixes[j]) })
	return h
}

func (h *hostLabels) label(host string) string {
	if h.exact[host] {
		return host
	}
	for _, s := range h.suffixes {
		if strings.HasSuffix(host, s) {
			return "*" + s
		}
	}
	if strings.HasSuffix(host, workdayDomain) {
		return "*" + workdayDomain
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.named[host] {
		return host
	}
	if len(h.named) < maxNamedHosts {
		h.named[host] = true
		return host
	}
	return otherHosts
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
		m.set.GetOrCreateCounter(`hs_crawl_pages_total`).Add(s.Pages)                        // each page once: a carried chain's in the window that read it
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
