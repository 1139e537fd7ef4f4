package sim

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// everyVendor returns one source of each vendor from the directory.
func everyVendor(t *testing.T, d Directory) []Source {
	var out []Source
	for _, v := range []string{"greenhouse", "lever", "ashby", "workable", "smartrecruiters", "recruitee", "personio",
		"teamtailor", "bamboohr", "breezy", "pinpoint", "join", "jsonld", "aggregator"} {
		out = append(out, sourceOfVendor(t, d, v))
	}
	return out
}

func TestFaultServerErrorThenSuccess(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 41, Companies: 200, FaultServerError: 1})
	pin(t, ts, 3)
	for _, s := range everyVendor(t, w.Directory(3)) {
		kind, n := w.fault(s.Key, 3)
		require.Equal(t, faultServerError, kind)
		for i := 0; i < n; i++ {
			status, _, _ := get(t, s.URL)
			require.Equal(t, http.StatusServiceUnavailable, status, s.Key)
		}
		status, _, _ := get(t, s.URL)
		require.Equal(t, http.StatusOK, status, "%s succeeds after %d failures", s.Key, n)
	}
	require.Empty(t, w.Truth(3).FailedSources, "transient faults are not failed sources")
	// Attempts are counted per tick: a new tick starts over.
	pin(t, ts, 4)
	s := sourceOfVendor(t, w.Directory(4), "greenhouse")
	status, _, _ := get(t, s.URL)
	require.Equal(t, http.StatusServiceUnavailable, status)
	// Control endpoints never fault.
	status, _, _ = get(t, ts.URL+"/_sim/directory")
	require.Equal(t, http.StatusOK, status)
}

func TestFaultRateLimit(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 42, Companies: 200, FaultRateLimit: 1})
	pin(t, ts, 3)
	for _, s := range everyVendor(t, w.Directory(3)) {
		status, hdr, _ := get(t, s.URL)
		require.Equal(t, http.StatusTooManyRequests, status, s.Key)
		require.Equal(t, "1", hdr.Get("Retry-After"))
		status, _, _ = get(t, s.URL)
		require.Equal(t, http.StatusOK, status, s.Key)
	}
	require.Empty(t, w.Truth(3).FailedSources)
}

func TestFaultVanish(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 43, Companies: 200, FaultVanish: 1})
	pin(t, ts, 9)
	d := w.Directory(9)
	for _, s := range everyVendor(t, d) {
		for i := 0; i < 2; i++ {
			status, _, _ := get(t, s.URL)
			require.Equal(t, http.StatusNotFound, status, s.Key)
		}
	}
	tr := w.Truth(9)
	require.Len(t, tr.FailedSources, len(d.Sources))
	require.NotEmpty(t, tr.Reqs, "reqs whose sources failed are still live")
}

func TestFaultSlow(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 44, Companies: 100, FaultSlow: 1, SlowDelay: 80 * time.Millisecond})
	pin(t, ts, 2)
	s := sourceOfVendor(t, w.Directory(2), "lever")
	start := time.Now()
	status, _, _ := get(t, s.URL)
	require.Equal(t, http.StatusOK, status)
	require.GreaterOrEqual(t, time.Since(start), 80*time.Millisecond)

	client := &http.Client{Timeout: 20 * time.Millisecond}
	_, err := client.Get(s.URL)
	require.Error(t, err, "a sane timeout gives up on a slow source")
	require.Contains(t, w.Truth(2).FailedSources, s.Key)
}

