package metering

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The relaxed mode (SyncEvery > 0): Append writes its own frame to the open segment under a
// mutex — one small write(2), no hand-off to another goroutine — and returns: the record is in
// the kernel's page cache, so it survives a crash of this process. The syncer goroutine fsyncs
// the open segment every SyncEvery when it was written to, and seals segments (fsync, close,
// rename to .wal, fsync the directory) when they fill up, age past FlushInterval or Flush asks.
// A segment that fills up is fsynced by the Append that filled it, before it queues for the
// syncer: the periodic fsync covers only the open segment, so a sealed one must not wait
// unsynced behind a backlog. Only the syncer closes segment files, so its periodic fsync never
// races a close.

type relaxedState struct {
	mu     sync.Mutex // guards f, name, count and the order of frames in f
	f      *os.File
	name   string
	count  int
	sealed chan sealedSegment // segments to seal, and Flush markers (f == nil), in order

	cur      atomic.Pointer[os.File] // the open segment, for the syncer's periodic fsync
	dirty    atomic.Bool             // cur has writes not yet fsynced
	dirDirty atomic.Bool             // a segment was created since the last directory fsync
	syncErrs atomic.Int64
}

// sealedSegment is a segment nobody writes any more (f may be nil for a bare Flush marker).
type sealedSegment struct {
	f      *os.File
	name   string
	ack    chan struct{} // closed once the segment carries its .wal name
	synced bool          // fsynced since its last write
	valid  int64         // < 0: the whole file; else only its first valid bytes hold records (see sealedName)
}

// frames are the buffers appendDirect encodes records in.
var frames = sync.Pool{New: func() any { b := make([]byte, 0, 320); return &b }}

// appendDirect is Append in relaxed mode; the caller holds l.mu for reading (so Stop waits).
func (l *Log) appendDirect(rec Record) error {
	fb := frames.Get().(*[]byte)
	defer frames.Put(fb)
	frame, err := appendFrame((*fb)[:0], rec)
	if err != nil {
		return fmt.Errorf("cannot encode a usage record: %w", err)
	}
	*fb = frame // written before it returns: the buffer is the next record's
	r := &l.relaxed
	r.mu.Lock()
	if r.f == nil {
		name := l.segmentPath()
		f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o600)
		if err != nil {
			r.mu.Unlock()
			return fmt.Errorf("cannot open a metering segment in %s: %w", l.cfg.Dir, err)
		}
		r.f, r.name, r.count = f, name, 0
		r.cur.Store(f)
		r.dirDirty.Store(true)
	}
	// Frames are written whole and in order under the mutex: a crash can tear only the last
	// frame, whose Append had not returned.
	_, err = r.f.Write(frame)
	var full sealedSegment
	if err != nil {
		err = fmt.Errorf("cannot write the metering log in %s: %w", l.cfg.Dir, err)
		full = l.takeLocked(nil) // a torn frame ends the segment; the next Append opens another
	} else {
		r.dirty.Store(true)
		r.count++
		if r.count >= l.cfg.SegmentRecords {
			full = l.takeLocked(nil)
		}
	}
	if full.f != nil {
		// Fsynced and queued under the mutex: segments reach the syncer in the order they were
		// written, so a Flush marker queued after this never overtakes it (once per segment).
		if serr := l.fsync(full.f); serr != nil {
			r.syncErrs.Add(1)
			l.cfg.Log.Error("cannot fsync a full metering segment; its records are in the kernel and flushed from there", "segment", full.name, "err", serr)
		} else {
			full.synced = true
		}
		l.queueSealed(full)
	}
	r.mu.Unlock()
	if err != nil {
		l.cfg.Log.Error("metering write failed", "err", err)
	}
	return err
}

// queueSealed hands a sealed segment to the syncer (r.mu held, so the queue keeps write order).
// The queue is bounded: a syncer that falls behind blocks appends (nothing is lost), which is
// counted and logged.
func (l *Log) queueSealed(s sealedSegment) {
	select {
	case l.relaxed.sealed <- s:
		return
	default:
	}
	l.overflows.Add(1)
	if now := time.Now().Unix(); l.lastWarn.Swap(now) != now {
		l.cfg.Log.Warn("metering syncer behind: calls wait for sealed segments to be fsynced; raise --metering-queue (HS_METERING_QUEUE) or use a faster disk",
			"sealed_queue", cap(l.relaxed.sealed), "overflows", l.overflows.Load())
	}
	l.relaxed.sealed <- s
}

