package metering_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api/metering"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// storedCalls maps each record id (the Function of record(id)) to its calls in usage_events.
func storedCalls(t *testing.T, pool *pgxpool.Pool) map[string]int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), "SELECT function, sum(calls) FROM usage_events GROUP BY function")
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var calls int64
		require.NoError(t, rows.Scan(&id, &calls))
		out[id] = calls
	}
	require.NoError(t, rows.Err())
	return out
}

// record is one metered call; id goes into Function so that each record keeps a row of its own
// in the rolled-up ledger and the tests can tell every record apart.
func record(id string) metering.Record {
	return metering.Record{CustomerID: "cus_x", AccountID: 1, KeyID: 7, Method: "GET", Route: "/v1/reqs/search",
		MeterClass: oltp.MeterSourceRow, Function: id, Calls: 1, Units: 3, OccurredAt: time.Now().UTC()}
}

// TestLogChild is the process that TestLogSurvivesKill kills: it appends records as
// fast as it can, printing each acknowledged unit id, and never flushes to Postgres.
func TestLogChild(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HS_USAGELOG_CHILD_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	syncEvery, err := time.ParseDuration(os.Getenv("HS_USAGELOG_CHILD_SYNC"))
	require.NoError(t, err)
	// Small segments so the kill also lands among sealed and open ones.
	l := metering.New(metering.Config{Dir: dir, Pool: nil, SegmentRecords: 500, FlushInterval: time.Hour, SyncEvery: syncEvery})
	require.NoError(t, l.Start(context.Background()))
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id := fmt.Sprintf("w%d-%d", w, i)
				if err := l.Append(context.Background(), record(id)); err != nil {
					panic(err)
				}
				mu.Lock()
				fmt.Fprintln(out, "ACK", id)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestLogSurvivesKill kills a process appending records with SIGKILL, in both modes: strict
// (fsync before acknowledging) and relaxed (acknowledged once written, fsynced within 20ms).
// Every acknowledged unit must reach Postgres exactly once after restarts.
func TestLogSurvivesKill(t *testing.T) {
	t.Parallel()
	for _, syncEvery := range []string{"0s", "20ms"} {
		t.Run("sync="+syncEvery, func(t *testing.T) {
			t.Parallel()
			survivesKill(t, syncEvery)
		})
	}
}

func survivesKill(t *testing.T, syncEvery string) {
	ctx := context.Background()
	pool := storetest.Postgres(t, "metering")
	dir := t.TempDir()

	cmd := exec.Command(os.Args[0], "-test.run=^TestLogChild$", "-test.v")
	cmd.Env = append(os.Environ(), "HS_USAGELOG_CHILD_DIR="+dir, "HS_USAGELOG_CHILD_SYNC="+syncEvery)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	acked := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	for len(acked) < 3300 && sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "ACK "); ok {
			acked[id] = true
		}
	}
	// SIGKILL: no shutdown, no flush. Acknowledgements already in the pipe count too.
	require.NoError(t, cmd.Process.Kill())
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "ACK "); ok {
			acked[id] = true
		}
	}
	_ = cmd.Wait()
	require.GreaterOrEqual(t, len(acked), 3300)

	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM usage_events").Scan(&n))
	require.Zero(t, n, "the child never flushed to Postgres")

	// A torn tail, as a crash in the middle of a write leaves.
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	require.NotEmpty(t, segs)
	f, err := os.OpenFile(segs[len(segs)-1], os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, _ = f.Write([]byte{0x40, 0, 0, 0, 1, 2, 3})
	require.NoError(t, f.Close())

	for round := 0; round < 2; round++ { // recovering twice must not double anything
		l := metering.New(metering.Config{Dir: dir, Pool: pool})
		require.NoError(t, l.Start(ctx))
		require.NoError(t, l.Flush(ctx))
		require.NoError(t, l.Stop(ctx))
	}
	stored := storedCalls(t, pool)
	for id := range acked {
		require.Equal(t, int64(1), stored[id], "acknowledged unit %s must be stored exactly once", id)
	}
	// Records written but not yet acknowledged when the kill came may be stored too (at most one
	// per appending goroutine), never more than once.
	require.LessOrEqual(t, len(stored), len(acked)+8)
	var units, calls int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT units, calls FROM usage_monthly WHERE account_id = 1").Scan(&units, &calls))
	require.Equal(t, int64(len(stored)), calls, "the rollup counts each stored unit once")
	require.Equal(t, 3*int64(len(stored)), units)
	left, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	require.Empty(t, left, "flushed segments are removed")
}

func TestSegmentReplayIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "metering")
	recs := []metering.Record{record("a"), record("b")}
	require.NoError(t, metering.InsertSegment(ctx, pool, "seg-1", recs))
	require.NoError(t, metering.InsertSegment(ctx, pool, "seg-1", recs), "a replayed segment is skipped whole")
	require.NoError(t, metering.InsertSegment(ctx, pool, "seg-2", []metering.Record{record("c")}))
	var n, units int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM usage_events").Scan(&n))
	require.NoError(t, pool.QueryRow(ctx, "SELECT units FROM usage_monthly").Scan(&units))
	require.Equal(t, int64(3), n)
	require.Equal(t, int64(9), units)
}

func TestInsertSegmentRollsUpBySecondKeyRouteAndFunction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "metering")
	at := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	r := func(key int64, fn string, units int64, forced bool, at time.Time) metering.Record {
		return metering.Record{CustomerID: "cus_x", AccountID: 1, KeyID: key, Method: "GET", Route: "/v1/reqs/search",
			MeterClass: oltp.MeterSourceRow, Function: fn, Calls: 1, Units: units, ForcedFresh: forced, OccurredAt: at}
	}
	recs := []metering.Record{
		r(7, "", 2, false, at), r(7, "", 3, false, at.Add(300*time.Millisecond)), // same second: one row
		r(7, "", 1, false, at.Add(time.Second)), // next second
		r(8, "", 4, false, at),                  // another key
		r(7, "fn_eng", 5, false, at),            // another function
		r(7, "", 0, true, at),                   // forced fresh apart
	}
	require.NoError(t, metering.InsertSegment(ctx, pool, "seg-x", recs))
	var rows, calls, units, forcedCalls int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), sum(calls), sum(units), COALESCE(sum(calls) FILTER (WHERE forced_fresh), 0) FROM usage_events`).
		Scan(&rows, &calls, &units, &forcedCalls))
	require.Equal(t, int64(5), rows)
	require.Equal(t, int64(6), calls)
	require.Equal(t, int64(15), units)
	require.Equal(t, int64(1), forcedCalls)
	var c, u int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT calls, units FROM usage_events WHERE key_id = 7 AND function IS NULL AND NOT forced_fresh AND occurred_at = $1`, at).Scan(&c, &u))
	require.Equal(t, int64(2), c)
	require.Equal(t, int64(5), u)
	var mc, mu int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT calls, units FROM usage_monthly WHERE account_id = 1").Scan(&mc, &mu))
	require.Equal(t, int64(6), mc)
	require.Equal(t, int64(15), mu)
	require.NoError(t, metering.PruneSegments(ctx, pool, time.Hour))
	var segs int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM usage_segments").Scan(&segs))
	require.Equal(t, 1, segs, "a fresh segment id is kept")
}

func TestLogRefusesASecondProcessOnTheSameDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := metering.New(metering.Config{Dir: dir})
	require.NoError(t, l.Start(context.Background()))
	defer l.Stop(context.Background())
	err := metering.New(metering.Config{Dir: dir}).Start(context.Background())
	require.ErrorContains(t, err, "--metering-dir")
}

