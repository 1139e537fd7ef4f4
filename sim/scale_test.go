package sim

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// renderAll renders every page of every source of the directory at tick (eachBody) and returns
// the number of bytes and pages.
func renderAll(w *World, tick int) (bytes, pages int) {
	eachBody(w, tick, func(_ string, b []byte) {
		bytes += len(b)
		pages++
	})
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
