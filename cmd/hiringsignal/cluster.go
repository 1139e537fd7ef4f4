package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/flagenv"
)

// runCluster starts, stops or names the local replicated ClickHouse (devstack.Cluster) that `make
// cluster-up` and `make test-cluster` use.
func runCluster(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("cluster", "Start (up) or stop (down) a local replicated ClickHouse under --run-dir/cluster: one ZooKeeper and two "+
		"clickhouse-server replicas on loopback, cluster "+devstack.ClusterName+" of one shard (Debian's zookeeper and clickhouse-server "+
		"packages). `addrs` prints the replicas' addresses. For tests and trying the layout (docs/deployment.md), not for data.")
	dir := fs.String("run-dir", devstack.DefaultRunDir(), "directory holding the cluster's data under cluster/ (default: .run of the checkout)")
	zk := fs.Int("zookeeper-port", devstack.DefaultZooKeeperPort, "ZooKeeper's client port")
	base := fs.Int("cluster-base-port", devstack.DefaultClusterBase, "replica i listens on base+i (native), base+10+i (HTTP), base+20+i (interserver)")
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	c := &devstack.Cluster{Dir: filepath.Join(*dir, "cluster"), ZooKeeperPort: *zk, BasePort: *base, Log: log}
	switch action {
	case "up":
		if err := c.Up(ctx); err != nil {
			return err
		}
		fmt.Printf("HS_CLICKHOUSE_CLUSTER=%s\nHS_CLICKHOUSE_CLUSTER_NAME=%s\n", strings.Join(c.Addrs(), ","), devstack.ClusterName)
		return nil
	case "down":
		return c.Down(ctx)
	case "addrs":
		fmt.Println(strings.Join(c.Addrs(), ","))
		return nil
	}
	return fmt.Errorf("say `cluster up`, `cluster down` or `cluster addrs`")
}
