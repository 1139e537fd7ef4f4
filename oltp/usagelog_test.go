package oltp_test

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

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func record(id string) oltp.UsageRecord {
	return oltp.UsageRecord{UnitID: id, CustomerID: "cus_x", AccountID: 1, KeyID: 7, Method: "GET", Route: "/v1/reqs/search",
		MeterClass: oltp.MeterSourceRow, Calls: 1, Units: 3, OccurredAt: time.Now().UTC()}
}

// TestUsageLogChild is the process that TestUsageLogSurvivesKill kills: it appends records as
// fast as it can, printing each acknowledged unit id, and never flushes to Postgres.
func TestUsageLogChild(t *testing.T) {
	dir := os.Getenv("HS_USAGELOG_CHILD_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	l, err := oltp.OpenUsageLog(oltp.UsageLogConfig{Dir: dir, Pool: nil, SegmentRecords: 1 << 30, FlushInterval: time.Hour})
	require.NoError(t, err)
	l.Start()
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

func TestUsageLogSurvivesKill(t *testing.T) {
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	dir := t.TempDir()

	cmd := exec.Command(os.Args[0], "-test.run=^TestUsageLogChild$", "-test.v")
	cmd.Env = append(os.Environ(), "HS_USAGELOG_CHILD_DIR="+dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	acked := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && len(acked) < 3000 {
		if id, ok := strings.CutPrefix(sc.Text(), "ACK "); ok {
			acked[id] = true
		}
	}
	require.NoError(t, cmd.Process.Kill()) // SIGKILL: no shutdown, no flush
	_ = cmd.Wait()
	require.Len(t, acked, 3000)

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
		l, err := oltp.OpenUsageLog(oltp.UsageLogConfig{Dir: dir, Pool: pool})
		require.NoError(t, err)
		l.Start()
		require.NoError(t, l.Flush(ctx))
		require.NoError(t, l.Stop(ctx))
	}
	rows, err := pool.Query(ctx, "SELECT unit_id FROM usage_events")
	require.NoError(t, err)
	stored := map[string]bool{}
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		stored[id] = true
	}
	require.NoError(t, rows.Err())
	for id := range acked {
		require.True(t, stored[id], "acknowledged unit %s was lost", id)
	}
	var units, calls int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT units, calls FROM usage_monthly WHERE account_id = 1").Scan(&units, &calls))
	require.Equal(t, int64(len(stored)), calls, "the rollup counts each stored unit once")
	require.Equal(t, 3*int64(len(stored)), units)
	left, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	require.Empty(t, left, "flushed segments are removed")
}

func TestUsageLogReplayIsIdempotent(t *testing.T) {
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	recs := []oltp.UsageRecord{record("a"), record("b")}
	require.NoError(t, oltp.InsertUsage(ctx, pool, recs))
	require.NoError(t, oltp.InsertUsage(ctx, pool, append(recs, record("c"))))
	var n, units int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM usage_events").Scan(&n))
	require.NoError(t, pool.QueryRow(ctx, "SELECT units FROM usage_monthly").Scan(&units))
	require.Equal(t, int64(3), n)
	require.Equal(t, int64(9), units)
}

func TestUsageLogRefusesASecondProcessOnTheSameDir(t *testing.T) {
	dir := t.TempDir()
	l, err := oltp.OpenUsageLog(oltp.UsageLogConfig{Dir: dir})
	require.NoError(t, err)
	defer l.Stop(context.Background())
	_, err = oltp.OpenUsageLog(oltp.UsageLogConfig{Dir: dir})
	require.ErrorContains(t, err, "--metering-dir")
}
