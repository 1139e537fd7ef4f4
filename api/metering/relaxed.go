package metering

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The relaxed mode (SyncEvery > 0): Append writes its frame to the open segment itself — no
// hand-off to another goroutine — and returns once it is written: the record is in the kernel's
// page cache, so it survives a crash of this process.
//
// Appends that arrive together share one write(2) (the group write). An Append puts its encoded
// frame in the pending batch; the Append that started the batch leads it: it yields its processor
// once (so the calls ready to run append theirs), waits for the write under way to end (the write
// lock), takes the whole batch, writes it in one call and wakes the Appends whose frames it
// carried. No goroutine is started for it. Each Append returns only once its own frame is
// written, or with the error of the write that carried it: nothing acknowledged is lost, and a
// crash tears at most frames whose Append had not returned. A batch holds at most maxBatchBytes;
// an Append that finds it full waits for its leader to take it and starts the next one. Frames
// go to the segment whole and in the order they joined the batch, and batches in the order they
// were started (one is pending at a time, taken under the write lock).
//
// A batch never splits a frame and never carries a segment past SegmentRecords: the frames that
// fill the segment go in one write, the segment is sealed, and the rest go in the next one. A
// write that fails ends its segment, cut back to its whole frames before that write (or sealed
// with that valid length in its name, when it cannot be cut), so no frame of an Append answered
// an error is flushed; the frames of the batch that went into a segment it filled before are
// acknowledged, the others fail, and the next Append opens a new segment. Flush and Stop seal the
// open segment under the write lock: after the write under way, so every frame whose Append
// returned before is in it or in a segment sealed before it.
//
// The syncer goroutine fsyncs the open segment every SyncEvery when it was written to, and seals
// segments (fsync, close, rename to .wal, fsync the directory) when they fill up, age past
// FlushInterval or Flush asks. A segment that fills up is fsynced by the writer that filled it,
// before it queues for the syncer: the periodic fsync covers only the open segment, so a sealed
// one must not wait unsynced behind a backlog. Only the syncer closes segment files, so its
// periodic fsync never races a close.

type relaxedState struct {
	mu      sync.Mutex  // guards pending; taken after wmu, never before it
	pending *frameBatch // frames waiting for the next write; nil when none

	wmu    sync.Mutex // the write lock: guards f, name, size, count and the order of frames in f
	f      *os.File
	name   string
	size   int64              // bytes of f holding whole frames
	count  int                // frames in f
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

// maxBatchBytes bounds the frames one group write carries: about 600 frames of a metered call.
const maxBatchBytes = 64 << 10

// frameBatch is the frames of Appends that share one write. Its leader (the Append of frame 0)
// writes it; the others wait on done.
type frameBatch struct {
	buf   []byte        // the frames, whole and in order
	n     int           // frames in buf
	taken chan struct{} // made by an Append that found the batch full; closed when the leader takes it
	done  chan struct{} // made by the first Append after the leader's; closed once the batch is written
	// Set by the leader before done is closed: frames before written are in the log; the others
	// failed with err.
	written int
	err     error
}

// outcome is what the Append of frame i answers.
func (b *frameBatch) outcome(i int) error {
	if i < b.written {
		return nil
	}
	return b.err
}

// frames are the buffers Appends encode records in; batches the frame batches, with their
// buffers, once written.
var (
	frames  = sync.Pool{New: func() any { b := make([]byte, 0, 320); return &b }}
	batches = sync.Pool{New: func() any { return &frameBatch{buf: make([]byte, 0, 4<<10)} }}
)

// appendDirect is Append in relaxed mode; the caller holds l.mu for reading (so Stop waits).
func (l *Log) appendDirect(rec Record) error {
	fb := frames.Get().(*[]byte)
	frame, err := appendFrame((*fb)[:0], rec)
	if err != nil {
		frames.Put(fb)
		return fmt.Errorf("cannot encode a usage record: %w", err)
	}
	*fb = frame
	r := &l.relaxed
	r.mu.Lock()
	for r.pending != nil && len(r.pending.buf)+len(frame) > maxBatchBytes {
		// Full: wait for its leader to take it, then start the next batch (a batch takes its
		// first frame whatever its size).
		b := r.pending
		if b.taken == nil {
			b.taken = make(chan struct{})
		}
		taken := b.taken
		r.mu.Unlock()
		<-taken
		r.mu.Lock()
	}
	b := r.pending
	lead := b == nil
	if lead {
		b = batches.Get().(*frameBatch)
		r.pending = b
	}
	i := b.n
	b.buf = append(b.buf, frame...)
	b.n++
	frames.Put(fb)
	if !lead {
		if b.done == nil {
			b.done = make(chan struct{})
		}
		done := b.done
		r.mu.Unlock()
		<-done
		return b.outcome(i)
	}
	r.mu.Unlock()
	return l.writeBatch(b)
}

// writeBatch is the leader's part: once the write before it has ended, it takes batch b (every
// frame appended to it until then), writes it, wakes the Appends it carried and returns the
// outcome of its own frame (the first).
func (l *Log) writeBatch(b *frameBatch) error {
	r := &l.relaxed
	// Yield once before taking the batch: the calls ready to run meanwhile append their frames to
	// it. Without it, a busy server's write(2) is too short for other calls to arrive while it
	// runs, and nearly every write carries one frame (bench/README.md, "Metering log").
	runtime.Gosched()
	r.wmu.Lock()
	r.mu.Lock()
	r.pending = nil // only b's leader takes b: it is still the pending batch
	taken, done := b.taken, b.done
	r.mu.Unlock()
	if taken != nil {
		close(taken)
	}
	l.writeFramesLocked(b)
	r.wmu.Unlock()
	err, n, written, buf := b.outcome(0), b.n, b.written, b.buf
	if done != nil {
		close(done) // its Appends read written and err: b is theirs now, its buffer is not
		b = &frameBatch{buf: buf}
	} else if taken != nil {
		b = &frameBatch{buf: buf} // an Append that found it full may still hold b
	}
	if cap(b.buf) <= 2*maxBatchBytes {
		*b = frameBatch{buf: b.buf[:0]}
		batches.Put(b)
	}
	if err != nil {
		l.cfg.Log.Error("metering write failed", "calls_failed", n-written, "err", err)
	}
	return err
}

// writeFramesLocked writes b's frames to the open segment (opening one when none is), one write
// per segment they go to, and sets b.written and b.err (r.wmu held).
func (l *Log) writeFramesLocked(b *frameBatch) {
	r := &l.relaxed
	buf := b.buf
	from := 0 // where frame b.written starts in buf
	for b.written < b.n {
		if r.f == nil {
			name := l.segmentPath()
			f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o600)
			if err != nil {
				b.err = fmt.Errorf("cannot open a metering segment in %s: %w", l.cfg.Dir, err)
				return
			}
			r.f, r.name, r.size, r.count = f, name, 0, 0
			r.cur.Store(f)
			r.dirDirty.Store(true)
		}
		// The frames that fit in the segment go in one write: whole and in order, so a crash
		// tears at most the frames of this write, whose Appends have not returned.
		n := min(b.n-b.written, l.cfg.SegmentRecords-r.count)
		to := len(buf)
		if n < b.n-b.written {
			to = framesEnd(buf, from, n)
		}
		l.writes.Add(1)
		if _, err := l.cfg.writeFile(r.f, buf[from:to]); err != nil {
			b.err = fmt.Errorf("cannot write the metering log in %s: %w", l.cfg.Dir, err)
			l.sealFull(l.cutLocked()) // the next Append opens another segment
			return
		}
		r.dirty.Store(true)
		r.size += int64(to - from)
		r.count += n
		b.written += n
		from = to
		if r.count >= l.cfg.SegmentRecords {
			l.sealFull(l.takeLocked(nil))
		}
	}
}

