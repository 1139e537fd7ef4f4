package oltp

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
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

// UsageRecord is one metered event of the usage ledger, as the API instance logs it before the
// response leaves. Records reach Postgres rolled up, one write-ahead-log segment at a time.
type UsageRecord struct {
	CustomerID  string    `json:"c"`
	AccountID   int64     `json:"a"`
	KeyID       int64     `json:"k"`
	Method      string    `json:"m"`
	Route       string    `json:"r"`
	MeterClass  string    `json:"mc"`
	Function    string    `json:"f,omitempty"`
	Calls       int32     `json:"n"`
	Units       int64     `json:"un"`
	ForcedFresh bool      `json:"ff,omitempty"`
	OccurredAt  time.Time `json:"t"`
}

// UsageLogConfig configures a UsageLog. Zero values take the defaults noted.
type UsageLogConfig struct {
	Dir            string        // write-ahead log directory, one per running instance
	Pool           *pgxpool.Pool // where records end up (usage_events, usage_monthly)
	Log            *slog.Logger
	QueueSize      int           // records waiting for the disk writer; default 8192 (flag --metering-queue)
	SegmentRecords int           // a segment is closed and flushed at this many records; default 4096
	FlushInterval  time.Duration // ...or after this long; default 500ms
	// SyncEvery chooses when an appended record counts as recorded. 0 (strict): Append returns
	// after the batch is fsynced, so it survives power loss. > 0 (relaxed): Append returns once
	// the batch is written to the segment file (it survives a crash of the process, not of the
	// machine) and a syncer fsyncs the open segment at most this long later and every segment
	// before it is handed to the flusher. Flag --metering-fsync-interval.
	SyncEvery time.Duration
}

// UsageLog is the durable, asynchronous path of metering. Append writes the record to a local
// append-only segment before returning, so a unit acknowledged to a caller survives a crash of the
// process; in strict mode (SyncEvery = 0) it also waits for the fsync (group commit: one fsync per
// batch of concurrent appends), in relaxed mode a syncer fsyncs within SyncEvery. Closed segments
// are inserted into Postgres in batches by a flusher (by size or timer) and deleted only after the
// transaction commits; on start, segments left by a crashed process are replayed. A full queue
// blocks Append (never drops), is counted and logged with the setting to raise, and a Postgres
// outage leaves segments on disk (the spill) until it answers again.
type UsageLog struct {
	cfg       UsageLogConfig
	in        chan *pendingRecord // strict mode: records for the group-commit writer
	rotateReq chan chan struct{}  // strict mode: Flush asks the writer to seal its segment
	relaxed   relaxedState
	poke      chan struct{}
	lock      *os.File
	instance  string // random per open: segment ids (file names) never repeat
	seq       atomic.Int64
	overflows atomic.Int64
	lastWarn  atomic.Int64

	mu      sync.RWMutex
	closed  bool
	started bool
	flushMu sync.Mutex
	cancel  context.CancelFunc
	writer  sync.WaitGroup
	flusher sync.WaitGroup
}

const (
	segOpen   = ".open"
	segClosed = ".wal"
)

// OpenUsageLog locks dir (one process per directory) and prepares it; segments a crashed
// process left behind are kept for the flusher to replay.
func OpenUsageLog(cfg UsageLogConfig) (*UsageLog, error) {
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
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the metering log dir %s (flag --metering-dir): %w", cfg.Dir, err)
	}
	lock, err := os.OpenFile(filepath.Join(cfg.Dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the metering log lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("another process uses the metering log dir %s: give each API instance its own --metering-dir (HS_METERING_DIR): %w", cfg.Dir, err)
	}
	l := &UsageLog{cfg: cfg, in: make(chan *pendingRecord, cfg.QueueSize), rotateReq: make(chan chan struct{}),
		poke: make(chan struct{}, 1), lock: lock}
	l.relaxed.sealed = make(chan sealedSegment, 64)
	var inst [8]byte
	if _, err := rand.Read(inst[:]); err != nil {
		lock.Close()
		return nil, fmt.Errorf("cannot draw the metering log's instance id: %w", err)
	}
	l.instance = hex.EncodeToString(inst[:])
	entries, err := os.ReadDir(cfg.Dir)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("cannot read the metering log dir: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "seg-") {
			continue
		}
		if strings.HasSuffix(name, segOpen) { // left by a crash: close it for replay
			if err := os.Rename(filepath.Join(cfg.Dir, name), filepath.Join(cfg.Dir, strings.TrimSuffix(name, segOpen)+segClosed)); err != nil {
				lock.Close()
				return nil, fmt.Errorf("cannot recover metering segment %s: %w", name, err)
			}
		}
	}
	return l, nil
}

