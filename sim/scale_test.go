package sim

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// renderAll renders every page of every source of the directory at tick and returns the
// number of bytes and pages.
func renderAll(w *World, tick int) (bytes, pages int) {
	var buf []byte
	for i := range w.companies {
		c := &w.companies[i]
		v := c.vendorAt(tick)
		switch v {
		case vNone:
			continue
		case vGreenhouse:
			buf = w.renderGreenhouse(buf[:0], c, tick, true, false)
		case vLever:
			buf = w.renderLever(buf[:0], c, tick, 0, 100, false)
		case vAshby:
			buf = w.renderAshby(buf[:0], c, tick, true, false)
		case vWorkable:
			buf = w.renderWorkable(buf[:0], c, tick, false, false)
		case vSmartRecruiters:
			buf = w.renderSmartRecruiters(buf[:0], c, tick, 0, 100, false)
		case vRecruitee:
			buf = w.renderRecruitee(buf[:0], c, tick, false)
		case vPersonio:
			buf = w.renderPersonio(buf[:0], c, tick, false)
		case vTeamtailor:
			buf = w.renderTeamtailor(buf[:0], c, tick, 0, 200, false)
		case vBambooHR:
			buf = w.renderBambooHR(buf[:0], c, tick, false)
		case vBreezy:
			buf = w.renderBreezy(buf[:0], c, tick, false)
		case vPinpoint:
			buf = w.renderPinpoint(buf[:0], c, tick, false)
		case vJoin:
			buf = w.renderJoin(buf[:0], c, tick, 1, joinMaxPageSize, false)
		case vWorkday:
			buf = w.renderWorkday(buf[:0], c, tick, 0, workdayMaxLimit, false)
		case vICIMS:
			buf = w.renderICIMS(buf[:0], c, tick, 0, false)
		case vJobvite:
			buf = w.renderJobvite(buf[:0], c, tick, 0, false)
		case vJazzHR:
			buf = w.renderJazzHR(buf[:0], c, tick, false)
		case vRippling:
			buf = w.renderRippling(buf[:0], c, tick, 0, 50, false)
		}
		bytes += len(buf)
		pages++
	}
	snap := w.snapshot(tick)
	for bi := range boardDefs {
		for p := 1; p <= boardPages(len(snap.boards[bi])); p++ {
			buf = w.renderJSONLD(buf[:0], bi, tick, p, "http://127.0.0.1:7070", false)
			bytes += len(buf)
			pages++
		}
	}
	for r := 0; r < numRegions; r++ {
		for off := 0; off == 0 || off < len(snap.aggs[r]); off += aggPageSize {
			buf = w.renderAggregator(buf[:0], r, tick, off, false)
			bytes += len(buf)
			pages++
		}
	}
	return bytes, pages
}

func TestScale100k(t *testing.T) {
	// Not parallel: it reports the build's heap and timings, which tests running beside it would skew.
	if testing.Short() {
		t.Skip("builds a 100,000-company world")
	}
	n := 100000
	if raceEnabled {
		n = 5000 // the race detector makes this ~10x slower; the full size runs without -race
	}
	start := time.Now()
	w := New(Config{Seed: 42, Companies: n, BaseURL: "http://127.0.0.1:7070"})
	built := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)

	start = time.Now()
	d := w.Directory(100)
	dirTime := time.Since(start)

	start = time.Now()
	w.snapshot(100)
	snapTime := time.Since(start)

	start = time.Now()
	bytes, pages := renderAll(w, 100)
	renderTime := time.Since(start)

	start = time.Now()
	var jsonBytes countingWriter
	require.NoError(t, json.NewEncoder(&jsonBytes).Encode(d))
	dirJSON := time.Since(start)

	start = time.Now()
	tr := w.Truth(100)
	truthTime := time.Since(start)

	t.Logf("companies=%d sources=%d build=%v heap=%.0f MB directory=%v (+%v JSON, %.1f MB) snapshot=%v render=%v (%d pages, %.1f MB) truth=%v (%d reqs)",
		n, len(d.Sources), built, float64(ms.HeapAlloc)/1e6, dirTime, dirJSON, float64(jsonBytes)/1e6,
		snapTime, renderTime, pages, float64(bytes)/1e6, truthTime, len(tr.Reqs))
	require.Greater(t, pages, len(d.Sources))
	require.InDelta(t, 10*0.85*float64(n), float64(len(tr.Reqs)), 0.1*float64(n)*10)
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