// takeLocked detaches the open segment (r.mu held).
func (l *Log) takeLocked(ack chan struct{}) sealedSegment {
	r := &l.relaxed
	s := sealedSegment{f: r.f, name: r.name, ack: ack, valid: -1}
	r.f, r.name, r.count = nil, "", 0
	r.cur.Store(nil)
	return s
}

// sealCurrent hands the open segment (or, with none open, a bare marker) to the syncer; ack is
// closed once it and every segment handed over before it are sealed. The caller holds l.mu for
// reading or has closed the log.
func (l *Log) sealCurrent(ack chan struct{}) {
	r := &l.relaxed
	r.mu.Lock()
	defer r.mu.Unlock()
	l.queueSealed(l.takeLocked(ack))
}

// seal makes a segment durable and visible to the flusher: fsync (unless the sealer did), close,
// rename to .wal, fsync the directory (so the new name survives power loss), then wake the
// flusher.
func (l *Log) seal(s sealedSegment) {
	if s.f != nil {
		if !s.synced {
			if err := l.fsync(s.f); err != nil {
				l.relaxed.syncErrs.Add(1)
				l.cfg.Log.Error("cannot fsync a metering segment; its records are in the kernel and flushed from there", "segment", s.name, "err", err)
			}
		}
		_ = s.f.Close()
		if err := l.cfg.renameFile(s.name, sealedName(s.name, s.valid)); err != nil {
			l.cfg.Log.Error("cannot close a metering segment; it is replayed at the next start", "segment", s.name, "err", err)
		} else if err := syncDir(l.cfg.Dir); err != nil {
			l.cfg.Log.Warn("cannot fsync the metering log dir", "dir", l.cfg.Dir, "err", err)
		}
		l.kick()
	}
	if s.ack != nil {
		close(s.ack)
	}
}

// sealedName is the .wal name of the open segment at path. valid >= 0 (a failed batch could
// not be cut off) puts the segment's valid length in the name, seg-<instance>-<seq>~<valid>.wal,
// and the flusher reads no further.
func sealedName(path string, valid int64) string {
	base := strings.TrimSuffix(path, segOpen)
	if valid >= 0 {
		base += "~" + strconv.FormatInt(valid, 10)
	}
	return base + segClosed
}

// syncLoop is the relaxed mode's syncer. It ends when Stop closed the sealed channel (after
// handing over the last segment).
func (l *Log) syncLoop() {
	defer l.writer.Done()
	r := &l.relaxed
	syncTick := time.NewTicker(l.cfg.SyncEvery)
	defer syncTick.Stop()
	ageTick := time.NewTicker(l.cfg.FlushInterval)
	defer ageTick.Stop()
	for {
		select {
		case s, ok := <-r.sealed:
			if !ok {
				return
			}
			l.seal(s)
		case <-syncTick.C:
			if r.dirDirty.Swap(false) {
				if err := syncDir(l.cfg.Dir); err != nil {
					l.cfg.Log.Warn("cannot fsync the metering log dir", "dir", l.cfg.Dir, "err", err)
				}
			}
			if r.dirty.Swap(false) {
				if f := r.cur.Load(); f != nil {
					if err := l.fsync(f); err != nil && !errors.Is(err, os.ErrClosed) {
						r.syncErrs.Add(1)
						l.cfg.Log.Error("cannot fsync the metering log", "dir", l.cfg.Dir, "err", err)
					}
				}
			}
		case <-ageTick.C:
			// An Append may hold the mutex while it waits for room in the sealed queue, which
			// only this goroutine drains: skip this age check rather than wait for it.
			if !r.mu.TryLock() {
				continue
			}
			var s sealedSegment
			if r.count > 0 {
				s = l.takeLocked(nil)
			}
			r.mu.Unlock()
			l.seal(s) // sealed here, not sent: this goroutine is the channel's only reader
		}
	}
}
