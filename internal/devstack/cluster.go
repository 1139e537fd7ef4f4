package devstack

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cluster is a local replicated ClickHouse: one ZooKeeper and Replicas clickhouse-server
// processes from the Debian packages, on loopback ports, forming cluster ClusterName of one
// shard of Replicas replicas (the production shape, docs/deployment.md), with the {shard} and
// {replica} macros its replicated tables' paths use. It is for tests and trying the layout
// (`make cluster-up`, `make test-cluster`), never for data anyone keeps: its data lives under
// Dir, and Down stops only this Dir's processes.
type Cluster struct {
	Dir           string // e.g. <checkout>/.run/cluster
	ZooKeeperPort int    // client port (DefaultZooKeeperPort)
	// BasePort numbers the replicas' ports: replica i (from 1) listens on BasePort+i (native),
	// BasePort+10+i (HTTP) and BasePort+20+i (interserver, for fetching parts).
	BasePort int
	Replicas int // 2 when 0
	Log      *slog.Logger
}

// The local cluster's defaults.
const (
	ClusterName          = "hs"
	DefaultZooKeeperPort = 62181
	DefaultClusterBase   = 62000
	// ZooKeeperJar is the Debian zookeeper package's server; the package pulls in a JRE.
	ZooKeeperJar = "/usr/share/java/zookeeper.jar"
)

func (c *Cluster) replicas() int {
	if c.Replicas <= 0 {
		return 2
	}
	return c.Replicas
}

func (c *Cluster) log() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

// ReplicaName is replica i's {replica} macro (from 1).
func ReplicaName(i int) string { return "r" + strconv.Itoa(i) }

func (c *Cluster) tcpPort(i int) int         { return c.BasePort + i }
func (c *Cluster) httpPort(i int) int        { return c.BasePort + 10 + i }
func (c *Cluster) interserverPort(i int) int { return c.BasePort + 20 + i }
func (c *Cluster) zkDir() string             { return filepath.Join(c.Dir, "zookeeper") }
func (c *Cluster) replicaDir(i int) string   { return filepath.Join(c.Dir, ReplicaName(i)) }

// Addrs are the replicas' native-protocol addresses, replica 1 first.
func (c *Cluster) Addrs() []string {
	out := make([]string, 0, c.replicas())
	for i := 1; i <= c.replicas(); i++ {
		out = append(out, fmt.Sprintf("127.0.0.1:%d", c.tcpPort(i)))
	}
	return out
}

