package metering_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api/metering"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// segmentRecords lists the records of each flushed segment in the order the segments were
// written (their ids carry a sequence number).
func segmentRecords(t *testing.T, pool *pgxpool.Pool) []int {
	t.Helper()
	rows, err := pool.Query(context.Background(), "SELECT records FROM usage_segments ORDER BY segment_id")
	require.NoError(t, err)
	defer rows.Close()
	var out []int
	for rows.Next() {
		var n int
		require.NoError(t, rows.Scan(&n))
		out = append(out, n)
	}
	require.NoError(t, rows.Err())
	return out
}

// heldWrites counts the writes of frames to segments and holds the first one until release is
// closed, so the Appends that arrive meanwhile wait together in the pending batch.
type heldWrites struct {
	writes  atomic.Int64
	held    atomic.Int64  // frames the first write carries
	started chan struct{} // closed when the first write is held
	release chan struct{}
}

// frameCount is the number of whole frames in b (each starts with its payload's length).
func frameCount(b []byte) int {
	n := 0
	for len(b) >= 8 {
		b = b[min(len(b), 8+int(binary.LittleEndian.Uint32(b))):]
		n++
	}
	return n
}

func newHeldWrites() *heldWrites {
	return &heldWrites{started: make(chan struct{}), release: make(chan struct{})}
}

func (h *heldWrites) write(f *os.File, b []byte) (int, error) {
	if h.writes.Add(1) == 1 {
		h.held.Store(int64(frameCount(b)))
		close(h.started)
		<-h.release
	}
	return f.Write(b)
}

// TestConcurrentAppendsShareWrites (relaxed mode): 64 callers appending at once share writes —
// the first Appends that are not in the first write, held, wait together in one batch — and the
// log holds exactly the records appended, each once, in segments of exactly SegmentRecords
// records (a batch that reaches the end of a segment goes on in the next one).
func TestConcurrentAppendsShareWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "metering")
	h := newHeldWrites()
	const callers, each, segRecords = 64, 20, 100 // the first 64 frames in one segment
	l := metering.New(metering.WithWrites(metering.Config{Dir: t.TempDir(), Pool: pool, SegmentRecords: segRecords,
		FlushInterval: time.Hour, SyncEvery: time.Hour}, h.write))
	require.NoError(t, l.Start(ctx))
	var wg sync.WaitGroup
	errs := make(chan error, callers*each)
	for w := 0; w < callers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				errs <- l.Append(ctx, record(fmt.Sprintf("w%d-%d", w, i)))
			}
		}()
	}
	<-h.started
	require.Eventually(t, func() bool { return int(h.held.Load())+metering.PendingFrames(l) == callers }, 10*time.Second, time.Millisecond,
		"every caller's first Append is in the held write or waits in the batch behind it")
	close(h.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, l.Stop(ctx))

	const calls = callers * each
	// The first 64 frames went in two writes: at least 62 fewer writes than calls, however the
	// rest were grouped.
	require.LessOrEqual(t, h.writes.Load(), int64(calls-62), "concurrent Appends share writes")
	stored := storedCalls(t, pool)
	require.Len(t, stored, calls)
	for w := 0; w < callers; w++ {
		for i := 0; i < each; i++ {
			id := fmt.Sprintf("w%d-%d", w, i)
			require.Equal(t, int64(1), stored[id], "record %s is stored once", id)
		}
	}
	segs := segmentRecords(t, pool)
	require.Len(t, segs, (calls+segRecords-1)/segRecords)
	for i, n := range segs[:len(segs)-1] {
		require.Equal(t, segRecords, n, "segment %d is closed at exactly SegmentRecords", i)
	}
	require.Equal(t, calls-segRecords*(len(segs)-1), segs[len(segs)-1], "Stop sealed the rest")
}

