package metering

import (
	"os"
	"strings"
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
