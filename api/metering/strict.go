package metering

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// The strict mode (SyncEvery = 0): one writer goroutine group-commits the queued records — one
// write and one fsync per batch of concurrent appends — and answers each Append after the fsync.
// A batch whose write or fsync fails is cut off the segment again (truncated to where it began)
// before its Appends hear the error: a call answered 503 for it is never billed.

type pendingRecord struct {
	rec   Record
	done  chan error
	state atomic.Int32 // recordQueued, then recordTaken by the writer or recordWithdrawn by Append
}

const (
	recordQueued int32 = iota
	recordTaken
	recordWithdrawn
)

func (l *Log) writeLoop() {
	defer l.writer.Done()
	var f *os.File
	var name string
	var size int64 // bytes of f holding whole, fsynced batches
	count := 0
	tick := time.NewTicker(l.cfg.FlushInterval)
	defer tick.Stop()
	// rotate seals the open segment for the flusher; ack (may be nil) is closed once it carries
	// its .wal name. valid < 0: the whole file; else only its first valid bytes count.
	rotate := func(ack chan struct{}, valid int64) {
		if f != nil {
			l.seal(sealedSegment{f: f, name: name, valid: valid})
			f, count, size = nil, 0, 0
		}
		if ack != nil {
			close(ack)
		}
	}
	buf := make([]byte, 0, 64<<10)
	batch := make([]*pendingRecord, 0, 1024)
	take := func(p *pendingRecord) {
		if p.state.CompareAndSwap(recordQueued, recordTaken) {
			batch = append(batch, p)
		} // else withdrawn: its caller stopped waiting and answered an error
	}
	for {
		select {
		case p, ok := <-l.in:
			if !ok {
				rotate(nil, -1)
				return
			}
			batch = batch[:0]
			take(p)
		drain:
			for len(batch) < cap(batch) {
				select {
				case q, ok := <-l.in:
					if !ok {
						break drain
					}
					take(q)
				default:
					break drain
				}
			}
			if len(batch) == 0 {
				continue
			}
			var err error
			if f == nil {
				name = l.segmentPath()
				f, err = os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o600)
				if err == nil {
					err = syncDir(l.cfg.Dir)
				}
				if err != nil {
					l.cfg.Log.Error("cannot open a metering segment", "dir", l.cfg.Dir, "err", err)
					if f != nil {
						rotate(nil, -1) // empty: nothing in it to bill
					}
				}
			}
			errs := make([]error, len(batch)) // a record that cannot be encoded fails alone
			buf = buf[:0]
			framed := 0
			for i, p := range batch {
				next, ferr := appendFrame(buf, p.rec)
				if ferr != nil {
					errs[i] = fmt.Errorf("cannot encode a usage record: %w", ferr)
					continue
				}
				buf, framed = next, framed+1
			}
			if err == nil && framed > 0 {
				l.writes.Add(1)
				if _, err = l.cfg.writeFile(f, buf); err == nil {
					err = l.fsync(f)
				}
				if err != nil {
					l.cfg.Log.Error("metering write failed", "dir", l.cfg.Dir, "err", err)
					l.cutBatch(f, name, size, rotate)
				} else {
					size += int64(len(buf))
					count += framed
				}
			}
			if err != nil {
				err = fmt.Errorf("cannot write the metering log in %s: %w", l.cfg.Dir, err)
			}
			for i, p := range batch {
				if errs[i] != nil {
					p.done <- errs[i]
				} else {
					p.done <- err
				}
			}
			if f != nil && count >= l.cfg.SegmentRecords {
				rotate(nil, -1)
			}
		case ack := <-l.rotateReq:
			rotate(ack, -1)
		case <-tick.C:
			if count > 0 {
				rotate(nil, -1)
			}
		}
	}
}

// cutBatch takes a failed batch back out of segment f (its whole batches end at size) and seals
// the segment, so the records of calls about to be answered an error are never flushed. When the
// file cannot be truncated, the segment is sealed under a name carrying size (see sealedName):
// the flusher reads only that much of it.
func (l *Log) cutBatch(f *os.File, name string, size int64, rotate func(chan struct{}, int64)) {
	if err := f.Truncate(size); err != nil {
		l.cfg.Log.Error("cannot cut a failed batch off a metering segment; the segment is sealed with its valid length in its name",
			"segment", name, "valid_bytes", size, "err", err)
		rotate(nil, size)
		return
	}
	rotate(nil, -1)
}