// TestFaultSlowOnlyAtSlowTicks: outside SlowTicks a slow source fails at once with 504, every
// attempt, and the truth (its failed sources) is the one of a world without SlowTicks.
func TestFaultSlowOnlyAtSlowTicks(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 44, Companies: 100, FaultSlow: 1, SlowDelay: time.Hour, SlowTicks: func(tick int) bool { return tick == 3 }}
	w, ts := testWorld(t, cfg)
	pin(t, ts, 2)
	s := sourceOfVendor(t, w.Directory(2), "lever")
	for i := 0; i < 3; i++ {
		status, _, _ := get(t, s.URL)
		require.Equal(t, http.StatusGatewayTimeout, status, "attempt %d", i+1)
	}
	plain := cfg
	plain.SlowTicks = nil
	require.Equal(t, New(plain).Truth(2).FailedSources, w.Truth(2).FailedSources)
	require.Contains(t, w.Truth(2).FailedSources, s.Key)

	pin(t, ts, 3)
	client := &http.Client{Timeout: 20 * time.Millisecond}
	_, err := client.Get(s.URL)
	require.Error(t, err, "at a slow tick the source sleeps")
}

func TestFaultMalformedBody(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 45, Companies: 300, FaultMalformedBody: 1})
	pin(t, ts, 5)
	for _, s := range everyVendor(t, w.Directory(5)) {
		for attempt := 0; attempt < 2; attempt++ {
			status, _, body := get(t, s.URL)
			require.Equal(t, http.StatusOK, status)
			switch s.Vendor {
			case "personio", "teamtailor":
				var v struct{}
				require.Error(t, xml.Unmarshal(body, &v), s.Key)
			case "jsonld":
				require.NotContains(t, string(body), "</html>")
				m := ldScripts(append(body, "</script>"...))
				require.NotEmpty(t, m)
				var v any
				require.Error(t, json.Unmarshal(m[len(m)-1], &v), "the cut lands inside a JSON-LD block")
			default:
				var v any
				require.Error(t, json.Unmarshal(body, &v), s.Key)
			}
		}
	}
	require.Contains(t, w.Truth(5).FailedSources, sourceOfVendor(t, w.Directory(5), "greenhouse").Key)
}

func TestFaultMalformedRecord(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 46, Companies: 300, FaultMalformedRecord: 1})
	pin(t, ts, 7)
	tr := w.Truth(7)
	require.Empty(t, tr.FailedSources)
	want := truthBySource(tr)
	for _, s := range everyVendor(t, w.Directory(7)) {
		got := crawlSource(t, s)
		require.Equal(t, 1, got.junk, "%s has one junk entry", s.Key)
		require.ElementsMatch(t, want[s.Key], got.ids, "%s keeps every real posting", s.Key)
	}
}

func TestFaultsAreDeterministicAndRated(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 47, Companies: 3000, FaultServerError: 0.05, FaultRateLimit: 0.05, FaultSlow: 0.02,
		FaultMalformedRecord: 0.03, FaultMalformedBody: 0.02, FaultVanish: 0.02}
	a, b := New(cfg), New(cfg)
	fa, fb := a.Truth(50).FailedSources, b.Truth(50).FailedSources
	require.Equal(t, fa, fb)
	n := len(a.Directory(50).Sources)
	require.InDelta(t, 0.06, float64(len(fa))/float64(n), 0.015)
	require.NotEqual(t, fa, a.Truth(51).FailedSources, "faults are drawn per tick")
}

