package devstack_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/oltp"
)

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func get(t *testing.T, url string) (int, string) {
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A private stack of its own (not the shared test stores): start it, serve /readyz on it, stop each
// store in turn and watch readiness say which one failed.
func TestReadyzTurns503NamingTheStoppedStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own Postgres and ClickHouse")
	}
	ctx := context.Background()
	// Under the checkout, not t.TempDir(): the postgres user must be able to reach the data dir.
	// .run exists once the checkout's stores ran; not when the tests use HS_POSTGRES_URL's.
	require.NoError(t, os.MkdirAll(filepath.Join("..", "..", ".run"), 0o755))
	dir, err := os.MkdirTemp(filepath.Join("..", "..", ".run"), "devstack-test-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { os.RemoveAll(dir) })
	st := &devstack.Stack{Dir: dir, PostgresPort: freePort(t), ClickHousePort: freePort(t), ClickHouseHTTP: freePort(t), Log: slog.New(slog.DiscardHandler)}
	started, err := st.Up(ctx)
	require.NoError(t, err)
	require.True(t, started.Postgres && started.ClickHouse)
	t.Cleanup(func() { _ = st.Down(context.Background(), started) })

	again, err := st.Up(ctx)
	require.NoError(t, err)
	require.False(t, again.Postgres || again.ClickHouse, "Up on a running stack starts nothing")

	pg, err := oltp.Open(ctx, st.PostgresURL())
	require.NoError(t, err)
	defer pg.Close()
	require.NoError(t, oltp.Migrate(ctx, pg, nil))
	chOpts := analytics.Options{Addr: st.ClickHouseAddr(), Database: devstack.Database}
	require.NoError(t, analytics.EnsureDatabase(ctx, chOpts))
	ch, err := analytics.Open(chOpts)
	require.NoError(t, err)
	defer ch.Close()
	require.NoError(t, analytics.Migrate(ctx, ch, chOpts, nil))

	srv := api.New(api.Config{Listen: "127.0.0.1:0", Log: slog.New(slog.DiscardHandler),
		Checks: []api.Check{{Name: "postgres", Ping: pg.Ping}, {Name: "clickhouse", Ping: ch.Ping}}})
	require.NoError(t, srv.Start(ctx))
	defer srv.Stop(ctx)
	base := fmt.Sprintf("http://%s", srv.Addr())

	code, _ := get(t, base+"/readyz")
	require.Equal(t, 200, code)
	code, _ = get(t, base+"/healthz")
	require.Equal(t, 200, code)

	require.NoError(t, st.Down(ctx, devstack.Started{ClickHouse: true}))
	code, body := get(t, base+"/readyz")
	require.Equal(t, 503, code)
	require.Contains(t, body, "clickhouse")
	require.NotContains(t, body, "postgres:")

	require.NoError(t, st.Down(ctx, devstack.Started{Postgres: true}))
	code, body = get(t, base+"/readyz")
	require.Equal(t, 503, code)
	require.Contains(t, body, "postgres")
	code, _ = get(t, base+"/healthz")
	require.Equal(t, 200, code, "the process is still up")

	// Bring them back: readiness recovers without restarting the API.
	_, err = st.Up(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool { c, _ := get(t, base+"/readyz"); return c == 200 }, 30*time.Second, 200*time.Millisecond)
}

func TestPortTakenByAStrangerIsNamed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dir := t.TempDir()
	st := &devstack.Stack{Dir: dir, PostgresPort: port, ClickHousePort: freePort(t), ClickHouseHTTP: freePort(t), Log: slog.New(slog.DiscardHandler)}
	_, err = st.Up(context.Background())
	require.ErrorContains(t, err, fmt.Sprintf("port %d", port))
	require.ErrorContains(t, err, "--pg-port")
}
