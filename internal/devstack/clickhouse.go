package devstack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/proto"
)

const (
	chFlag     = "--clickhouse-port (env HS_CLICKHOUSE_PORT)"
	chHTTPFlag = "--clickhouse-http-port (env HS_CLICKHOUSE_HTTP_PORT)"
)

func (s *Stack) chDir() string  { return filepath.Join(s.Dir, "clickhouse") }
func (s *Stack) chData() string { return filepath.Join(s.chDir(), "data") }

// clickhouseDataDirAt asks the ClickHouse on port for its data directory (18.16 has no setting
// that says it; the metadata path of a system table lies under it). answers is false when nothing
// there speaks the native protocol; dir is empty when a ClickHouse answers but will not say.
func clickhouseDataDirAt(ctx context.Context, port int) (dir string, answers bool, err error) {
	conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{fmt.Sprintf("127.0.0.1:%d", port)}, DialTimeout: time.Second})
	if err != nil {
		return "", false, err
	}
	defer conn.Close()
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var exc *proto.Exception
	if err := conn.Ping(cctx); err != nil {
		return "", errors.As(err, &exc), err
	}
	var meta string
	if err := conn.QueryRow(cctx, "SELECT metadata_path FROM system.tables WHERE database = 'system' LIMIT 1").Scan(&meta); err != nil {
		return "", true, err
	}
	i := strings.LastIndex(meta, "/metadata/")
	if i < 0 {
		return "", true, fmt.Errorf("unexpected metadata path %q", meta)
	}
	return meta[:i], true, nil
}

// ourPID is the pid of this run directory's clickhouse-server when it is alive: the pid file's
// process, checked by its command line (a pid reused by another process is not ours).
func (s *Stack) ourPID() (int, bool) {
	b, err := os.ReadFile(filepath.Join(s.chDir(), "server.pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), "--config-file="+filepath.Join(s.chDir(), "config.xml")) {
		return 0, false
	}
	return pid, alive(pid)
}

// alive: the process exists and one of its threads has not exited. Its first thread alone can be
// a zombie while the others still run (a JVM's launcher thread exits before the threads that
// shut ZooKeeper down and hold its port), and a process that exited whole is a zombie (a child
// of ours, not yet reaped) with that thread alone.
func alive(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // exited since the directory was read
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' {
			return true
		}
	}
	return false
}

// probeClickHouse says what answers on the ClickHouse ports and whether it is ours: a server is
// ours only when the data directory it reports is this run directory's.
func (s *Stack) probeClickHouse(ctx context.Context) StoreStatus {
	st := StoreStatus{Store: "clickhouse", Port: s.ClickHousePort, Flag: chFlag, DataDir: s.chData()}
	dir, answers, err := clickhouseDataDirAt(ctx, s.ClickHousePort)
	switch {
	case answers && sameDir(dir, st.DataDir):
		st.State = Running
		st.PID, _ = s.ourPID()
		return st
	case answers && dir != "":
		st.State, st.Owner = Foreign, dir
		return st
	case answers:
		st.State, st.Owner = Foreign, fmt.Sprintf("unknown: it would not say (%v)", err)
		return st
	case portOpen(s.ClickHousePort):
		st.State = Stranger
		return st
	}
	if pid, ok := s.ourPID(); ok {
		st.State, st.PID, st.Owner = Elsewhere, pid, fmt.Sprintf("as pid %d, not on port %d (started with other ports)", pid, s.ClickHousePort)
		return st
	}
	if portOpen(s.ClickHouseHTTP) {
		st.State, st.Port, st.Flag = Stranger, s.ClickHouseHTTP, chHTTPFlag
	}
	return st
}