// Up starts ZooKeeper and every replica that is not running yet and waits until each answers. A
// process of this Dir already running is reused; a port held by anything else is refused with
// the flag that changes it.
func (c *Cluster) Up(ctx context.Context) error {
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return fmt.Errorf("cannot resolve the cluster directory %q: %w", c.Dir, err)
	}
	c.Dir = abs
	if c.replicas() > 9 {
		return fmt.Errorf("cannot start %d replicas: the port scheme numbers at most 9", c.replicas())
	}
	if err := c.zookeeperUp(ctx); err != nil {
		return err
	}
	for i := 1; i <= c.replicas(); i++ {
		if err := c.ReplicaUp(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// Down stops every replica of this Dir, then its ZooKeeper; what is not running is not an error.
func (c *Cluster) Down(ctx context.Context) error {
	var errs []error
	for i := 1; i <= c.replicas(); i++ {
		errs = append(errs, c.ReplicaDown(ctx, i))
	}
	errs = append(errs, stopPIDFile(ctx, c.log(), "ZooKeeper", filepath.Join(c.zkDir(), "server.pid"), c.zkConfigPath()))
	return errors.Join(errs...)
}

// ReplicaUp starts replica i (from 1) unless it runs, and waits until it answers.
func (c *Cluster) ReplicaUp(ctx context.Context, i int) error {
	dir, port := c.replicaDir(i), c.tcpPort(i)
	data := filepath.Join(dir, "data")
	if d, answers, _ := clickhouseDataDirAt(ctx, port); answers {
		if sameDir(d, data) {
			return nil
		}
		return fmt.Errorf("cannot start cluster replica %s on port %d: another ClickHouse answers there (data %s): pass --cluster-base-port to move the cluster's ports", ReplicaName(i), port, d)
	}
	for _, p := range []int{port, c.httpPort(i), c.interserverPort(i)} {
		if portOpen(p) {
			return fmt.Errorf("cannot start cluster replica %s: port %d is held by something else: pass --cluster-base-port to move the cluster's ports", ReplicaName(i), p)
		}
	}
	bin, err := exec.LookPath("clickhouse-server")
	if err != nil {
		return fmt.Errorf("cannot find clickhouse-server: install it with `apt-get install -y clickhouse-server` (or run `make deps`)")
	}
	for _, d := range []string{"data", "tmp", "logs", "user_files", "format_schemas"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("cannot create %s: %w", filepath.Join(dir, d), err)
		}
	}
	config := filepath.Join(dir, "config.xml")
	if err := os.WriteFile(config, []byte(c.replicaConfig(i)), 0o644); err != nil {
		return err
	}
	// An idle connection notices a shutdown once per poll_interval (10 s by default): 1 s lets a
	// replica a test stops go at once.
	users := strings.Replace(clickhouseUsers, "<default><max_memory_usage>", "<default><poll_interval>1</poll_interval><max_memory_usage>", 1)
	if err := os.WriteFile(filepath.Join(dir, "users.xml"), []byte(users), 0o644); err != nil {
		return err
	}
	c.log().Info("starting cluster replica", "replica", ReplicaName(i), "port", port, "dir", data)
	if err := startDetached(dir, filepath.Join(dir, "logs", "stdout.log"), filepath.Join(dir, "server.pid"), bin, "--config-file="+config); err != nil {
		return fmt.Errorf("cannot start cluster replica %s: %w", ReplicaName(i), err)
	}
	up := func() bool {
		d, _, _ := clickhouseDataDirAt(ctx, port)
		return sameDir(d, data)
	}
	if err := waitFor(ctx, "cluster replica "+ReplicaName(i)+" on port "+strconv.Itoa(port), 60*time.Second, up); err != nil {
		return fmt.Errorf("%w (see %s)", err, filepath.Join(dir, "logs"))
	}
	return nil
}

// ReplicaDown stops replica i (from 1) when it runs: what a replica that goes away looks like to
// the others.
func (c *Cluster) ReplicaDown(ctx context.Context, i int) error {
	return stopPIDFile(ctx, c.log(), "cluster replica "+ReplicaName(i), filepath.Join(c.replicaDir(i), "server.pid"),
		"--config-file="+filepath.Join(c.replicaDir(i), "config.xml"))
}

func (c *Cluster) zkConfigPath() string { return filepath.Join(c.zkDir(), "zoo.cfg") }

// zookeeperUp starts this Dir's ZooKeeper unless it answers, and waits for it.
func (c *Cluster) zookeeperUp(ctx context.Context) error {
	data := filepath.Join(c.zkDir(), "data")
	if dir, ok := zookeeperDataDir(c.ZooKeeperPort); ok {
		if sameDir(dir, data) {
			return nil
		}
		return fmt.Errorf("cannot start the cluster's ZooKeeper on port %d: another ZooKeeper answers there (data %s): pass --zookeeper-port", c.ZooKeeperPort, dir)
	}
	if portOpen(c.ZooKeeperPort) {
		return fmt.Errorf("cannot start the cluster's ZooKeeper: port %d is held by something else: pass --zookeeper-port", c.ZooKeeperPort)
	}
	java, err := exec.LookPath("java")
	if err != nil || !exists(ZooKeeperJar) {
		return fmt.Errorf("cannot find ZooKeeper (%s) or java: install it with `apt-get install -y --no-install-recommends zookeeper` (or run `make cluster-up`)", ZooKeeperJar)
	}
	if err := os.MkdirAll(data, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", data, err)
	}
	cfg := fmt.Sprintf(`tickTime=2000
dataDir=%s
clientPort=%d
clientPortAddress=127.0.0.1
maxClientCnxns=200
admin.enableServer=false
4lw.commands.whitelist=ruok,conf
`, data, c.ZooKeeperPort)
	if err := os.WriteFile(c.zkConfigPath(), []byte(cfg), 0o644); err != nil {
		return err
	}
	c.log().Info("starting the cluster's ZooKeeper", "port", c.ZooKeeperPort, "dir", data)
	if err := startDetached(c.zkDir(), filepath.Join(c.zkDir(), "stdout.log"), filepath.Join(c.zkDir(), "server.pid"),
		java, "-Xmx256m", "-cp", c.zkDir()+":"+ZooKeeperJar, "org.apache.zookeeper.server.quorum.QuorumPeerMain", c.zkConfigPath()); err != nil {
		return fmt.Errorf("cannot start ZooKeeper: %w", err)
	}
	up := func() bool {
		dir, ok := zookeeperDataDir(c.ZooKeeperPort)
		return ok && sameDir(dir, data)
	}
	if err := waitFor(ctx, "ZooKeeper on port "+strconv.Itoa(c.ZooKeeperPort), 60*time.Second, up); err != nil {
		return fmt.Errorf("%w (see %s)", err, filepath.Join(c.zkDir(), "stdout.log"))
	}
	return nil
}

// zookeeperDataDir asks the ZooKeeper on port for its data directory (the conf four-letter
// word); ok is false when nothing there answers as ZooKeeper.
func zookeeperDataDir(port int) (string, bool) {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 300*time.Millisecond)
	if err != nil {
		return "", false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte("conf")); err != nil {
		return "", false
	}
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "dataDir="); ok {
			// ZooKeeper keeps its files in <dataDir>/version-2 and says so.
			return strings.TrimSuffix(strings.TrimSpace(v), "/version-2"), true
		}
	}
	return "", false
}

