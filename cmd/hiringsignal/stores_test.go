package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/testkit/proctest"
)

// storesPort is a free port away from the shared stores' and other checkouts' ports.
func storesPort(t *testing.T) string {
	reserved := map[int]bool{55432: true, 59000: true, 59123: true, 58123: true, 56432: true, 60000: true, 60123: true, 55442: true, 59010: true, 58133: true}
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !reserved[p] {
			return fmt.Sprint(p)
		}
	}
}

// runBin runs the binary to completion from dir with only the HS_* variables in env.
func runBin(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = dir
	proctest.DieWithParent(cmd)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A second checkout: with one checkout's stores up, `dev` (make run) of another
// checkout on the same ports refuses, naming the flag, and migrates nothing into the first one's
// database; `stores status` says whose the ports are; `stores down` run from / stops the first.
func TestStoresBelongToTheirCheckout(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts its own Postgres and ClickHouse")
	}
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	pg, ch, chHTTP := storesPort(t), storesPort(t), storesPort(t)
	ports := []string{"--pg-port", pg, "--clickhouse-port", ch, "--clickhouse-http-port", chHTTP}
	t.Cleanup(func() {
		_, _ = runBin(t, "/", nil, append([]string{"stores", "down", "--run-dir", a}, ports...)...)
		// Root keeps the Postgres data of a mode-0700 run dir under /var/tmp/hiringsignal.
		if d := (&devstack.Stack{Dir: a}).PostgresDir(); strings.HasPrefix(d, "/var/tmp/hiringsignal/") {
			_ = os.RemoveAll(filepath.Dir(d))
		}
	})

	out, err := runBin(t, "/", nil, append([]string{"stores", "up", "--run-dir", a}, ports...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "HS_POSTGRES_URL=postgres://postgres@127.0.0.1:"+pg+"/")
	out, err = runBin(t, "/", nil, append([]string{"stores", "status", "--run-dir", a}, ports...)...)
	require.NoError(t, err, out)
	require.Equal(t, 2, strings.Count(out, "ours, running"), out)

	// The second checkout's `make run`, on the same ports (through the environment fallbacks).
	env := []string{"HS_RUN_DIR=" + b, "HS_PG_PORT=" + pg, "HS_CLICKHOUSE_PORT=" + ch, "HS_CLICKHOUSE_HTTP_PORT=" + chHTTP}
	out, err = runBin(t, root, env, "dev", "--listen", "127.0.0.1:"+storesPort(t), "--sim-listen", "127.0.0.1:"+storesPort(t), "--metering-dir", t.TempDir())
	require.Error(t, err, "dev must not run on another checkout's stores")
	require.Contains(t, out, "--pg-port (env HS_PG_PORT)")
	require.Contains(t, out, "--clickhouse-port (env HS_CLICKHOUSE_PORT)")
	whose := regexp.MustCompile(`another Postgres answers there, with its data in ([^(]*)`).FindStringSubmatch(out)
	require.NotNil(t, whose, out)
	require.Contains(t, whose[1], a, "the message says whose the Postgres is (its data dir, or its run dir when the data lives in /var/tmp)")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%s/hiringsignal?sslmode=disable", pg))
	require.NoError(t, err)
	var tables int
	require.NoError(t, c.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").Scan(&tables))
	require.NoError(t, c.Close(ctx))
	require.Zero(t, tables, "nothing was migrated into the first checkout's database")

	out, err = runBin(t, root, env, "stores", "status")
	require.NoError(t, err, out)
	require.Equal(t, 2, strings.Count(out, "NOT OURS"), out)
	require.Contains(t, out, filepath.Join(a, "clickhouse", "data"))

	out, err = runBin(t, "/", nil, append([]string{"stores", "down", "--run-dir", a}, ports...)...)
	require.NoError(t, err, out)
	out, err = runBin(t, "/", nil, append([]string{"stores", "status", "--run-dir", a}, ports...)...)
	require.NoError(t, err, out)
	require.Equal(t, 2, strings.Count(out, "not running"), out)
}
