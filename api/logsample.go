package api

import (
	"log/slog"
	"sync"
	"time"
)

// unavailableLogEvery is how often the chain logs a route's 503 answers: a store outage fails
// every request, and one line per request would bury the log (and the disk) in copies.
const unavailableLogEvery = 10 * time.Second

// logSampler logs at most one line per key per interval and counts what it held back, which the
// next line reports as "suppressed".
type logSampler struct {
	every time.Duration
	mu    sync.Mutex
	keys  map[string]*sampled
}

type sampled struct {
	last       time.Time
	suppressed int
}

func newLogSampler(every time.Duration) *logSampler {
	return &logSampler{every: every, keys: map[string]*sampled{}}
}

// log writes msg at level for key unless one was written less than the interval ago.
func (l *logSampler) log(log *slog.Logger, level slog.Level, key string, now time.Time, msg string, args ...any) {
	l.mu.Lock()
	s := l.keys[key]
	if s == nil {
		s = &sampled{}
		l.keys[key] = s // keys are route names: a fixed, small set
	}
	if !s.last.IsZero() && now.Sub(s.last) < l.every {
		s.suppressed++
		l.mu.Unlock()
		return
	}
	n := s.suppressed
	s.last, s.suppressed = now, 0
	l.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n, "suppressed_over", l.every.String())
	}
	log.Log(nil, level, msg, args...) //nolint:staticcheck // no context: the line is about many requests
}
