package devstack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

func (s *Stack) chDir() string { return filepath.Join(s.Dir, "clickhouse") }

func (s *Stack) clickhouseAnswers(ctx context.Context) bool {
	conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{s.ClickHouseAddr()}, DialTimeout: time.Second})
	if err != nil {
		return false
	}
	defer conn.Close()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return conn.Ping(cctx) == nil
}

func (s *Stack) clickhouseUp(ctx context.Context) (bool, error) {
	if s.clickhouseAnswers(ctx) {
		return false, nil
	}
	for _, p := range []int{s.ClickHousePort, s.ClickHouseHTTP} {
		if portOpen(p) {
			return false, fmt.Errorf("port %d is taken by something that is not our ClickHouse: pass --clickhouse-port / --clickhouse-http-port (env HS_CLICKHOUSE_PORT / HS_CLICKHOUSE_HTTP_PORT) to use others", p)
		}
	}
	bin, err := exec.LookPath("clickhouse-server")
	if err != nil {
		return false, fmt.Errorf("cannot find clickhouse-server: install it with `apt-get install -y clickhouse-server` (or run `make deps`)")
	}
	dir := s.chDir()
	for _, d := range []string{"data", "tmp", "logs", "user_files", "format_schemas"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return false, err
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
	s.Log.Info("starting private ClickHouse", "port", s.ClickHousePort)
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("cannot start clickhouse-server: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		return true, err
	}
	go cmd.Wait() //nolint:errcheck // reap the child if it exits while we run
	if err := waitFor(ctx, "ClickHouse on port "+strconv.Itoa(s.ClickHousePort), 60*time.Second, func() bool { return s.clickhouseAnswers(ctx) }); err != nil {
		return true, fmt.Errorf("%w (see %s)", err, filepath.Join(dir, "logs"))
	}
	return true, nil
}

func (s *Stack) clickhouseDown(ctx context.Context) error {
	b, err := os.ReadFile(filepath.Join(s.chDir(), "server.pid"))
	if err != nil {
		return fmt.Errorf("cannot read ClickHouse pid file: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("bad ClickHouse pid file: %w", err)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	_ = p.Signal(syscall.SIGTERM)
	if err := waitFor(ctx, "ClickHouse shutdown", 30*time.Second, func() bool { return !s.clickhouseAnswers(ctx) && syscall.Kill(pid, 0) != nil }); err != nil {
		_ = p.Signal(syscall.SIGKILL)
	}
	s.Log.Info("stopped private ClickHouse")
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

const clickhouseUsers = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>6000000000</max_memory_usage><load_balancing>random</load_balancing></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`
