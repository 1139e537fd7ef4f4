// Package metering owns the write-ahead log of metered calls: each API instance appends a record
// per metered call to local segment files before the answer leaves, and a flusher moves closed
// segments into the Postgres usage ledger (usage_segments, usage_events, usage_monthly), once
// each, replaying what a crashed process left; the same transaction takes a segment's units off
// the spend hold of the instance that wrote it (oltp.SettleSpendHolds). What a directory holds that Postgres does not is
// lost if its instance dies and nothing opens the directory again: it is bounded (LossBound, two
// flush intervals while Postgres answers), measured (UnflushedFor, everything since Postgres
// last answered) and named in the log. A Log follows the lifecycle contract.
//
// It writes the ledger and nothing else: reading usage belongs to package oltp, deciding what a
// call costs to package api. It must not know HTTP.
package metering

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Config configures a Log. Zero values take the defaults noted.
type Config struct {
	Dir            string        // write-ahead log directory, one per running instance
	Pool           *pgxpool.Pool // where records end up (usage_events, usage_monthly)
	Log            *slog.Logger  // default: discard
	QueueSize      int           // records waiting for the disk writer; default 8192 (flag --metering-queue)
	SegmentRecords int           // a segment is closed and flushed at this many records; default 4096
	FlushInterval  time.Duration // ...or after this long; default 500ms
	// SyncEvery chooses when an appended record counts as recorded. 0 (strict): Append returns
	// after the batch is fsynced, so it survives power loss. > 0 (relaxed): Append returns once
	// the batch is written to the segment file (it survives a crash of the process, not of the
	// machine) and a syncer fsyncs the open segment at most this long later and every segment
	// before it is handed to the flusher. Flag --metering-fsync-interval.
	SyncEvery time.Duration
	// Committed, when set, learns the units of each segment this Log wrote once Postgres holds
	// them (per account and UTC month, first day given), so an estimate of unflushed units (the
	// spend caps) can move them to the Postgres side. It is not told about segments another
	// process left (their units were never counted as unflushed here), nor twice about one.
	Committed func(accountID int64, month time.Time, units int64)

	// Test seams (nil: the os functions): fault injection for the disk paths.
	writeFile  func(f *os.File, b []byte) (int, error) // every write of frames to a segment, in both modes
	syncFile   func(*os.File) error
	renameFile func(oldpath, newpath string) error
	readFile   func(path string) ([]byte, error)
}

// Log is the durable, asynchronous path of metering. Append writes the record to a local
// append-only segment before returning, so a unit acknowledged to a caller survives a crash of the
// process; in strict mode (SyncEvery = 0) it also waits for the fsync (group commit: one write and
// one fsync per batch of concurrent appends), in relaxed mode concurrent appends share one write
// (group write) and a syncer fsyncs within SyncEvery. Closed segments
// are inserted into Postgres in batches by a flusher (by size or timer) and deleted only after the
// transaction commits; on start, segments left by a crashed process are replayed. A full queue
// blocks Append (never drops), is counted and logged with the setting to raise, and a Postgres
// outage leaves segments on disk (the spill) until it answers again.
type Log struct {
	cfg       Config
	in        chan *pendingRecord // strict mode: records for the group-commit writer
	rotateReq chan chan struct{}  // strict mode: Flush asks the writer to seal its segment
	relaxed   relaxedState
	poke      chan struct{}
	lock      *os.File
	instance  string          // random per start: segment ids (file names) never repeat
	ownIDs    map[string]bool // every instance id this Log wrote under (Committed reports only those); guarded by flushMu
	seq       atomic.Int64
	overflows atomic.Int64
	writes    atomic.Int64 // write calls that carried frames to a segment
	lastWarn  atomic.Int64
	readErrs  atomic.Int64     // segments that could not be read (kept, retried)
	badWarned map[string]int64 // segment → unix second of its last warning; guarded by flushMu

	flights   sync.Mutex // nextFlush
	nextFlush *flushFlight
	flushSlot chan struct{} // one Flush runs at a time
	lastFlush time.Time     // when the last Flush started; guarded by flushSlot

	mu      sync.RWMutex // running, and the inputs Append and Flush send on
	running bool
	flushMu sync.Mutex
	cancel  context.CancelFunc
	writer  sync.WaitGroup
	flusher sync.WaitGroup
}

const (
	segOpen   = ".open"
	segClosed = ".wal"
)