func TestConditionalAndGzip(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 48, Companies: 200})
	pin(t, ts, 10)
	for _, s := range everyVendor(t, w.Directory(10)) {
		status, hdr, body := get(t, s.URL)
		require.Equal(t, http.StatusOK, status)
		etag := hdr.Get("ETag")
		require.NotEmpty(t, etag, s.Key)
		require.Equal(t, strconv.Itoa(len(body)), hdr.Get("Content-Length"))

		status, hdr, body304 := get(t, s.URL, "If-None-Match", etag)
		require.Equal(t, http.StatusNotModified, status, s.Key)
		require.Empty(t, body304)
		require.Equal(t, etag, hdr.Get("ETag"))

		status, _, _ = get(t, s.URL, "If-None-Match", `"0000"`)
		require.Equal(t, http.StatusOK, status)

		status, hdr, gz := get(t, s.URL, "Accept-Encoding", "gzip")
		require.Equal(t, http.StatusOK, status)
		if len(body) > 256 {
			require.Equal(t, "gzip", hdr.Get("Content-Encoding"))
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			require.NoError(t, err)
			plain, err := io.ReadAll(zr)
			require.NoError(t, err)
			require.Equal(t, body, plain)
			status, _, _ = get(t, s.URL, "Accept-Encoding", "gzip", "If-None-Match", hdr.Get("ETag"))
			require.Equal(t, http.StatusNotModified, status)
		}
	}
	status, _, _ := get(t, ts.URL+"/greenhouse/v1/boards/no-such-tenant/jobs?content=true")
	require.Equal(t, http.StatusNotFound, status)
	status, _, _ = get(t, ts.URL+"/boards/jobsnorth/jobs?page=9999")
	require.Equal(t, http.StatusNotFound, status)
	status, _, _ = get(t, ts.URL+"/boards/jobsnorth/jobs?page=0")
	require.Equal(t, http.StatusBadRequest, status)
	status, _, _ = get(t, ts.URL+"/aggregator/v1/feed?region=na&cursor=bogus")
	require.Equal(t, http.StatusBadRequest, status)

	// The world moves on: a board's body changes and the old ETag no longer matches.
	s := sourceOfVendor(t, w.Directory(10), "jsonld")
	_, hdr, _ := get(t, s.URL)
	pin(t, ts, 30)
	status, _, _ = get(t, s.URL, "If-None-Match", hdr.Get("ETag"))
	require.Equal(t, http.StatusOK, status)
}

func TestNoGzipServesPlainBodies(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 48, Companies: 200, NoGzip: true})
	pin(t, ts, 10)
	plain := New(Config{Seed: 48, Companies: 200, BaseURL: ts.URL})
	for _, s := range everyVendor(t, w.Directory(10)) {
		status, hdr, body := get(t, s.URL, "Accept-Encoding", "gzip")
		require.Equal(t, http.StatusOK, status)
		require.Empty(t, hdr.Get("Content-Encoding"), s.Key)
		require.Equal(t, strconv.Itoa(len(body)), hdr.Get("Content-Length"))
		status, _, _ = get(t, s.URL, "If-None-Match", hdr.Get("ETag"))
		require.Equal(t, http.StatusNotModified, status)
	}
	require.Equal(t, plain.Truth(10), w.Truth(10), "the option changes the encoding only")
}

func TestControlEndpoints(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 49, Companies: 150, FaultVanish: 1})
	status, _, body := get(t, ts.URL+"/_sim/healthz")
	require.Equal(t, http.StatusOK, status, "%s", body)

	resp, err := http.Post(ts.URL+"/_sim/tick", "application/json", bytes.NewReader([]byte(`{"tick":77}`)))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var tk struct {
		Tick      int    `json:"tick"`
		CycleTime string `json:"cycle_time"`
	}
	decode(t, fetchOK(t, ts.URL+"/_sim/tick"), &tk)
	require.Equal(t, 77, tk.Tick)
	require.Equal(t, "2026-01-14T15:00:00Z", tk.CycleTime)
	pin(t, ts, 12)
	decode(t, fetchOK(t, ts.URL+"/_sim/tick"), &tk)
	require.Equal(t, 12, tk.Tick)

	var d Directory
	decode(t, fetchOK(t, ts.URL+"/_sim/directory?tick=5"), &d)
	require.Equal(t, w.Directory(5), d)
	decode(t, fetchOK(t, ts.URL+"/_sim/directory"), &d)
	require.Equal(t, 12, d.Tick, "defaults to the pinned tick")

	var tr Truth
	decode(t, fetchOK(t, ts.URL+"/_sim/truth?tick=6"), &tr)
	require.Equal(t, w.Truth(6), tr)

	status, _, _ = get(t, ts.URL+"/_sim/truth?tick=abc")
	require.Equal(t, http.StatusBadRequest, status)
}
