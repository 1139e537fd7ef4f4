package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
)

// cpuMark is the CPU used so far by this process and by the world, and the wall clock.
type cpuMark struct {
	at          time.Time
	self, world time.Duration
	requests    int64
}

func mark(ctx context.Context, w *world) (cpuMark, error) {
	self, _ := cpuOf(syscall.RUSAGE_SELF)
	ws, err := w.stats(ctx)
	return cpuMark{at: time.Now(), self: self, world: ws.CPU, requests: ws.Requests}, err
}

// span is what happened between two marks.
type span struct {
	wall, self, world time.Duration
	requests          int64
	load              string // load average at the end
}

func since(ctx context.Context, w *world, m cpuMark) (span, error) {
	n, err := mark(ctx, w)
	return span{wall: n.at.Sub(m.at), self: n.self - m.self, world: n.world - m.world, requests: n.requests - m.requests, load: loadAvg()}, err
}

// cores is the CPU used over the span in cores (both processes), e.g. "0.62 + 0.31".
func (s span) cores() string {
	return fmt.Sprintf("%.2f + %.2f", s.self.Seconds()/s.wall.Seconds(), s.world.Seconds()/s.wall.Seconds())
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return f[0]
}

// rss reads VmHWM (peak) and VmRSS (now) of this process, in bytes.
func rss() (peak, now int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			peak = kb << 10
		case "VmRSS:":
			now = kb << 10
		}
	}
	return peak, now
}

// resetPeakRSS makes VmHWM the current RSS (Linux's clear_refs 5), so a later peak is the
// peak of what runs in between.
func resetPeakRSS() error {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("cannot reset the peak RSS (/proc/self/clear_refs): %w", err)
	}
	return nil
}

// heapWatch samples the heap (runtime/metrics, no stop-the-world) every few milliseconds and
// keeps two peaks: of the heap's objects (live and not yet collected: what the heap grows to) and
// of the live heap the last collection marked; with the GC cycles and the GC's CPU over the watch.
type heapWatch struct {
	stop           chan struct{}
	done           sync.WaitGroup
	peak, peakLive atomic.Uint64
	gc0, cpu0      float64
}

var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/gc/heap/live:bytes", "/gc/cycles/total:gc-cycles", "/cpu/classes/gc/total:cpu-seconds"}

func readHeap() (heap, live uint64, cycles, gcCPU float64) {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, n := range heapMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64(), float64(s[2].Value.Uint64()), s[3].Value.Float64()
}

func raise(a *atomic.Uint64, v uint64) {
	if v > a.Load() {
		a.Store(v)
	}
}

func watchHeap() *heapWatch {
	h := &heapWatch{stop: make(chan struct{})}
	heap, live, gc, cpu := readHeap()
	h.peak.Store(heap)
	h.peakLive.Store(live)
	h.gc0, h.cpu0 = gc, cpu
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				heap, live, _, _ := readHeap()
				raise(&h.peak, heap)
				raise(&h.peakLive, live)
			}
		}
	}()
	return h
}

// end stops the watch: the peak heap, the peak live heap, the GC cycles and the GC's CPU over it.
func (h *heapWatch) end() (peak, peakLive uint64, cycles int, gcCPU time.Duration) {
	close(h.stop)
	h.done.Wait()
	_, _, gc, cpu := readHeap()
	return h.peak.Load(), h.peakLive.Load(), int(gc - h.gc0), time.Duration((cpu - h.cpu0) * float64(time.Second))
}

// heapNow is the live heap after a full collection.
func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// chCount counts what a committer asks of ClickHouse: the reads (queries and the rows and bytes
// the server read for them, from its progress packets) and the writes (inserts and their rows).
type chCount struct {
	driver.Conn
	selects, rowsRead, bytesRead atomic.Int64
	inserts, execs, rowsWritten  atomic.Int64
}

func (c *chCount) progress(ctx context.Context) context.Context {
	return clickhouse.Context(ctx, clickhouse.WithProgress(func(p *clickhouse.Progress) {
		c.rowsRead.Add(int64(p.Rows))
		c.bytesRead.Add(int64(p.Bytes))
	}))
}

func (c *chCount) Select(ctx context.Context, dest any, query string, args ...any) error {
	c.selects.Add(1)
	return c.Conn.Select(c.progress(ctx), dest, query, args...)
}

func (c *chCount) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	c.selects.Add(1)
	return c.Conn.Query(c.progress(ctx), query, args...)
}

func (c *chCount) QueryRow(ctx context.Context, query string, args ...any) driver.Row {
	c.selects.Add(1)
	return c.Conn.QueryRow(c.progress(ctx), query, args...)
}

