package analytics_test

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// The replicated layout, on the local cluster (make test-cluster; skipped without it).

// TestClusterMigratesOnceForEveryReplica: the migrations run through either replica, twice, and
// after a lost record, and leave one schema every replica sees: every table replicated on both,
// the ALTERs' columns on both, the same record read through each.
func TestClusterMigratesOnceForEveryReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts, replicas := storetest.ClickHouseCluster(t, "analytics")
	require.NoError(t, analytics.Migrate(ctx, replicas[0], opts, nil))
	require.NoError(t, analytics.Migrate(ctx, replicas[1], opts, nil), "twice, through the other replica: nothing to do")
	want, err := analytics.AppliedVersions(ctx, replicas[0])
	require.NoError(t, err)
	require.NotEmpty(t, want)

	// A run that stopped before recording: every statement runs again, safely.
	require.NoError(t, replicas[1].Exec(ctx, "DROP TABLE schema_migrations ON CLUSTER "+opts.OnCluster))
	require.NoError(t, analytics.Migrate(ctx, replicas[1], opts, nil))

	for i, r := range replicas {
		got, err := analytics.AppliedVersions(ctx, r)
		require.NoError(t, err)
		require.Equal(t, want, got, "replica %d reads the same record", i+1)
		require.NoError(t, analytics.CheckSchema(ctx, r, opts))
		var tables, total uint64
		require.NoError(t, r.QueryRow(ctx, `SELECT count(), toUInt64(min(total_replicas)) FROM system.replicas WHERE database = currentDatabase()`).Scan(&tables, &total))
		require.Equal(t, uint64(7), tables, "events, cycles, companies, req_boards, ats_history, req_descriptions and schema_migrations are replicated")
		require.Equal(t, uint64(len(replicas)), total)
		var cols uint64
		require.NoError(t, r.QueryRow(ctx, `SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'events'
			AND name IN ('posted_at', 'close_reason', 'gap_from', 'gap_to', 'technologies', 'description_hash')`).Scan(&cols))
		require.Equal(t, uint64(6), cols, "replica %d has the ALTERs' columns", i+1)
		require.NoError(t, r.QueryRow(ctx, `SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'cycles'
			AND name = 'sources_carried'`).Scan(&cols))
		require.Equal(t, uint64(1), cols, "replica %d has the cycles' carried sources", i+1)
	}

	single := opts
	single.OnCluster = ""
	require.ErrorContains(t, analytics.CheckSchema(ctx, replicas[0], single), "--clickhouse-cluster", "a cluster's tables named as one server's")

	// The first address not answering: connections go to the next.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	failover := opts
	failover.Addr = closed + "," + opts.Addrs()[1]
	conn, err := analytics.Open(failover)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, analytics.CheckSchema(ctx, conn, failover))
}

