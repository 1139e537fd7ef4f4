package main

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/pipeline"
)

func TestCrawlMetricsCountCyclesAndFailedSourcesPerVendor(t *testing.T) {
	t.Parallel()
	set := metrics.NewSet()
	m := newCrawlMetrics(set)
	m.observe([]pipeline.CycleStats{
		{Region: "eu", Duration: 2 * time.Second, Events: 7, Pages: 10, NotModified: 4, BodyUnchanged: 1, Throttled: 3, Blocked: 2, Sources: 5, FailedVendors: map[string]int{"lever": 2}},
		{Region: "us", Skipped: true, Events: 99},
	}, nil)
	m.observe(nil, errors.New("directory unreachable"))
	var b bytes.Buffer
	set.WritePrometheus(&b)
	out := b.String()
	for _, want := range []string{
		`hs_crawl_cycle_duration_seconds_count{region="eu"} 1`,
		`hs_crawl_events_total{region="eu"} 7`,
		`hs_crawl_sources_failed_total{vendor="lever"} 2`,
		`hs_crawl_pages_not_modified_total 4`,
		`hs_crawl_pages_body_unchanged_total 1`,
		`hs_crawl_pages_throttled_total 3`,
		`hs_crawl_sources_blocked_total 2`,
		`hs_crawl_failures_total 1`,
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, `region="us"`, "a skipped cycle did no work")
}

func TestCrawlMetricsWithoutASetCountIntoOneOfTheirOwn(t *testing.T) {
	m := newCrawlMetrics(nil)
	m.observe([]pipeline.CycleStats{{Region: "eu", Events: 3}}, errors.New("directory unreachable"))
	var b bytes.Buffer
	m.set.WritePrometheus(&b)
	require.Contains(t, b.String(), `hs_crawl_events_total{region="eu"} 3`)
	require.Contains(t, b.String(), `hs_crawl_failures_total 1`)
}