// TestLogFlushSeesEveryEarlierAppend: in both modes, with appends running concurrently,
// Flush returns only after every record acknowledged before it is in Postgres, and Stop writes
// out the rest: each acknowledged record is stored exactly once.
func TestLogFlushSeesEveryEarlierAppend(t *testing.T) {
	t.Parallel()
	for _, syncEvery := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run("sync="+syncEvery.String(), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := storetest.Postgres(t, "metering")
			l := metering.New(metering.Config{Dir: t.TempDir(), Pool: pool, SegmentRecords: 37, FlushInterval: 3 * time.Millisecond, SyncEvery: syncEvery})
			require.NoError(t, l.Start(ctx))
			var mu sync.Mutex
			acked := map[string]bool{}
			var wg sync.WaitGroup
			for w := 0; w < 8; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 300; i++ {
						id := fmt.Sprintf("w%d-%d", w, i)
						require.NoError(t, l.Append(ctx, record(id)))
						mu.Lock()
						acked[id] = true
						mu.Unlock()
					}
				}()
			}
			stored := func() map[string]int64 { return storedCalls(t, pool) }
			for round := 0; round < 5; round++ {
				mu.Lock()
				before := make([]string, 0, len(acked))
				for id := range acked {
					before = append(before, id)
				}
				mu.Unlock()
				require.NoError(t, l.Flush(ctx))
				got := stored()
				for _, id := range before {
					require.Equal(t, int64(1), got[id], "record %s acknowledged before Flush", id)
				}
			}
			wg.Wait()
			require.NoError(t, l.Stop(ctx))
			got := stored()
			require.Len(t, got, 8*300)
			for id := range acked {
				require.Equal(t, int64(1), got[id], id)
			}
		})
	}
}

// A Log follows the lifecycle contract in both modes: Stop before Start and a second Stop do
// nothing, a second Start does nothing, Stop writes out what was appended, and a stopped Log starts
// again on its directory.
func TestLogLifecycle(t *testing.T) {
	t.Parallel()
	for _, syncEvery := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run("sync="+syncEvery.String(), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := storetest.Postgres(t, "metering")
			l := metering.New(metering.Config{Dir: t.TempDir(), Pool: pool, FlushInterval: time.Hour, SyncEvery: syncEvery})
			require.NoError(t, l.Stop(ctx))
			require.Error(t, l.Append(ctx, record("before")), "not running yet")
			require.NoError(t, l.Start(ctx))
			require.NoError(t, l.Start(ctx))
			require.NoError(t, l.Append(ctx, record("a")))
			require.NoError(t, l.Stop(ctx))
			require.NoError(t, l.Stop(ctx))
			require.Error(t, l.Append(ctx, record("after")), "stopped")
			require.NoError(t, l.Start(ctx), "a stopped log starts again")
			require.NoError(t, l.Append(ctx, record("b")))
			require.NoError(t, l.Stop(ctx))
			require.Equal(t, map[string]int64{"a": 1, "b": 1}, storedCalls(t, pool))
		})
	}
}

// What a dead instance's directory holds is measured: while Postgres cannot be reached the
// oldest sealed segment's wait grows (hs_metering_unflushed_seconds, the alert), and once
// Postgres takes it, nothing waits. The bound with Postgres answering is two flush intervals.
func TestUnflushedCallsAreMeasured(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	away := metering.New(metering.Config{Dir: dir, FlushInterval: time.Hour}) // no Postgres: nothing flushes
	require.NoError(t, away.Start(ctx))
	require.Zero(t, away.UnflushedFor(time.Now()))
	require.Equal(t, 2*time.Hour, away.LossBound())
	require.NoError(t, away.Append(ctx, record("a")))
	require.Error(t, away.Flush(ctx), "sealed, but Postgres is away")
	require.GreaterOrEqual(t, away.UnflushedFor(time.Now().Add(time.Minute)), time.Minute)
	require.Error(t, away.Stop(ctx))

	pool := storetest.Postgres(t, "metering")
	back := metering.New(metering.Config{Dir: dir, Pool: pool})
	require.NoError(t, back.Start(ctx))
	require.NoError(t, back.Flush(ctx))
	require.Zero(t, back.UnflushedFor(time.Now().Add(time.Minute)))
	require.NoError(t, back.Stop(ctx))
	require.Equal(t, map[string]int64{"a": 1}, storedCalls(t, pool))
}
