package devstack_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/devstack"
)

// freeBase is a base port whose replica ports (base+1..2, +11..12, +21..22) are free now.
func freeBase(t *testing.T) int {
	t.Helper()
	for range 100 {
		base := 20000 + 100*rand.IntN(300)
		free := true
		for _, off := range []int{1, 2, 11, 12, 21, 22} {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+off))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free block of ports")
	return 0
}

// A cluster of its own: Up forms one shard of two replicas that replicate through ZooKeeper,
// each with its macros; a replica stops and comes back; Down stops everything.
func TestClusterUpFormsOneShardOfTwoReplicasAndDownStopsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own ZooKeeper and two ClickHouse servers")
	}
	if _, err := os.Stat(devstack.ZooKeeperJar); err != nil {
		t.Skip("Debian's zookeeper is not installed (make cluster-up installs it)")
	}
	ctx := context.Background()
	c := &devstack.Cluster{Dir: t.TempDir(), ZooKeeperPort: freePort(t), BasePort: freeBase(t)}
	require.NoError(t, c.Up(ctx))
	t.Cleanup(func() { _ = c.Down(context.Background()) })
	require.NoError(t, c.Up(ctx), "Up on a running cluster reuses it")

	addrs := c.Addrs()
	require.Len(t, addrs, 2)
	for i, addr := range addrs {
		ch, err := analytics.Open(analytics.Options{Addr: addr, Database: "default"})
		require.NoError(t, err)
		defer ch.Close()
		var replica, shard string
		require.NoError(t, ch.QueryRow(ctx, "SELECT any(substitution) FROM system.macros WHERE macro = 'replica'").Scan(&replica))
		require.NoError(t, ch.QueryRow(ctx, "SELECT any(substitution) FROM system.macros WHERE macro = 'shard'").Scan(&shard))
		require.Equal(t, devstack.ReplicaName(i+1), replica)
		require.Equal(t, "01", shard)
		var shards, replicas uint64
		require.NoError(t, ch.QueryRow(ctx, "SELECT uniqExact(shard_num), count() FROM system.clusters WHERE cluster = ?", devstack.ClusterName).Scan(&shards, &replicas))
		require.Equal(t, []uint64{1, 2}, []uint64{shards, replicas})
	}
	r1, err := analytics.Open(analytics.Options{Addr: addrs[0], Database: "default"})
	require.NoError(t, err)
	defer r1.Close()
	require.NoError(t, r1.Exec(ctx, "CREATE DATABASE d ON CLUSTER "+devstack.ClusterName))
	require.NoError(t, r1.Exec(ctx, "CREATE TABLE d.t ON CLUSTER "+devstack.ClusterName+
		" (x UInt64) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/t', '{replica}') ORDER BY x"))
	r2, err := analytics.Open(analytics.Options{Addr: addrs[1], Database: "default"})
	require.NoError(t, err)
	defer r2.Close()
	qctx := clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"insert_quorum": 2}))
	b, err := r2.PrepareBatch(qctx, "INSERT INTO d.t (x)") // 18.16 takes an INSERT's rows as a block only
	require.NoError(t, err)
	require.NoError(t, b.Append(uint64(7)))
	require.NoError(t, b.Send())
	var n uint64
	require.NoError(t, r1.QueryRow(ctx, "SELECT count() FROM d.t").Scan(&n))
	require.Equal(t, uint64(1), n, "a quorum insert through r2 is on r1 when it returns")

	require.NoError(t, c.ReplicaDown(ctx, 2))
	_, err = net.DialTimeout("tcp", addrs[1], time.Second)
	require.Error(t, err, "r2 stopped")
	require.NoError(t, c.ReplicaUp(ctx, 2))
	require.Eventually(t, func() bool { return r2.QueryRow(ctx, "SELECT count() FROM d.t").Scan(&n) == nil && n == 1 }, 30*time.Second, 100*time.Millisecond)

	require.NoError(t, c.Down(ctx))
	for _, addr := range addrs {
		_, err = net.DialTimeout("tcp", addr, time.Second)
		require.Error(t, err, "%s stopped", addr)
	}
	_, err = net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.ZooKeeperPort), time.Second)
	require.Error(t, err, "ZooKeeper stopped")
}
