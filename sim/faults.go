package sim

import (
	"sync"
)

// Fault kinds. At most one hits a source in a tick; the draw is a hash of (seed, source key,
// tick), so it is the same for every client and every run.
const (
	faultNone = iota
	faultServerError
	faultRateLimit
	faultSlow
	faultMalformedRecord
	faultMalformedBody
	faultVanish
)

// fault returns the fault of source key at tick, and for server errors the number of failing
// attempts (1 or 2) per page URL.
func (w *World) fault(key string, tick int) (kind int, n int) {
	cfg := &w.cfg
	probs := [...]float64{cfg.FaultServerError, cfg.FaultRateLimit, cfg.FaultSlow,
		cfg.FaultMalformedRecord, cfg.FaultMalformedBody, cfg.FaultVanish}
	total := 0.0
	for _, p := range probs {
		total += max(p, 0)
	}
	if total == 0 {
		return faultNone, 0
	}
	h := h3(w.seed^saltFault, hashString(key), uint64(int64(tick)))
	x := float64(h>>11) / (1 << 53)
	for i, p := range probs {
		p = max(p, 0)
		if x < p {
			return i + 1, 1 + int(h&1)
		}
		x -= p
	}
	return faultNone, 0
}

// persistent reports whether a fault makes the source unreadable for the whole tick.
func persistent(kind int) bool {
	return kind == faultSlow || kind == faultMalformedBody || kind == faultVanish
}

// attemptTracker counts requests per (tick, URL) for transient faults. It only holds URLs of
// sources that have a transient fault this tick, is reset when the tick changes, and is
// bounded.
type attemptTracker struct {
	mu   sync.Mutex
	tick int
	m    map[string]int
}

const maxTrackedURLs = 1 << 18

// next records one more attempt at url during tick and returns its 1-based number.
func (a *attemptTracker) next(tick int, url string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil || a.tick != tick || len(a.m) >= maxTrackedURLs {
		a.m = make(map[string]int)
		a.tick = tick
	}
	a.m[url]++
	return a.m[url]
}
