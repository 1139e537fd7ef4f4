package oltp

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// UsageRecord is one metered event of the usage ledger. UnitID is minted by the caller before
// the response leaves and is the ledger's primary key, so replaying a record never doubles it.
type UsageRecord struct {
	UnitID      string    `json:"u"`
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
}

// UsageLog is the durable, asynchronous path of metering. Append writes the record to a local
// append-only segment and fsyncs it (group commit: one fsync per batch of concurrent appends)
// before returning, so a unit acknowledged to a caller survives a crash of the process. Closed
// segments are inserted into Postgres in batches by a flusher (by size or timer) and deleted only
// after the transaction commits; on start, segments left by a crashed process are replayed. A
// full queue blocks Append (never drops), is counted and logged with the setting to raise, and a
// Postgres outage leaves segments on disk (the spill) until it answers again.
type UsageLog struct {
	cfg       UsageLogConfig
	in        chan *pendingRecord
	rotateReq chan chan struct{}
	poke      chan struct{}
	lock      *os.File
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

type pendingRecord struct {
	rec  UsageRecord
	done chan error
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
	entries, err := os.ReadDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read the metering log dir: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		n, ok := segSeq(name)
		if !ok {
			continue
		}
		if n > l.seq.Load() {
			l.seq.Store(n)
		}
		if strings.HasSuffix(name, segOpen) { // left by a crash: close it for replay
			if err := os.Rename(filepath.Join(cfg.Dir, name), filepath.Join(cfg.Dir, strings.TrimSuffix(name, segOpen)+segClosed)); err != nil {
				return nil, fmt.Errorf("cannot recover metering segment %s: %w", name, err)
			}
		}
	}
	return l, nil
}

func segSeq(name string) (int64, bool) {
	base, ok := strings.CutPrefix(name, "seg-")
	if !ok {
		return 0, false
	}
	base = strings.TrimSuffix(strings.TrimSuffix(base, segOpen), segClosed)
	n, err := strconv.ParseInt(base, 10, 64)
	return n, err == nil
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
	go l.writeLoop()
	l.flusher.Add(1)
	go l.flushLoop(ctx)
	l.kick()
}

// Append makes rec durable on local disk and returns once it is; the flusher then moves it to
// Postgres. It blocks (never drops) while the queue is full.
func (l *UsageLog) Append(ctx context.Context, rec UsageRecord) error {
	p := &pendingRecord{rec: rec, done: make(chan error, 1)}
	l.mu.RLock()
	if l.closed || !l.started {
		l.mu.RUnlock()
		return errors.New("the metering log is not running")
	}
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

func (l *UsageLog) writeLoop() {
	defer l.writer.Done()
	var f *os.File
	var name string
	count := 0
	tick := time.NewTicker(l.cfg.FlushInterval)
	defer tick.Stop()
	rotate := func() {
		if f == nil {
			return
		}
		_ = f.Close()
		if err := os.Rename(name, strings.TrimSuffix(name, segOpen)+segClosed); err != nil {
			l.cfg.Log.Error("cannot close a metering segment; it is replayed at the next start", "segment", name, "err", err)
		}
		f, count = nil, 0
		l.kick()
	}
	buf := make([]byte, 0, 64<<10)
	batch := make([]*pendingRecord, 0, 1024)
	for {
		select {
		case p, ok := <-l.in:
			if !ok {
				rotate()
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
				name = filepath.Join(l.cfg.Dir, fmt.Sprintf("seg-%020d%s", l.seq.Add(1), segOpen))
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
			if err != nil || count >= l.cfg.SegmentRecords {
				rotate()
			}
		case ack := <-l.rotateReq:
			rotate()
			close(ack)
		case <-tick.C:
			if count > 0 {
				rotate()
			}
		}
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

func appendFrame(buf []byte, rec UsageRecord) ([]byte, error) {
	payload, err := json.Marshal(rec)
	if err != nil {
		return buf, err
	}
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(payload)))
	buf = binary.LittleEndian.AppendUint32(buf, crc32.ChecksumIEEE(payload))
	return append(buf, payload...), nil
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
		var rec UsageRecord
		if err := json.Unmarshal(payload, &rec); err != nil {
			return out, nil
		}
		out = append(out, rec)
	}
}

func (l *UsageLog) flushLoop(ctx context.Context) {
	defer l.flusher.Done()
	tick := time.NewTicker(l.cfg.FlushInterval)
	defer tick.Stop()
	backoff := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.poke:
		case <-tick.C:
		}
		if backoff > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
		}
		if err := l.flushClosed(ctx); err != nil {
			backoff = min(max(2*backoff, 250*time.Millisecond), 10*time.Second)
			l.cfg.Log.Warn("metering flush to Postgres failed; units stay on disk and are retried", "err", err, "retry_in", backoff)
		} else {
			backoff = 0
		}
	}
}