// segmentPath names the next segment: seg-<instance>-<seq>.open. The instance id is drawn at
// every open, so a segment id never repeats, even after the directory was emptied.
func (l *UsageLog) segmentPath() string {
	return filepath.Join(l.cfg.Dir, fmt.Sprintf("seg-%s-%012d%s", l.instance, l.seq.Add(1), segOpen))
}

// Start runs the disk writer and the Postgres flusher; the flusher first replays what a previous
// process left.
func (l *UsageLog) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.mu.Lock()
	l.started = true
	l.mu.Unlock()
	l.writer.Add(1)
	if l.cfg.SyncEvery > 0 {
		go l.syncLoop()
	} else {
		go l.writeLoop()
	}
	l.flusher.Add(1)
	go l.flushLoop(ctx)
	l.kick()
}

// Append records rec in the local log and returns once it survives a crash of the process (and,
// in strict mode, of the machine); the flusher then moves it to Postgres. In strict mode it
// blocks (never drops) while the writer's queue is full.
func (l *UsageLog) Append(ctx context.Context, rec UsageRecord) error {
	l.mu.RLock()
	if l.closed || !l.started {
		l.mu.RUnlock()
		return errors.New("the metering log is not running")
	}
	if l.cfg.SyncEvery > 0 {
		err := l.appendDirect(rec)
		l.mu.RUnlock()
		return err
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
		// The record is queued and will still be written; the caller just stops waiting.
		return fmt.Errorf("cannot confirm usage was recorded: %w", ctx.Err())
	}
}

// Overflows counts Appends that found the queue full.
func (l *UsageLog) Overflows() int64 { return l.overflows.Load() }

func (l *UsageLog) kick() {
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

// appendFrame appends one record as a frame: length and CRC-32 of the payload, then the payload
// (encodeRecord).
func appendFrame(buf []byte, rec UsageRecord) ([]byte, error) {
	if len(rec.CustomerID)+len(rec.Method)+len(rec.Route)+len(rec.MeterClass)+len(rec.Function) > 1<<16 {
		return buf, errors.New("usage record too large")
	}
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)
	buf = encodeRecord(buf, rec)
	payload := buf[start+8:]
	binary.LittleEndian.PutUint32(buf[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[start+4:], crc32.ChecksumIEEE(payload))
	return buf, nil
}

// readSegment decodes every whole record of a segment; a torn or corrupt tail (a write cut by a
// crash, never acknowledged) ends the read.
func readSegment(path string) ([]UsageRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var out []UsageRecord
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return out, nil
		}
		n := binary.LittleEndian.Uint32(hdr[:4])
		if n > 1<<20 {
			return out, nil
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return out, nil
		}
		if crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(hdr[4:]) {
			return out, nil
		}
		rec, err := decodeRecord(payload)
		if err != nil {
			return out, nil
		}
		out = append(out, rec)
	}
}

// Flush closes the current segment and moves every closed segment to Postgres before returning.
// Usage reads call it so a caller sees its own calls.
func (l *UsageLog) Flush(ctx context.Context) error {
	// The read lock keeps Stop from closing the writer's inputs while the request is sent.
	l.mu.RLock()
	var ack chan struct{}
	if l.started && !l.closed {
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

// Stop stops accepting records, writes what is queued, makes a last flush attempt (what it cannot
// flush stays on disk for the next start) and releases the directory.
func (l *UsageLog) Stop(ctx context.Context) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	started := l.started
	l.mu.Unlock()
	var err error
	if started {
		if l.cfg.SyncEvery > 0 {
			l.sealCurrent(nil)
			close(l.relaxed.sealed)
		} else {
			close(l.in)
		}
		l.writer.Wait()
		l.cancel()
		l.flusher.Wait()
		err = l.flushClosed(ctx)
	}
	_ = syscall.Flock(int(l.lock.Fd()), syscall.LOCK_UN)
	_ = l.lock.Close()
	return err
}
