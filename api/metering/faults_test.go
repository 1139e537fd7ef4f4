package metering_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api/metering"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// TestSealedSegmentsAreSyncedWhenSealed (relaxed mode): a segment that fills up is fsynced by
// the Append that filled it, before it waits for the syncer. Here the syncer is stuck sealing an
// earlier segment (its rename blocks) and its periodic fsync is an hour away: the full segment
// must be on disk all the same when the Append returns.
func TestSealedSegmentsAreSyncedWhenSealed(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	synced := map[string]bool{}
	syncFile := func(f *os.File) error {
		mu.Lock()
		synced[filepath.Base(f.Name())] = true
		mu.Unlock()
		return f.Sync()
	}
	release := make(chan struct{})
	var renames atomic.Int64
	rename := func(oldpath, newpath string) error {
		if renames.Add(1) == 1 {
			<-release
		}
		return os.Rename(oldpath, newpath)
	}
	dir := t.TempDir()
	l := metering.New(metering.WithFaults(metering.Config{Dir: dir, SegmentRecords: 1, FlushInterval: time.Hour, SyncEvery: time.Hour}, syncFile, rename, nil))
	require.NoError(t, l.Start(context.Background()))
	defer func() {
		close(release)
		_ = l.Stop(context.Background()) // no pool: the segments stay on disk
	}()
	require.NoError(t, l.Append(context.Background(), record("first")))  // sealed; the syncer blocks renaming it
	require.NoError(t, l.Append(context.Background(), record("second"))) // sealed; queued behind the first
	open, err := filepath.Glob(filepath.Join(dir, "seg-*.open"))
	require.NoError(t, err)
	require.Len(t, open, 2, "both segments still carry their open name")
	mu.Lock()
	defer mu.Unlock()
	for _, p := range open {
		require.True(t, synced[filepath.Base(p)], "sealed segment %s waits for the syncer unsynced", filepath.Base(p))
	}
}

// TestStrictModeNeverBillsACallAnswered503: in strict mode a record whose Append failed (the
// call answers 503) is never flushed to Postgres, whether the batch's fsync failed or the caller
// stopped waiting while its record was queued; the records around it are stored exactly once.
func TestStrictModeNeverBillsACallAnswered503(t *testing.T) {
	t.Parallel()
	t.Run("fsync fails", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		pool := storetest.Postgres(t, "metering")
		var fail atomic.Bool
		syncFile := func(f *os.File) error {
			if fail.Load() {
				return &os.PathError{Op: "fsync", Path: f.Name(), Err: syscall.EIO}
			}
			return f.Sync()
		}
		l := metering.New(metering.WithFaults(metering.Config{Dir: t.TempDir(), Pool: pool, FlushInterval: time.Hour}, syncFile, nil, nil))
		require.NoError(t, l.Start(ctx))
		require.NoError(t, l.Append(ctx, record("before")))
		fail.Store(true)
		require.Error(t, l.Append(ctx, record("failed")))
		fail.Store(false)
		require.NoError(t, l.Append(ctx, record("after")))
		require.NoError(t, l.Flush(ctx))
		require.NoError(t, l.Stop(ctx))
		require.Equal(t, map[string]int64{"before": 1, "after": 1}, storedCalls(t, pool))
	})
	t.Run("caller stops waiting", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		pool := storetest.Postgres(t, "metering")
		gate := make(chan struct{})
		var syncs atomic.Int64
		syncFile := func(f *os.File) error {
			if syncs.Add(1) == 1 {
				<-gate // the writer holds the first batch while the next record queues
			}
			return f.Sync()
		}
		l := metering.New(metering.WithFaults(metering.Config{Dir: t.TempDir(), Pool: pool, FlushInterval: time.Hour}, syncFile, nil, nil))
		require.NoError(t, l.Start(ctx))
		first := make(chan error, 1)
		go func() { first <- l.Append(ctx, record("first")) }()
		require.Eventually(t, func() bool { return syncs.Load() == 1 }, 5*time.Second, time.Millisecond)
		cctx, cancel := context.WithCancel(ctx)
		queued := make(chan error, 1)
		go func() { queued <- l.Append(cctx, record("queued")) }()
		time.Sleep(50 * time.Millisecond) // the record is in the writer's queue
		cancel()
		require.Error(t, <-queued, "the caller gave up: its call answers 503")
		close(gate)
		require.NoError(t, <-first)
		require.NoError(t, l.Flush(ctx))
		require.NoError(t, l.Stop(ctx))
		require.Equal(t, map[string]int64{"first": 1}, storedCalls(t, pool))
	})
}

// writeSegment writes the frames of recs to a closed segment file in dir, plus tail.
func writeSegment(t *testing.T, dir, name string, recs []metering.Record, tail []byte) string {
	t.Helper()
	var buf []byte
	for _, r := range recs {
		var err error
		buf, err = metering.AppendFrame(buf, r)
		require.NoError(t, err)
	}
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, append(buf, tail...), 0o600))
	return path
}

