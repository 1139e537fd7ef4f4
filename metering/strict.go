package metering

import (
	"fmt"
	"os"
	"time"
)

// The strict mode (SyncEvery = 0): one writer goroutine group-commits the queued records — one
// write and one fsync per batch of concurrent appends — and answers each Append after the fsync.

type pendingRecord struct {
	rec  Record
	done chan error
}

func (l *Log) writeLoop() {
	defer l.writer.Done()
	var f *os.File
	var name string
	count := 0
	tick := time.NewTicker(l.cfg.FlushInterval)
	defer tick.Stop()
	// rotate seals the open segment for the flusher; ack (may be nil) is closed once it carries
	// its .wal name.
	rotate := func(ack chan struct{}) {
		if f != nil {
			l.seal(sealedSegment{f: f, name: name})
			f, count = nil, 0
		}
		if ack != nil {
			close(ack)
		}
	}
	buf := make([]byte, 0, 64<<10)
	batch := make([]*pendingRecord, 0, 1024)
	for {
		select {
		case p, ok := <-l.in:
			if !ok {
				rotate(nil)
				return
			}
			batch = append(batch[:0], p)
		drain:
			for len(batch) < cap(batch) {
				select {
				case q, ok := <-l.in:
					if !ok {
						break drain
					}
					batch = append(batch, q)
				default:
					break drain
				}
			}
			var err error
			if f == nil {
				name = l.segmentPath()
				f, err = os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o600)
				if err == nil {
					err = syncDir(l.cfg.Dir)
				}
			}
			if err == nil {
				buf = buf[:0]
				for _, p := range batch {
					buf, err = appendFrame(buf, p.rec)
					if err != nil {
						break
					}
				}
			}
			if err == nil {
				if _, err = f.Write(buf); err == nil {
					err = f.Sync()
				}
			}
			if err != nil {
				err = fmt.Errorf("cannot write the metering log in %s: %w", l.cfg.Dir, err)
				l.cfg.Log.Error("metering write failed", "err", err)
			}
			for _, p := range batch {
				p.done <- err
			}
			count += len(batch)
			if f != nil && (err != nil || count >= l.cfg.SegmentRecords) {
				rotate(nil)
			}
		case ack := <-l.rotateReq:
			rotate(ack)
		case <-tick.C:
			if count > 0 {
				rotate(nil)
			}
		}
	}
}