// New returns a Log over cfg.Dir; Start opens it.
func New(cfg Config) *Log {
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 8192
	}
	if cfg.SegmentRecords <= 0 {
		cfg.SegmentRecords = 4096
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = 500 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.writeFile == nil {
		cfg.writeFile = (*os.File).Write
	}
	if cfg.syncFile == nil {
		cfg.syncFile = (*os.File).Sync
	}
	if cfg.renameFile == nil {
		cfg.renameFile = os.Rename
	}
	if cfg.readFile == nil {
		cfg.readFile = os.ReadFile
	}
	return &Log{cfg: cfg, poke: make(chan struct{}, 1), ownIDs: map[string]bool{}, badWarned: map[string]int64{}, flushSlot: make(chan struct{}, 1)}
}

// Start locks the directory (one process per directory), closes the segments a crashed process
// left open so the flusher replays them, and runs the disk writer and the Postgres flusher. A
// second Start of a running Log does nothing.
func (l *Log) Start(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running {
		return nil
	}
	if err := l.open(); err != nil {
		return err
	}
	l.in = make(chan *pendingRecord, l.cfg.QueueSize)
	l.rotateReq = make(chan chan struct{})
	l.relaxed.sealed = make(chan sealedSegment, sealedQueue(l.cfg.QueueSize))
	var fctx context.Context
	fctx, l.cancel = context.WithCancel(context.WithoutCancel(ctx))
	l.running = true
	l.writer.Add(1)
	if l.cfg.SyncEvery > 0 {
		go l.syncLoop()
	} else {
		go l.writeLoop()
	}
	l.flusher.Add(1)
	go l.flushLoop(fctx)
	l.kick()
	l.cfg.Log.Info("metering log open: calls not yet in Postgres live only in its directory, and are lost if this instance dies and the directory is never opened again (start an instance on it, or run `hiringsignal metering replay`)",
		"dir", l.cfg.Dir, "loss_bound", l.LossBound(), "while_postgres_is_unreachable", "everything since it last answered (hs_metering_unflushed_seconds)")
	return nil
}

// open takes the directory's lock, draws this start's instance id and renames the segments a
// crash left open (.open) to closed (.wal).
func (l *Log) open() error {
	dir := l.cfg.Dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the metering log dir %s (flag --metering-dir): %w", dir, err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("cannot open the metering log lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return fmt.Errorf("another process uses the metering log dir %s: give each API instance its own --metering-dir (HS_METERING_DIR): %w", dir, err)
	}
	fail := func(err error) error {
		lock.Close()
		return err
	}
	var inst [8]byte
	if _, err := rand.Read(inst[:]); err != nil {
		return fail(fmt.Errorf("cannot draw the metering log's instance id: %w", err))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fail(fmt.Errorf("cannot read the metering log dir: %w", err))
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "seg-") && strings.HasSuffix(name, segOpen) {
			if err := os.Rename(filepath.Join(dir, name), filepath.Join(dir, strings.TrimSuffix(name, segOpen)+segClosed)); err != nil {
				return fail(fmt.Errorf("cannot recover metering segment %s: %w", name, err))
			}
		}
	}
	l.lock, l.instance = lock, hex.EncodeToString(inst[:])
	l.flushMu.Lock()
	l.ownIDs[l.instance] = true
	l.flushMu.Unlock()
	return nil
}

// segmentPath names the next segment: seg-<instance>-<seq>.open. The instance id is drawn at
// every start, so a segment id never repeats, even after the directory was emptied.
func (l *Log) segmentPath() string {
	return filepath.Join(l.cfg.Dir, fmt.Sprintf("seg-%s-%012d%s", l.instance, l.seq.Add(1), segOpen))
}

// Append records rec in the local log and returns once it survives a crash of the process (and,
// in strict mode, of the machine); the flusher then moves it to Postgres. In strict mode it
// blocks (never drops) while the writer's queue is full.
func (l *Log) Append(ctx context.Context, rec Record) error {
	l.mu.RLock()
	if !l.running {
		l.mu.RUnlock()
		return errors.New("the metering log is not running")
	}
	if l.cfg.SyncEvery > 0 {
		err := l.appendDirect(rec)
		l.mu.RUnlock()
		return err
	}
	if err := ctx.Err(); err != nil {
		l.mu.RUnlock()
		return fmt.Errorf("cannot record usage: %w", err)
	}
	p := &pendingRecord{rec: rec, done: make(chan error, 1)}
	select {
	case l.in <- p:
	default:
		l.overflows.Add(1)
		if now := time.Now().Unix(); l.lastWarn.Swap(now) != now {
			l.cfg.Log.Warn("metering queue full: calls wait for the disk writer; raise --metering-queue (HS_METERING_QUEUE)",
				"queue", l.cfg.QueueSize, "overflows", l.overflows.Load())
		}
		select {
		case l.in <- p:
		case <-ctx.Done():
			l.mu.RUnlock()
			return fmt.Errorf("cannot record usage: %w", ctx.Err())
		}
	}
	l.mu.RUnlock()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		// Still queued: withdraw it, so a call answered with this error is never billed. Once the
		// writer took it, its outcome is a moment away and decides.
		if p.state.CompareAndSwap(recordQueued, recordWithdrawn) {
			return fmt.Errorf("cannot record usage: %w", ctx.Err())
		}
		return <-p.done
	}
}