// TestUnreadableSegmentIsKeptCountedAndRetried: a read error other than the end of the file,
// or a damaged record with data after it, does not end the segment: it is kept on disk (not
// flushed in part, not deleted), counted and retried at the next flush, and the other segments
// are flushed meanwhile.
func TestUnreadableSegmentIsKeptCountedAndRetried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "metering")
	dir := t.TempDir()
	// A read error: the "segment" is a directory (EISDIR).
	isDir := filepath.Join(dir, "seg-0000000000000000-000000000001.wal")
	require.NoError(t, os.Mkdir(isDir, 0o700))
	// A damaged record in the middle.
	damaged := writeSegment(t, dir, "seg-0000000000000000-000000000002.wal", []metering.Record{record("d1"), record("d2"), record("d3")}, nil)
	data, err := os.ReadFile(damaged)
	require.NoError(t, err)
	one, err := metering.AppendFrame(nil, record("d1"))
	require.NoError(t, err)
	data[len(one)+10] ^= 0xff // inside the second record's payload
	require.NoError(t, os.WriteFile(damaged, data, 0o600))
	// A transient read error (EIO until the disk recovers), then a good read.
	flaky := writeSegment(t, dir, "seg-0000000000000000-000000000003.wal", []metering.Record{record("f1"), record("f2")}, nil)
	var diskBad atomic.Bool
	diskBad.Store(true)
	read := func(path string) ([]byte, error) {
		if path == flaky && diskBad.Load() {
			return nil, &os.PathError{Op: "read", Path: path, Err: syscall.EIO}
		}
		return os.ReadFile(path)
	}
	good := writeSegment(t, dir, "seg-0000000000000000-000000000004.wal", []metering.Record{record("g1")}, nil)

	l := metering.New(metering.WithFaults(metering.Config{Dir: dir, Pool: pool, FlushInterval: time.Hour}, nil, nil, read))
	require.NoError(t, l.Start(ctx))
	defer l.Stop(ctx)
	err = l.Flush(ctx)
	require.Error(t, err)
	require.Contains(t, err.Error(), filepath.Base(isDir))
	require.Equal(t, map[string]int64{"g1": 1}, storedCalls(t, pool), "nothing of an unreadable segment is flushed; the others are")
	for _, p := range []string{isDir, damaged, flaky} {
		_, err := os.Stat(p)
		require.NoError(t, err, "unreadable segment %s is kept", filepath.Base(p))
	}
	require.NoFileExists(t, good)
	require.GreaterOrEqual(t, l.SegmentReadErrors(), int64(3), "each failed read is counted")

	// Retried at the next flush: the flaky one reads now; the damaged ones stay.
	diskBad.Store(false)
	before := l.SegmentReadErrors()
	require.Error(t, l.Flush(ctx))
	require.Equal(t, map[string]int64{"g1": 1, "f1": 1, "f2": 1}, storedCalls(t, pool))
	require.NoFileExists(t, flaky)
	require.DirExists(t, isDir)
	require.FileExists(t, damaged)
	require.GreaterOrEqual(t, l.SegmentReadErrors()-before, int64(2))
}

// TestTornTailAfterTheLastCompleteRecordIsSkipped: what a crash can leave after the last
// complete record — a frame cut short, a last frame failing its checksum, zeros — is skipped,
// and every complete record before it is flushed.
func TestTornTailAfterTheLastCompleteRecordIsSkipped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "metering")
	dir := t.TempDir()
	last, err := metering.AppendFrame(nil, record("never-acked"))
	require.NoError(t, err)
	badCRC := append([]byte(nil), last...)
	badCRC[5] ^= 0xff
	tails := map[string][]byte{"cut": last[:len(last)-3], "header": last[:5], "crc": badCRC, "zeros": make([]byte, 4096)}
	seq := 0
	want := map[string]int64{}
	for name, tail := range tails {
		seq++
		id := fmt.Sprintf("%s-a", name)
		writeSegment(t, dir, fmt.Sprintf("seg-0000000000000000-%012d.wal", seq), []metering.Record{record(id), record(name + "-b")}, tail)
		want[id], want[name+"-b"] = 1, 1
	}
	l := metering.New(metering.Config{Dir: dir, Pool: pool, FlushInterval: time.Hour})
	require.NoError(t, l.Start(ctx))
	require.NoError(t, l.Flush(ctx))
	require.NoError(t, l.Stop(ctx))
	require.Equal(t, want, storedCalls(t, pool))
	require.Zero(t, l.SegmentReadErrors())
	left, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	require.Empty(t, left)
}

// TestFlushesAreCoalesced: Flushes that arrive while one runs share the next one — at most one
// runs at a time — instead of each sealing a segment and committing a transaction; each still
// sees every record appended before it was called.
func TestFlushesAreCoalesced(t *testing.T) {
	// Not parallel: it gives 20 callers 200 ms to queue behind a stuck flush, which a busy process
	// would stretch.
	ctx := context.Background()
	pool := storetest.Postgres(t, "metering")
	release := make(chan struct{})
	var renames atomic.Int64
	rename := func(oldpath, newpath string) error {
		if renames.Add(1) == 1 {
			<-release // the first flush is stuck sealing its segment
		}
		return os.Rename(oldpath, newpath)
	}
	l := metering.New(metering.WithFaults(metering.Config{Dir: t.TempDir(), Pool: pool, FlushInterval: time.Hour, SyncEvery: time.Hour}, nil, rename, nil))
	require.NoError(t, l.Start(ctx))
	defer l.Stop(ctx)
	require.NoError(t, l.Append(ctx, record("r0")))
	firstDone := make(chan error, 1)
	go func() { firstDone <- l.Flush(ctx) }()
	require.Eventually(t, func() bool { return renames.Load() == 1 }, 5*time.Second, time.Millisecond)
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Append(ctx, record(fmt.Sprintf("r%d", i))); err != nil {
				errs <- err
				return
			}
			errs <- l.Flush(ctx)
		}()
	}
	time.Sleep(200 * time.Millisecond) // every caller is waiting
	close(release)
	require.NoError(t, <-firstDone)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	stored := storedCalls(t, pool)
	require.Len(t, stored, n+1)
	for id, calls := range stored {
		require.Equal(t, int64(1), calls, id)
	}
	require.LessOrEqual(t, renames.Load(), int64(2), "the waiting flushes shared one: one more segment sealed, not one each")
}