// Flush closes the current segment and moves every closed segment to Postgres before returning.
// Usage reads call it so a caller sees its own calls.
func (l *UsageLog) Flush(ctx context.Context) error {
	l.mu.RLock()
	running := l.started && !l.closed
	l.mu.RUnlock()
	if running {
		ack := make(chan struct{})
		select {
		case l.rotateReq <- ack:
			<-ack
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return l.flushClosed(ctx)
}

func (l *UsageLog) flushClosed(ctx context.Context) error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	matches, err := filepath.Glob(filepath.Join(l.cfg.Dir, "seg-*"+segClosed))
	if err != nil {
		return err
	}
	sort.Strings(matches)
	if len(matches) > 64 {
		l.cfg.Log.Warn("metering backlog on disk: Postgres is behind", "segments", len(matches), "dir", l.cfg.Dir)
	}
	for _, path := range matches {
		recs, err := readSegment(path)
		if err != nil {
			return fmt.Errorf("cannot read metering segment %s: %w", path, err)
		}
		if err := InsertUsage(ctx, l.cfg.Pool, recs); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("cannot remove flushed segment %s: %w", path, err)
		}
	}
	return nil
}

// InsertUsage writes records to usage_events and their rollup to usage_monthly in one
// transaction; a record whose unit_id is already present is skipped and not rolled up again.
func InsertUsage(ctx context.Context, pool *pgxpool.Pool, recs []UsageRecord) error {
	if len(recs) == 0 {
		return nil
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		const batch = 2000
		for start := 0; start < len(recs); start += batch {
			part := recs[start:min(start+batch, len(recs))]
			n := len(part)
			ids, custs, methods, routes, classes, fns := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
			accts, keys, units := make([]int64, n), make([]int64, n), make([]int64, n)
			calls := make([]int32, n)
			forced := make([]bool, n)
			at := make([]time.Time, n)
			for i, r := range part {
				ids[i], custs[i], methods[i], routes[i], classes[i], fns[i] = r.UnitID, r.CustomerID, r.Method, r.Route, r.MeterClass, r.Function
				accts[i], keys[i], units[i], calls[i], forced[i], at[i] = r.AccountID, r.KeyID, r.Units, r.Calls, r.ForcedFresh, r.OccurredAt
			}
			_, err := tx.Exec(ctx, `WITH ins AS (
				INSERT INTO usage_events (unit_id, customer_id, account_id, key_id, method, route, meter_class, function, calls, units, forced_fresh, occurred_at)
				SELECT u, c, a, k, m, r, mc, NULLIF(f, ''), n, un, ff, t
				FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int4[], $10::int8[], $11::bool[], $12::timestamptz[])
					AS x(u, c, a, k, m, r, mc, f, n, un, ff, t)
				ON CONFLICT (unit_id) DO NOTHING
				RETURNING account_id, occurred_at, calls, units)
			INSERT INTO usage_monthly AS m (account_id, month, calls, units)
			SELECT account_id, date_trunc('month', occurred_at AT TIME ZONE 'UTC')::date, sum(calls), sum(units) FROM ins GROUP BY 1, 2
			ON CONFLICT (account_id, month) DO UPDATE SET calls = m.calls + EXCLUDED.calls, units = m.units + EXCLUDED.units`,
				ids, custs, accts, keys, methods, routes, classes, fns, calls, units, forced, at)
			if err != nil {
				return fmt.Errorf("cannot insert %d usage records: %w", n, err)
			}
		}
		return nil
	})
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
		close(l.in)
		l.writer.Wait()
		l.cancel()
		l.flusher.Wait()
		err = l.flushClosed(ctx)
	}
	_ = syscall.Flock(int(l.lock.Fd()), syscall.LOCK_UN)
	_ = l.lock.Close()
	return err
}