// framesEnd is where the n whole frames starting at buf[from:] end (each frame's first four bytes
// are its payload's length).
func framesEnd(buf []byte, from, n int) int {
	for ; n > 0; n-- {
		from += 8 + int(binary.LittleEndian.Uint32(buf[from:]))
	}
	return from
}

// cutLocked detaches the open segment after a failed write, cut back to its whole frames before
// that write so none of the failed Appends' frames is flushed; when the file cannot be cut, the
// segment is sealed under a name carrying its valid length (see sealedName). r.wmu held.
func (l *Log) cutLocked() sealedSegment {
	r := &l.relaxed
	size, name := r.size, r.name
	s := l.takeLocked(nil)
	if err := s.f.Truncate(size); err != nil {
		l.cfg.Log.Error("cannot cut a failed write off a metering segment; the segment is sealed with its valid length in its name",
			"segment", name, "valid_bytes", size, "err", err)
		s.valid = size
	}
	return s
}

// sealFull fsyncs a segment nobody writes any more and queues it for the syncer (r.wmu held):
// segments reach the syncer in the order they were written, so a Flush marker queued after this
// never overtakes it (once per segment).
func (l *Log) sealFull(s sealedSegment) {
	if err := l.fsync(s.f); err != nil {
		l.relaxed.syncErrs.Add(1)
		l.cfg.Log.Error("cannot fsync a full metering segment; its records are in the kernel and flushed from there", "segment", s.name, "err", err)
	} else {
		s.synced = true
	}
	l.queueSealed(s)
}

// queueSealed hands a sealed segment to the syncer (r.wmu held, so the queue keeps write order).
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

// takeLocked detaches the open segment (r.wmu held).
func (l *Log) takeLocked(ack chan struct{}) sealedSegment {
	r := &l.relaxed
	s := sealedSegment{f: r.f, name: r.name, ack: ack, valid: -1}
	r.f, r.name, r.size, r.count = nil, "", 0, 0
	r.cur.Store(nil)
	return s
}

// sealCurrent hands the open segment (or, with none open, a bare marker) to the syncer; ack is
// closed once it and every segment handed over before it are sealed. The caller holds l.mu for
// reading or has closed the log.
func (l *Log) sealCurrent(ack chan struct{}) {
	r := &l.relaxed
	r.wmu.Lock() // after the write under way, if any: what it carries is in this segment
	defer r.wmu.Unlock()
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
			// A writer may hold the write lock while it waits for room in the sealed queue,
			// which only this goroutine drains: skip this age check rather than wait for it.
			if !r.wmu.TryLock() {
				continue
			}
			var s sealedSegment
			if r.count > 0 {
				s = l.takeLocked(nil)
			}
			r.wmu.Unlock()
			l.seal(s) // sealed here, not sent: this goroutine is the channel's only reader
		}
	}
}
