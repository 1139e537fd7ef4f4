package analytics

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Quorum writes. In cluster mode every block the readers rely on (a cycle's rows, its commit row
// last; the migrations' record) is acknowledged only once a quorum of replicas holds it
// (insert_quorum, set on the query), so a committed cycle is never on one disk only and the
// commit row reaches a replica no earlier than the quorum held its events. On a single server
// nothing changes.
//
// When the quorum is not reached in time, 18.16 answers "unknown status" (319): the block is
// written where it was sent and may still reach its quorum (when the missing replica fetches
// it). The writer then sends the same block again, byte for byte: ClickHouse refuses it while
// the earlier one waits for its quorum (286), and drops it as a duplicate of a block it already
// has once that one got there (insert deduplication of replicated tables), so a block lands
// once. Such a block is sent until it is acknowledged, for as long as the caller's context lets
// it: given up, it could still land later, beside a rerun numbered as if it had not. A block
// never written (285: fewer live replicas than the quorum; 286 before any attempt of ours timed
// out: another write's quorum pending) waits up to quorumWait, then fails uncommitted.

// quorumWait is how long a block never written is sent again while the quorum cannot be reached.
const quorumWait = 5 * time.Minute

// quorumTimeout is one attempt's wait for the quorum (insert_quorum_timeout, 10 s; a test shortens
// it to see an attempt time out).
var quorumTimeout = func() *atomic.Int64 {
	var d atomic.Int64
	d.Store(int64(10 * time.Second))
	return &d
}()

// insertQuorum is the write quorum on ch: Options.InsertQuorum when set, none on a single server,
// else a majority of the replicas ZooKeeper lists for the database's tables (every table has the
// same ones), read at most once a minute per connection.
func insertQuorum(ctx context.Context, ch driver.Conn) (int, error) {
	o := optionsOf(ch)
	switch {
	case o.InsertQuorum > 0:
		return o.InsertQuorum, nil
	case o.OnCluster == "":
		return 0, nil
	}
	c := ch.(*conn) // OnCluster is set only on Open's connections
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.quorum > 0 && time.Since(c.quorumAt) < time.Minute {
		return c.quorum, nil
	}
	var total uint32
	if err := ch.QueryRow(ctx, `SELECT toUInt32(max(total_replicas)) FROM system.replicas WHERE database = currentDatabase()`).Scan(&total); err != nil {
		return 0, fmt.Errorf("cannot read the replicas of the tables: %w", err)
	}
	if total == 0 {
		return 0, fmt.Errorf("no table of %s is replicated, and cluster mode (%s) writes to replicated tables only: run `hiringsignal migrate --clickhouse-cluster %s`", o.Database, o.OnCluster, o.OnCluster)
	}
	c.quorum, c.quorumAt = int(total)/2+1, time.Now()
	return c.quorum, nil
}

// writer sends the insert blocks of one write with the layout's quorum.
type writer struct {
	ctx    context.Context // carries the quorum settings
	ch     driver.Conn
	quorum int
}

// newWriter is the writer of one write on ch.
func newWriter(ctx context.Context, ch driver.Conn) (*writer, error) {
	q, err := insertQuorum(ctx, ch)
	if err != nil {
		return nil, err
	}
	w := &writer{ctx: ctx, ch: ch, quorum: q}
	if q >= 2 {
		w.ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{
			"insert_quorum":         q,
			"insert_quorum_timeout": int(time.Duration(quorumTimeout.Load()) / time.Millisecond),
		}))
	}
	return w, nil
}

// insert sends one block, the rows fill appends to it; with a quorum, again (the same rows) while
// the quorum is pending, as the comment above says. The block leaves in data packets of
// packetRows rows (flushingBatch), which the server gathers into the one block it writes.
func (w *writer) insert(query string, fill func(driver.Batch) error) error {
	deadline := time.Now().Add(quorumWait)
	pause := 200 * time.Millisecond
	written := false // an attempt may have landed: keep sending it
	for {
		err := w.send(query, fill)
		if err == nil || w.quorum < 2 || !quorumPending(err) {
			return err
		}
		written = written || exceptionCode(err) == codeUnknownInsertStatus
		if !written && time.Now().After(deadline) {
			return fmt.Errorf("the write quorum of %d replicas was not reached within %s (is a replica down? system.replicas says): %w", w.quorum, quorumWait, err)
		}
		t := time.NewTimer(pause)
		select {
		case <-w.ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (waiting for the write quorum of %d replicas after: %w)", w.ctx.Err(), w.quorum, err)
		case <-t.C:
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// send sends query's block, the rows fill appends, as one batch. The batch has a context of its
// own, which ends when the caller's does only while the batch is prepared, filled and sent.
// clickhouse-go's Send closes the connection when the batch's context ends, from a goroutine that
// can still do so after Send returned and the connection went back to the pool, when the context
// ends just then, as a caller's deferred cancel does (clickhouse-go pull request 2032, open in
// 2026-11): the next statement on that connection then failed with "use of closed network
// connection" (TestWritesWhoseContextsEndRightAfterDoNotBreakTheNext).
func (w *writer) send(query string, fill func(driver.Batch) error) error {
	bctx, end := context.WithCancel(context.WithoutCancel(w.ctx))
	stop := context.AfterFunc(w.ctx, end)
	defer stop()
	b, err := w.ch.PrepareBatch(bctx, query)
	if err != nil {
		return w.err(err)
	}
	if err := fill(&flushingBatch{Batch: b}); err != nil {
		_ = b.Abort()
		return w.err(err)
	}
	return w.err(b.Send())
}

// err is err of a batch, or the caller's context's error when that context ended it.
func (w *writer) err(err error) error {
	if err != nil && w.ctx.Err() != nil {
		return fmt.Errorf("%w: %w", w.ctx.Err(), err)
	}
	return err
}

// A data packet of an INSERT's block carries at most packetRows rows, and no more rows once their
// strings reach packetBytes.
const (
	packetRows  = 512
	packetBytes = 128 << 10
)

// flushingBatch sends the rows appended to its batch as a data packet of the same INSERT (Flush)
// every packetRows rows or packetBytes of strings, and appends the next ones to the same columns:
// the driver cannot size a column ahead, so a column holding a whole block (50,000 events, 1,000
// descriptions) grew by a quarter at a time to its size, and its growth was 40% of what a cold
// crawl cycle allocated. The server gathers an INSERT's packets into one block before it writes
// any (min_insert_block_size_rows, a million rows; 256 MiB), so the table gets the same part,
// and a block sent again for its quorum is the same block.
type flushingBatch struct {
	driver.Batch
	rows, bytes int
}

func (b *flushingBatch) Append(v ...any) error {
	if err := b.Batch.Append(v...); err != nil {
		return err
	}
	for _, x := range v {
		if s, ok := x.(string); ok {
			b.bytes += len(s)
		}
	}
	if b.rows++; b.rows < packetRows && b.bytes < packetBytes {
		return nil
	}
	b.rows, b.bytes = 0, 0
	return b.Batch.Flush()
}

// quorumPending reports whether err says the block's quorum is not reached yet: sending the same
// block again is safe and, once the replicas are there, lands it once.
func quorumPending(err error) bool {
	switch exceptionCode(err) {
	case codeUnknownInsertStatus, codeUnsatisfiedQuorum, codeTooFewLiveReplicas:
		return true
	}
	return false
}