// TestGroupWriteIsBounded (relaxed mode): a batch carries at most MaxBatchBytes of frames; the
// Appends that find it full wait for the next one, and every record is written once.
func TestGroupWriteIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "metering")
	h := newHeldWrites()
	var largest atomic.Int64
	write := func(f *os.File, b []byte) (int, error) {
		for n := int64(len(b)); ; {
			m := largest.Load()
			if n <= m || largest.CompareAndSwap(m, n) {
				break
			}
		}
		return h.write(f, b)
	}
	l := metering.New(metering.WithWrites(metering.Config{Dir: t.TempDir(), Pool: pool, FlushInterval: time.Hour, SyncEvery: time.Hour}, write))
	require.NoError(t, l.Start(ctx))
	big := func(id string) metering.Record { // a frame of about 10 KiB
		r := record(id)
		r.CustomerID = strings.Repeat("c", 10<<10)
		return r
	}
	const callers = 24 // about 240 KiB of frames: four batches at least
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for w := 0; w < callers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- l.Append(ctx, big(fmt.Sprintf("b%d", w)))
		}()
	}
	<-h.started
	require.Eventually(t, func() bool { return metering.PendingFrames(l) > 0 }, 10*time.Second, time.Millisecond)
	close(h.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, l.Stop(ctx))
	require.LessOrEqual(t, largest.Load(), int64(metering.MaxBatchBytes))
	stored := storedCalls(t, pool)
	require.Len(t, stored, callers)
	for id, calls := range stored {
		require.Equal(t, int64(1), calls, id)
	}
}

// TestAFailedGroupWriteFailsExactlyItsAppends (relaxed mode): a write that fails — here after
// writing most of its bytes, as a full disk does — fails the Appends whose frames it carried and
// no other; none of their records is flushed (the segment is cut back to its whole frames before
// that write), and the next Append works, in a new segment. A batch that filled its segment
// before the failing write acknowledges the frames that went in that segment.
func TestAFailedGroupWriteFailsExactlyItsAppends(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		segRecords int
		acked      int // of the failed batch's 4 Appends
	}{
		{"within a segment", 4096, 0},
		{"across a segment's end", 3, 1}, // "before" and "held" leave room for one frame
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := storetest.Postgres(t, "metering")
			var writes atomic.Int64
			var fail atomic.Int64 // the number of the write that fails (0: none)
			started, release := make(chan struct{}), make(chan struct{})
			write := func(f *os.File, b []byte) (int, error) {
				n := writes.Add(1)
				if n == 2 { // "held": the failing batch gathers behind it
					close(started)
					<-release
				}
				if n == fail.Load() {
					k, _ := f.Write(b[:len(b)-10]) // whole frames but the last, then the disk is full
					return k, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
				}
				return f.Write(b)
			}
			l := metering.New(metering.WithWrites(metering.Config{Dir: t.TempDir(), Pool: pool, SegmentRecords: tc.segRecords,
				FlushInterval: time.Hour, SyncEvery: time.Hour}, write))
			require.NoError(t, l.Start(ctx))
			require.NoError(t, l.Append(ctx, record("before")))
			held := make(chan error, 1)
			go func() { held <- l.Append(ctx, record("held")) }()
			<-started
			const batch = 4
			type outcome struct {
				id  string
				err error
			}
			outcomes := make(chan outcome, batch)
			for i := 0; i < batch; i++ {
				go func() {
					id := fmt.Sprintf("batch%d", i)
					outcomes <- outcome{id, l.Append(ctx, record(id))}
				}()
			}
			require.Eventually(t, func() bool { return metering.PendingFrames(l) == batch }, 10*time.Second, time.Millisecond)
			fail.Store(writes.Load() + 1 + int64(tc.acked)) // the batch's write (after the one filling the segment)
			close(release)
			require.NoError(t, <-held)
			want := map[string]int64{"before": 1, "held": 1, "after": 1}
			failed := 0
			for i := 0; i < batch; i++ {
				o := <-outcomes
				if o.err != nil {
					require.ErrorContains(t, o.err, "cannot write the metering log")
					failed++
				} else {
					want[o.id] = 1
				}
			}
			require.Equal(t, batch-tc.acked, failed, "the failed write's Appends fail, and only those")
			require.NoError(t, l.Append(ctx, record("after")), "the next Append works")
			require.NoError(t, l.Flush(ctx))
			require.NoError(t, l.Stop(ctx))
			require.Equal(t, want, storedCalls(t, pool), "no record of a failed Append is flushed")
		})
	}
}
