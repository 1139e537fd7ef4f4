package dispatch

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Schedule says how long after its failures-th failed attempt a delivery is tried again, and
// false when no attempt is left (the delivery fails).
type Schedule func(failures int) (time.Duration, bool)

// DefaultSchedule is the Standard Webhooks example schedule (immediately, 5 s, 5 min, 30 min,
// 2 h, 5 h, 10 h, 10 h) extended by 10-hour steps to about three days (12 attempts over 67.6
// hours), each delay with ±20% jitter so the retries of many deliveries that failed together (a
// receiver down for a minute) do not all come back at the same second.
func DefaultSchedule(failures int) (time.Duration, bool) {
	retryDelays := [...]time.Duration{
		5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
		10 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour,
	}
	if failures < 1 || failures > len(retryDelays) {
		return 0, false
	}
	d := retryDelays[failures-1]
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64())), true
}

// retryAfter reads a Retry-After header (delay-seconds or an HTTP date) at now; false when absent
// or unreadable.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(h, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(min(n, 1<<32)) * time.Second, true
	}
	t, err := http.ParseTime(h)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
