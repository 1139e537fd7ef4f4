package metering

import (
	"os"
	"strings"
	"time"
)

// Backlog counts the sealed segments waiting on disk for Postgres (each up to SegmentRecords
// records): it grows while Postgres is down or slower than the calls, and is read at scrape
// time from the directory.
func (l *Log) Backlog() int {
	entries, err := os.ReadDir(l.cfg.Dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), segClosed) {
			n++
		}
	}
	return n
}

// UnflushedFor is how long the oldest sealed segment has waited on disk for Postgres (since its
// last write), 0 when none waits: the calls in it are at least that old, and live only in this
// directory. With Postgres answering it stays under a second (a segment is sealed and flushed
// every FlushInterval); it grows while Postgres cannot be reached. Read at scrape time from the
// directory (hs_metering_unflushed_seconds).
func (l *Log) UnflushedFor(now time.Time) time.Duration {
	entries, err := os.ReadDir(l.cfg.Dir)
	if err != nil {
		return 0
	}
	var oldest time.Duration
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "seg-") || !strings.HasSuffix(e.Name(), segClosed) {
			continue
		}
		if info, err := e.Info(); err == nil {
			oldest = max(oldest, now.Sub(info.ModTime()))
		}
	}
	return oldest
}

// LossBound is what a Log's directory holds that Postgres does not, while Postgres answers: the
// calls of about two flush intervals (the open segment, and the sealed one being flushed). It is
// what is lost if the instance dies and its directory is never opened again (metering replay,
// or an instance started on it); while Postgres cannot be reached, everything since it last
// answered (UnflushedFor).
func (l *Log) LossBound() time.Duration { return 2 * l.cfg.FlushInterval }

// Instance is the id this Log writes its segments under since its last Start ("" before it):
// the owner of this instance's spend holds (admission.Caps), which each flushed segment's units
// leave.
func (l *Log) Instance() string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.instance
}