// TestClusterReadersOnALaggingReplicaDelayNeverSkip: cycles committed through one replica are read
// through the other. With the write quorum (both replicas, at two), a replica that stops fetching
// holds the commit back until it fetches again, so it never holds a commit row without its
// events. A replica outside the quorum (a third one, in a majority of three; here the quorum
// set to 1) may: its readers stay below that commit row and catch up once the events arrive,
// and paging through it serves every event once.
func TestClusterReadersOnALaggingReplicaDelayNeverSkip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts, replicas := storetest.ClickHouseCluster(t, "analytics")
	require.NoError(t, analytics.Migrate(ctx, replicas[0], opts, nil))
	writer, reader := replicas[0], replicas[1]
	at := func(tick uint32) time.Time {
		return time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(tick) * 3 * time.Hour)
	}
	cycle := func(tick uint32, from, to uint64) *analytics.CycleWrite {
		return &analytics.CycleWrite{Events: synthEvents(from, to, at(tick), fmt.Sprintf("tick %d", tick)),
			Cycle: analytics.Cycle{Region: "eu", Tick: tick, CycleTime: at(tick), StartedAt: at(tick), Events: to - from + 1, SeqFrom: from, SeqTo: to}}
	}
	reads := func(r driver.Conn) (snap, page uint64) {
		t.Helper()
		wm, _, err := analytics.ReadWatermark(ctx, r)
		require.NoError(t, err)
		p, err := analytics.ReadFeed(ctx, r, analytics.FeedQuery{After: 0, Upper: 1000, Limit: 1000})
		require.NoError(t, err)
		require.Equal(t, span(1, p.Next), seqs(p.Events), "a page has every position up to its cursor")
		return wm, p.Next
	}
	exec := func(r driver.Conn, q string) {
		t.Helper()
		require.NoError(t, r.Exec(ctx, q))
	}
	// The reader lags on events: its replication queue for the table stops (it fetches no part;
	// STOP FETCHES would do too, but a fetch cancelled by it is retried only after a back-off of
	// seconds), and resumes.
	stop := func() { t.Helper(); exec(reader, "SYSTEM STOP REPLICATION QUEUES "+opts.Database+".events") }
	resume := func() { t.Helper(); exec(reader, "SYSTEM START REPLICATION QUEUES "+opts.Database+".events") }

	require.NoError(t, analytics.WriteCycle(ctx, writer, cycle(1, 1, 10), 4))
	snap, page := reads(reader)
	require.Equal(t, []uint64{10, 10}, []uint64{snap, page}, "a quorum write is on the other replica when it returns")

	// The reader stops fetching events: the quorum write waits for it. Its first block's attempts
	// time out (unknown status: it is on the writer) and it is sent again, identical, until the
	// reader has it; it lands once.
	restore := analytics.SetQuorumTimeout(300 * time.Millisecond)
	defer restore()
	stop()
	done := make(chan error, 1)
	go func() { done <- analytics.WriteCycle(ctx, writer, cycle(2, 11, 15), 4) }()
	require.Never(t, func() bool { return len(done) > 0 }, time.Second, 20*time.Millisecond, "the commit waits for the quorum")
	head, _, err := analytics.Watermark(ctx, reader)
	require.NoError(t, err)
	require.Equal(t, uint64(10), head, "no commit row reached the replica before its events")
	resume()
	require.NoError(t, <-done)
	restore()
	snap, page = reads(reader)
	require.Equal(t, []uint64{15, 15}, []uint64{snap, page})
	for _, r := range replicas {
		var rows uint64
		require.NoError(t, r.QueryRow(ctx, "SELECT count() FROM events WHERE event_seq BETWEEN 11 AND 15").Scan(&rows))
		require.Equal(t, uint64(5), rows, "every row once: the blocks sent again were dropped as duplicates")
	}

	// Outside the quorum: the commit row arrives first.
	o := opts
	o.Addr, o.InsertQuorum = opts.Addrs()[0], 1
	solo, err := analytics.Open(o)
	require.NoError(t, err)
	defer solo.Close()
	stop()
	require.NoError(t, analytics.WriteCycle(ctx, solo, cycle(3, 16, 20), 4))
	head, _, err = analytics.Watermark(ctx, solo)
	require.NoError(t, err)
	require.Equal(t, uint64(20), head, "without a quorum the head is read as written (no sequential consistency to hide it)")
	require.NoError(t, analytics.CheckSchema(ctx, solo, o), "and so is the migrations' record")
	require.Eventually(t, func() bool {
		var head uint64
		return reader.QueryRow(ctx, "SELECT max(seq_to) FROM cycles").Scan(&head) == nil && head == 20
	}, time.Minute, 20*time.Millisecond, "the commit row reaches the lagging replica")
	snap, page = reads(reader)
	require.Equal(t, []uint64{15, 15}, []uint64{snap, page}, "its readers stay below the commit row whose events it lacks")
	pwm, _, err := analytics.PresentWatermark(ctx, reader, 15)
	require.NoError(t, err)
	require.Equal(t, uint64(15), pwm)

	resume()
	require.Eventually(t, func() bool {
		wm, _, err := analytics.ReadWatermark(ctx, reader)
		return err == nil && wm == 20
	}, time.Minute, 20*time.Millisecond, "it catches up")
	snap, page = reads(reader)
	require.Equal(t, []uint64{20, 20}, []uint64{snap, page})
}