// replicaConfig is replica i's server config: the private ClickHouse's, plus the interserver
// port, ZooKeeper, the macros and the cluster of every replica.
func (c *Cluster) replicaConfig(i int) string {
	d := c.replicaDir(i)
	var replicas strings.Builder
	for j := 1; j <= c.replicas(); j++ {
		fmt.Fprintf(&replicas, "\n        <replica><host>127.0.0.1</host><port>%d</port></replica>", c.tcpPort(j))
	}
	return fmt.Sprintf(`<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>%[1]s/logs/server.log</log><errorlog>%[1]s/logs/err.log</errorlog><size>20M</size><count>2</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>%[2]d</tcp_port>
  <http_port>%[3]d</http_port>
  <interserver_http_port>%[4]d</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <max_connections>256</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>100</max_concurrent_queries>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
  <path>%[1]s/data/</path>
  <tmp_path>%[1]s/tmp/</tmp_path>
  <user_files_path>%[1]s/user_files/</user_files_path>
  <format_schema_path>%[1]s/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <zookeeper><node><host>127.0.0.1</host><port>%[5]d</port></node><session_timeout_ms>30000</session_timeout_ms></zookeeper>
  <macros><shard>01</shard><replica>%[6]s</replica></macros>
  <remote_servers>
    <%[7]s>
      <shard>
        <internal_replication>true</internal_replication>%[8]s
      </shard>
    </%[7]s>
  </remote_servers>
  <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>
</yandex>
`, d, c.tcpPort(i), c.httpPort(i), c.interserverPort(i), c.ZooKeeperPort, ReplicaName(i), ClusterName, replicas.String())
}

// startDetached starts bin in its own session (it outlives the caller; Down stops it), output to
// logPath, and writes its pid to pidPath.
func startDetached(dir, logPath, pidPath, bin string, args ...string) error {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	// Not waited for: if it exits first it stays a zombie until this process ends (alive()
	// treats it as gone).
	_ = cmd.Process.Release()
	return os.WriteFile(pidPath, []byte(strconv.Itoa(pid)), 0o644)
}

// stopPIDFile stops the process of pidPath when it runs and its command line holds mark (a pid
// reused by another process is not ours): SIGTERM, then SIGKILL after 30 s.
func stopPIDFile(ctx context.Context, log *slog.Logger, what, pidPath, mark string) error {
	pid, ok := pidFileProcess(pidPath, mark)
	if !ok {
		return nil // not running (or never started): nothing to stop
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("cannot stop %s (pid %d): %w", what, pid, err)
	}
	gone := func() bool { return !alive(pid) }
	if err := waitFor(ctx, what+" shutdown", 30*time.Second, gone); err != nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if err := waitFor(ctx, what+" kill", 10*time.Second, gone); err != nil {
			return fmt.Errorf("cannot stop %s (pid %d): %w", what, pid, err)
		}
	}
	log.Info("stopped "+what, "pid", pid)
	return nil
}

// pidFileProcess is the process of pidPath when it is alive and its command line holds mark.
func pidFileProcess(pidPath, mark string) (int, bool) {
	b, err := os.ReadFile(pidPath)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), mark) {
		return 0, false
	}
	return pid, alive(pid)
}