// clickhouseUp starts our ClickHouse; the caller probed both ports free.
func (s *Stack) clickhouseUp(ctx context.Context) (bool, error) {
	bin, err := exec.LookPath("clickhouse-server")
	if err != nil {
		return false, fmt.Errorf("cannot find clickhouse-server: install it with `apt-get install -y clickhouse-server` (or run `make deps`)")
	}
	dir := s.chDir()
	for _, d := range []string{"data", "tmp", "logs", "user_files", "format_schemas"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return false, fmt.Errorf("cannot create %s: %w", filepath.Join(dir, d), err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "config.xml"), []byte(s.clickhouseConfig()), 0o644); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(dir, "users.xml"), []byte(clickhouseUsers), 0o644); err != nil {
		return false, err
	}
	logf, err := os.OpenFile(filepath.Join(dir, "logs", "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return false, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "--config-file="+filepath.Join(dir, "config.xml"))
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives `make test`; `hiringsignal stores down` stops it
	s.Log.Info("starting private ClickHouse", "port", s.ClickHousePort, "dir", s.chData())
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("cannot start clickhouse-server: %w", err)
	}
	pid := cmd.Process.Pid
	// Not waited for: the server outlives this process; if it exits first it stays a zombie
	// until this process ends (alive() treats it as gone).
	_ = cmd.Process.Release()
	if err := os.WriteFile(filepath.Join(dir, "server.pid"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return true, err
	}
	logs := filepath.Join(dir, "logs")
	up := func() bool {
		if !alive(pid) {
			return true // stop waiting; reported below
		}
		d, _, _ := clickhouseDataDirAt(ctx, s.ClickHousePort)
		return sameDir(d, s.chData())
	}
	if err := waitFor(ctx, "ClickHouse on port "+strconv.Itoa(s.ClickHousePort), 60*time.Second, up); err != nil {
		return true, fmt.Errorf("%w (see %s)", err, logs)
	}
	if !alive(pid) {
		return false, fmt.Errorf("cannot start ClickHouse: clickhouse-server exited (see %s)", logs)
	}
	return true, nil
}

// clickhouseDown stops our ClickHouse (the pid file's process, only when its command line is
// ours) wherever it listens; not running is not an error.
func (s *Stack) clickhouseDown(ctx context.Context) error {
	pid, ok := s.ourPID()
	if !ok {
		s.Log.Info("private ClickHouse was not running", "dir", s.chData())
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("cannot stop ClickHouse (pid %d, data %s): %w (run `stores down` as root or as the user that ran `stores up`)", pid, s.chData(), err)
	}
	gone := func() bool { return !alive(pid) }
	if err := waitFor(ctx, "ClickHouse shutdown", 30*time.Second, gone); err != nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if err := waitFor(ctx, "ClickHouse kill", 10*time.Second, gone); err != nil {
			return fmt.Errorf("cannot stop ClickHouse (pid %d): %w", pid, err)
		}
	}
	s.Log.Info("stopped private ClickHouse", "dir", s.chData())
	return nil
}

func (s *Stack) clickhouseConfig() string {
	d := s.chDir()
	return fmt.Sprintf(`<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>%[1]s/logs/server.log</log><errorlog>%[1]s/logs/err.log</errorlog><size>50M</size><count>2</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>%[2]d</tcp_port>
  <http_port>%[3]d</http_port>
  <max_connections>512</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>200</max_concurrent_queries>
  <uncompressed_cache_size>1073741824</uncompressed_cache_size>
  <mark_cache_size>536870912</mark_cache_size>
  <path>%[1]s/data/</path>
  <tmp_path>%[1]s/tmp/</tmp_path>
  <user_files_path>%[1]s/user_files/</user_files_path>
  <format_schema_path>%[1]s/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
</yandex>
`, d, s.ClickHousePort, s.ClickHouseHTTP)
}

// clickhouseUsers is the private ClickHouse's users.xml: one loopback user without a password.
// Table and database metadata are written without fsync (fsync_metadata=0): the store is a
// throwaway one, and each test makes and drops a database of its own.
const clickhouseUsers = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>6000000000</max_memory_usage><load_balancing>random</load_balancing><fsync_metadata>0</fsync_metadata></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`