func (c *chCount) Exec(ctx context.Context, query string, args ...any) error {
	c.execs.Add(1)
	return c.Conn.Exec(ctx, query, args...)
}

func (c *chCount) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	b, err := c.Conn.PrepareBatch(ctx, query, opts...)
	if err != nil {
		return b, err
	}
	c.inserts.Add(1)
	return &countedBatch{Batch: b, rows: &c.rowsWritten}, nil
}

type countedBatch struct {
	driver.Batch
	rows *atomic.Int64
}

func (b *countedBatch) Append(v ...any) error {
	b.rows.Add(1)
	return b.Batch.Append(v...)
}

func (b *countedBatch) AppendStruct(v any) error {
	b.rows.Add(1)
	return b.Batch.AppendStruct(v)
}

func (c *chCount) String() string {
	return fmt.Sprintf("%d queries reading %d rows (%.1f MB), %d inserts of %d rows, %d other statements",
		c.selects.Load(), c.rowsRead.Load(), float64(c.bytesRead.Load())/1e6, c.inserts.Load(), c.rowsWritten.Load(), c.execs.Load())
}

// pgCount counts the statements a pool ran (batched ones included) and the rows they returned
// or touched, and sums the time spent in them (a pgx tracer), in all and by statement (Top).
type pgCount struct {
	queries, rows atomic.Int64
	trips         atomic.Int64 // round trips: a statement alone, or a batch
	took          atomic.Int64 // ns, summed over statements

	mu     sync.Mutex
	byStmt map[string]*stmtCount // a statement alone or a batch, by its text's start (stmtName)
}

// stmtCount is one statement's (or batch's) round trips and the time summed over them.
type stmtCount struct {
	trips int64
	took  time.Duration
	max   time.Duration
}

type pgStart struct {
	at   time.Time
	name string
}

// stmtName names a statement by the first 72 characters of its text, whitespace collapsed.
func stmtName(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 72 {
		s = s[:72]
	}
	return s
}

func (p *pgCount) add(st pgStart) {
	d := time.Since(st.at)
	p.took.Add(int64(d))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byStmt == nil {
		p.byStmt = map[string]*stmtCount{}
	}
	c := p.byStmt[st.name]
	if c == nil {
		c = &stmtCount{}
		p.byStmt[st.name] = c
	}
	c.trips++
	c.took += d
	c.max = max(c.max, d)
}

// Top is the n statements (or batches, named by their first) that took the most time in all,
// one line each: round trips, time in all, mean and longest.
func (p *pgCount) Top(n int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := slices.SortedFunc(maps.Keys(p.byStmt), func(a, b string) int { return cmp.Compare(p.byStmt[b].took, p.byStmt[a].took) })
	var out []string
	for _, name := range names[:min(n, len(names))] {
		c := p.byStmt[name]
		out = append(out, fmt.Sprintf("%6d trips %7.1f s (mean %5.1f ms, max %6.1f ms)  %s", c.trips, c.took.Seconds(),
			float64(c.took.Microseconds())/float64(c.trips)/1000, float64(c.max.Microseconds())/1000, name))
	}
	return out
}

func (p *pgCount) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	return context.WithValue(ctx, pgStart{}, pgStart{time.Now(), stmtName(data.SQL)})
}

func (p *pgCount) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	p.queries.Add(1)
	p.trips.Add(1)
	p.rows.Add(data.CommandTag.RowsAffected())
	if st, ok := ctx.Value(pgStart{}).(pgStart); ok {
		p.add(st)
	}
}

func (p *pgCount) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	p.trips.Add(1)
	name := "batch"
	if data.Batch != nil && len(data.Batch.QueuedQueries) > 0 {
		name = fmt.Sprintf("batch of %d from: %s", len(data.Batch.QueuedQueries), stmtName(data.Batch.QueuedQueries[0].SQL))
	}
	return context.WithValue(ctx, pgStart{}, pgStart{time.Now(), name})
}

func (p *pgCount) TraceBatchQuery(_ context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	p.queries.Add(1)
	p.rows.Add(data.CommandTag.RowsAffected())
}

func (p *pgCount) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	if st, ok := ctx.Value(pgStart{}).(pgStart); ok {
		p.add(st)
	}
}

func (p *pgCount) String() string {
	return fmt.Sprintf("%d statements (%d round trips), %d rows, %.1f s in them", p.queries.Load(), p.trips.Load(), p.rows.Load(), time.Duration(p.took.Load()).Seconds())
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func (c *chCount) reset() {
	for _, n := range []*atomic.Int64{&c.selects, &c.rowsRead, &c.bytesRead, &c.inserts, &c.execs, &c.rowsWritten} {
		n.Store(0)
	}
}
