package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
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

func TestRequestMetricsByVendorHostAndOutcomeWithBoundedHosts(t *testing.T) {
	t.Parallel()
	set := metrics.NewSet()
	m := newCrawlMetrics(set)
	m.request(pipeline.FetchOutcome{Vendor: "greenhouse", Host: "boards-api.greenhouse.io", Outcome: pipeline.OutcomeOK, Took: 80 * time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "greenhouse", Host: "boards-api.greenhouse.io", Outcome: pipeline.OutcomeNotModified, Took: 20 * time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "recruitee", Host: "acme.recruitee.com", Outcome: pipeline.Outcome429, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "recruitee", Host: "beta.recruitee.com", Outcome: pipeline.Outcome429, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "teamtailor", Host: "acme.teamtailor.com", Outcome: pipeline.OutcomeOK, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "teamtailor", Host: "acme.na.teamtailor.com", Outcome: pipeline.OutcomeOK, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "join", Host: "join.com", Outcome: pipeline.OutcomeOK, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "workday", Host: "acme.wd5.myworkdayjobs.com", Outcome: pipeline.OutcomeOK, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "workday", Host: "beta.wd5.myworkdayjobs.com", Outcome: pipeline.OutcomeOK, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "workday", Host: "gamma.wd77.myworkdayjobs.com", Outcome: pipeline.OutcomeOK, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "icims", Host: "careers-acme.icims.com", Outcome: pipeline.OutcomeOK, Took: time.Millisecond})
	m.request(pipeline.FetchOutcome{Vendor: "jazzhr", Host: "acme.applytojob.com", Outcome: pipeline.OutcomeOK, Took: time.Millisecond})
	// Careers sites: the first maxNamedHosts keep their names, the rest share one label.
	for i := range maxNamedHosts + 5 {
		m.request(pipeline.FetchOutcome{Vendor: "jsonld", Host: fmt.Sprintf("careers%02d.example", i), Outcome: pipeline.Outcome5xx, Took: time.Second})
	}
	var b bytes.Buffer
	set.WritePrometheus(&b)
	out := b.String()
	for _, want := range []string{
		`hs_crawl_requests_total{vendor="greenhouse",host="boards-api.greenhouse.io",outcome="ok"} 1`,
		`hs_crawl_requests_total{vendor="greenhouse",host="boards-api.greenhouse.io",outcome="not_modified"} 1`,
		`hs_crawl_requests_total{vendor="recruitee",host="*.recruitee.com",outcome="429"} 2`,
		`hs_crawl_requests_total{vendor="teamtailor",host="*.teamtailor.com",outcome="ok"} 1`,
		`hs_crawl_requests_total{vendor="teamtailor",host="*.na.teamtailor.com",outcome="ok"} 1`, // the most specific host
		`hs_crawl_requests_total{vendor="join",host="join.com",outcome="ok"} 1`,
		`hs_crawl_requests_total{vendor="workday",host="*.wd5.myworkdayjobs.com",outcome="ok"} 2`,
		`hs_crawl_requests_total{vendor="workday",host="*.myworkdayjobs.com",outcome="ok"} 1`,
		`hs_crawl_requests_total{vendor="icims",host="*.icims.com",outcome="ok"} 1`,
		`hs_crawl_requests_total{vendor="jazzhr",host="*.applytojob.com",outcome="ok"} 1`,
		`hs_crawl_requests_total{vendor="jsonld",host="careers00.example",outcome="5xx"} 1`,
		fmt.Sprintf(`hs_crawl_requests_total{vendor="jsonld",host="careers%02d.example",outcome="5xx"} 1`, maxNamedHosts-1),
		`hs_crawl_requests_total{vendor="jsonld",host="other",outcome="5xx"} 5`,
		`hs_crawl_request_duration_seconds_count{host="boards-api.greenhouse.io"} 2`,
		`hs_crawl_request_duration_seconds_bucket{host="boards-api.greenhouse.io",vmrange=`,
		`hs_crawl_request_duration_seconds_count{host="other"} 5`,
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "acme.recruitee.com", "a tenant's subdomain is not a label")
	require.NotContains(t, out, "gamma.wd77", "nor a Workday tenant's on a data centre atsurl does not list")
	require.NotContains(t, out, fmt.Sprintf("careers%02d.example", maxNamedHosts))
}

func TestWindowMetricsCountSourcesAndGaugeTheRegistry(t *testing.T) {
	t.Parallel()
	set := metrics.NewSet()
	m := newCrawlMetrics(set)
	h := sources.WindowHealth{Tick: 41, HeldOpen: 12, Cooling: 2, Carried: 1,
		Sources: map[sources.VendorStatus]int{
			{Vendor: "greenhouse", Status: pipeline.StatusOK}:     40,
			{Vendor: "greenhouse", Status: pipeline.StatusFailed}: 3,
			{Vendor: "lever", Status: pipeline.StatusNotFetched}:  2,
			{Vendor: "ashby", Status: pipeline.StatusSuspect}:     1,
			{Vendor: "jsonld", Status: pipeline.StatusBlocked}:    1,
			{Vendor: "jsonld", Status: pipeline.StatusPartial}:    1,
		},
		Registry: map[string]int{"active": 45, "suspect": 1, "paused": 1, "retired": 0, "candidate": 7}}
	m.window(h)
	h.Tick, h.HeldOpen, h.Registry, h.Carried = 42, 9, nil, -1 // not counted this time: the registry and chain gauges stand
	m.window(h)
	var b bytes.Buffer
	set.WritePrometheus(&b)
	out := b.String()
	for _, want := range []string{
		`hs_crawl_window_sources_total{vendor="greenhouse",status="ok"} 80`,
		`hs_crawl_window_sources_total{vendor="greenhouse",status="failed"} 6`,
		`hs_crawl_window_sources_total{vendor="lever",status="not_fetched"} 4`,
		`hs_crawl_window_sources_total{vendor="ashby",status="suspect_empty"} 2`,
		`hs_crawl_window_sources_total{vendor="jsonld",status="blocked"} 2`,
		`hs_crawl_reqs_held_open_unread 9`,
		`hs_crawl_window_committed_tick 42`,
		`hs_crawl_registry_sources{status="active"} 45`,
		`hs_crawl_registry_sources{status="retired"} 0`,
		`hs_crawl_registry_sources_cooling 2`,
		`hs_crawl_window_sources_total{vendor="jsonld",status="partial"} 2`,
		`hs_crawl_chains_carried 1`,
	} {
		require.Contains(t, out, want)
	}
}