// Overflows counts Appends that found the queue full (strict mode) or the syncer's queue of
// sealed segments full (relaxed mode).
func (l *Log) Overflows() int64 { return l.overflows.Load() }

// Writes counts the writes that carried frames to a segment: in relaxed mode, fewer than the
// Appends while calls arrive together (group write); in strict mode, one per group commit.
func (l *Log) Writes() int64 { return l.writes.Load() }

// SegmentReadErrors counts failed reads of sealed segments (each kept on disk and retried).
func (l *Log) SegmentReadErrors() int64 { return l.readErrs.Load() }

// sealedQueue is how many sealed segments may wait for the relaxed mode's syncer: 64, or more
// with a larger --metering-queue (one segment per 128 queued records).
func sealedQueue(queue int) int { return max(64, queue/128) }

func (l *Log) fsync(f *os.File) error { return l.cfg.syncFile(f) }

func (l *Log) kick() {
	select {
	case l.poke <- struct{}{}:
	default:
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// flushGap is the least time between the starts of two Flushes: usage reads arriving meanwhile
// share the next one instead of each sealing a segment and committing a transaction.
const flushGap = 25 * time.Millisecond

// flushFlight is one coalesced Flush and the callers waiting for it.
type flushFlight struct {
	done chan struct{}
	err  error
}

// Flush closes the current segment and moves every closed segment to Postgres before returning.
// Usage reads call it so a caller sees its own calls. Flushes are coalesced: at most one runs at a
// time, they start at least flushGap apart, and every caller that arrives before one starts
// shares it (a flush that started before a caller arrived is never taken as its own).
func (l *Log) Flush(ctx context.Context) error {
	l.flights.Lock()
	f := l.nextFlush
	lead := f == nil
	if lead {
		f = &flushFlight{done: make(chan struct{})}
		l.nextFlush = f
	}
	l.flights.Unlock()
	if lead {
		l.lead(ctx, f)
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lead runs flight f once the previous flush ended and flushGap passed since it started.
func (l *Log) lead(ctx context.Context, f *flushFlight) {
	finish := func(err error) {
		l.flights.Lock()
		if l.nextFlush == f {
			l.nextFlush = nil
		}
		l.flights.Unlock()
		f.err = err
		close(f.done)
	}
	select {
	case l.flushSlot <- struct{}{}:
	case <-ctx.Done():
		finish(ctx.Err())
		return
	}
	defer func() { <-l.flushSlot }()
	if wait := flushGap - time.Since(l.lastFlush); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			finish(ctx.Err())
			return
		}
	}
	l.flights.Lock()
	l.nextFlush = nil // callers from now on need a flush that starts after them
	l.flights.Unlock()
	l.lastFlush = time.Now()
	f.err = l.flushNow(ctx)
	close(f.done)
}

// flushNow seals the open segment and moves every sealed segment to Postgres.
func (l *Log) flushNow(ctx context.Context) error {
	// The read lock keeps Stop from closing the writer's inputs while the request is sent.
	l.mu.RLock()
	var ack chan struct{}
	if l.running {
		ack = make(chan struct{})
		if l.cfg.SyncEvery > 0 {
			l.sealCurrent(ack)
		} else {
			select {
			case l.rotateReq <- ack:
			case <-ctx.Done():
				l.mu.RUnlock()
				return ctx.Err()
			}
		}
	}
	l.mu.RUnlock()
	if ack != nil {
		select {
		case <-ack:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return l.flushClosed(ctx)
}

// Stop stops accepting records, writes what is queued, waits for the writer and the flusher,
// makes a last flush attempt (what it cannot flush stays on disk for the next start) and releases
// the directory. A Stop of a Log that is not running does nothing.
func (l *Log) Stop(ctx context.Context) error {
	l.mu.Lock()
	if !l.running {
		l.mu.Unlock()
		return nil
	}
	l.running = false
	l.mu.Unlock()
	if l.cfg.SyncEvery > 0 {
		l.sealCurrent(nil)
		close(l.relaxed.sealed)
	} else {
		close(l.in)
	}
	l.writer.Wait()
	l.cancel()
	l.flusher.Wait()
	err := l.flushClosed(ctx)
	_ = syscall.Flock(int(l.lock.Fd()), syscall.LOCK_UN)
	_ = l.lock.Close()
	return err
}
