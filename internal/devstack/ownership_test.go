package devstack_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/devstack"
)

// TestMain doubles as a helper process: with HS_DEVSTACK_HELPER set the test binary runs one
// stack action (up, status, down) and exits, so a test can run it as another user from another
// working directory, as `bin/hiringsignal stores ...` would be.
func TestMain(m *testing.M) {
	if action := os.Getenv("HS_DEVSTACK_HELPER"); action != "" {
		os.Exit(helper(action))
	}
	os.Exit(m.Run())
}

func helper(action string) int {
	ports := strings.Split(os.Getenv("HS_DEVSTACK_PORTS"), ",")
	if len(ports) != 3 {
		fmt.Fprintln(os.Stderr, "HS_DEVSTACK_PORTS must be pg,clickhouse,clickhouse-http")
		return 2
	}
	n := make([]int, 3)
	for i, p := range ports {
		n[i], _ = strconv.Atoi(p)
	}
	st := &devstack.Stack{Dir: os.Getenv("HS_DEVSTACK_DIR"), PostgresPort: n[0], ClickHousePort: n[1], ClickHouseHTTP: n[2], Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var err error
	switch action {
	case "up":
		_, err = st.Up(ctx)
	case "down":
		err = st.Down(ctx, devstack.Started{Postgres: true, ClickHouse: true})
	case "status":
		var ss []devstack.StoreStatus
		ss, err = st.Status(ctx)
		for _, s := range ss {
			fmt.Println(s)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// The shared stores other checkouts use, and another test process's: never picked.
var reserved = map[int]bool{55432: true, 59000: true, 59123: true, 58123: true, 56432: true, 60000: true, 60123: true, 55442: true, 59010: true, 58133: true}

func port(t *testing.T) int {
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !reserved[p] {
			return p
		}
	}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// stack is a stack in its own run dir on fresh ports, stopped and removed when the test ends
// (with its Postgres data when that went to /var/tmp).
func stack(t *testing.T, dir string) *devstack.Stack {
	st := &devstack.Stack{Dir: dir, PostgresPort: port(t), ClickHousePort: port(t), ClickHouseHTTP: port(t), Log: quiet()}
	t.Cleanup(func() {
		_ = st.Down(context.Background(), devstack.Started{Postgres: true, ClickHouse: true})
		if pg := st.PostgresDir(); strings.HasPrefix(pg, "/var/tmp/hiringsignal/") {
			_ = os.RemoveAll(filepath.Dir(pg))
		}
	})
	return st
}

func states(t *testing.T, st *devstack.Stack) (pg, ch devstack.StoreStatus) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ss, err := st.Status(ctx)
	require.NoError(t, err)
	require.Len(t, ss, 2)
	return ss[0], ss[1]
}

func pgPing(t *testing.T, st *devstack.Stack) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, st.PostgresURL())
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	return c.Ping(ctx)
}

// Two checkouts' stacks on their own ports come up and go down independently; a third pointed at
// the first's ports is refused, naming the port, the other's data and the flag, and starts nothing;
// down works from a working directory the postgres user cannot enter, on a stack brought up from
// a relative run dir.
func TestTwoStacksAreIndependentAndRefuseEachOthersPorts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two Postgres and two ClickHouse")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root := t.TempDir()
	t.Chdir(root)
	a := stack(t, "a") // relative, as `--run-dir .run` is
	b := stack(t, filepath.Join(root, "b"))

	_, err := a.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(root, "a"), a.Dir, "the run dir is made absolute")
	started, err := b.Up(ctx)
	require.NoError(t, err)
	require.True(t, started.Postgres && started.ClickHouse)
	aPG, aCH := states(t, a)
	require.Equal(t, devstack.Running, aPG.State, aPG.String())
	require.Equal(t, devstack.Running, aCH.State, aCH.String())
	bPG, bCH := states(t, b)
	require.Equal(t, devstack.Running, bPG.State, bPG.String())
	require.Equal(t, devstack.Running, bCH.State, bCH.String())
	require.NotEqual(t, aPG.DataDir, bPG.DataDir)

	again, err := a.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, devstack.Started{}, again, "our own running stack is reused")

	// A third checkout on the first one's ports: refused, nothing started, nothing of a's touched.
	c := &devstack.Stack{Dir: filepath.Join(root, "c"), PostgresPort: a.PostgresPort, ClickHousePort: a.ClickHousePort, ClickHouseHTTP: port(t), Log: quiet()}
	_, err = c.Up(ctx)
	require.Error(t, err)
	for _, want := range []string{fmt.Sprintf("port %d", a.PostgresPort), "--pg-port (env HS_PG_PORT)", aPG.DataDir,
		fmt.Sprintf("port %d", a.ClickHousePort), "--clickhouse-port (env HS_CLICKHOUSE_PORT)", aCH.DataDir} {
		require.ErrorContains(t, err, want)
	}
	cPG, cCH := states(t, c)
	require.Equal(t, devstack.Foreign, cPG.State)
	require.Equal(t, aPG.DataDir, cPG.Owner, "status says whose it is")
	if strings.HasPrefix(aPG.DataDir, "/var/tmp/hiringsignal/") {
		require.Equal(t, a.Dir, cPG.OwnerRunDir, "data kept outside the run dir names it")
		require.ErrorContains(t, err, "run dir "+a.Dir)
	}
	require.Equal(t, devstack.Foreign, cCH.State)
	require.Contains(t, cPG.String(), "NOT OURS")
	require.NoDirExists(t, filepath.Join(c.PostgresDir(), "data"), "a refused Up starts nothing")
	require.NoError(t, c.Down(ctx, devstack.Started{Postgres: true, ClickHouse: true}), "down of a stack that never ran")
	aPG, _ = states(t, a)
	require.Equal(t, devstack.Running, aPG.State, "down on another run dir stops nothing of ours")

	// Only the HTTP port taken: refused naming that flag, before Postgres starts.
	d := &devstack.Stack{Dir: filepath.Join(root, "d"), PostgresPort: port(t), ClickHousePort: port(t), ClickHouseHTTP: a.ClickHouseHTTP, Log: quiet()}
	_, err = d.Up(ctx)
	require.ErrorContains(t, err, fmt.Sprintf("port %d", a.ClickHouseHTTP))
	require.ErrorContains(t, err, "--clickhouse-http-port (env HS_CLICKHOUSE_HTTP_PORT)")
	require.NoDirExists(t, filepath.Join(d.PostgresDir(), "data"))

	// a's own run dir asked for other ports while a runs: refused, not a second server on a's data.
	moved := &devstack.Stack{Dir: a.Dir, PostgresPort: port(t), ClickHousePort: port(t), ClickHouseHTTP: port(t), Log: quiet()}
	_, err = moved.Up(ctx)
	require.ErrorContains(t, err, "stores down")
	mPG, mCH := states(t, moved)
	require.Equal(t, devstack.Elsewhere, mPG.State, mPG.String())
	require.Contains(t, mPG.String(), fmt.Sprintf("on port %d", a.PostgresPort))
	require.Equal(t, devstack.Elsewhere, mCH.State, mCH.String())

	// Down of a from a working directory nobody else may enter (mode 0700), by absolute path.
	t.Chdir(t.TempDir())
	require.NoError(t, (&devstack.Stack{Dir: a.Dir, PostgresPort: a.PostgresPort, ClickHousePort: a.ClickHousePort, ClickHouseHTTP: a.ClickHouseHTTP, Log: quiet()}).
		Down(ctx, devstack.Started{Postgres: true, ClickHouse: true}))
	aPG, aCH = states(t, a)
	require.Equal(t, devstack.Stopped, aPG.State, aPG.String())
	require.Equal(t, devstack.Stopped, aCH.State, aCH.String())
	bPG, bCH = states(t, b)
	require.Equal(t, devstack.Running, bPG.State, "b is untouched")
	require.Equal(t, devstack.Running, bCH.State)
	require.NoError(t, pgPing(t, b))
	require.Error(t, pgPing(t, a))

	// Down of b by a relative run dir (`stores down --run-dir b`), a stack of its own.
	t.Chdir(root)
	require.NoError(t, (&devstack.Stack{Dir: "b", PostgresPort: b.PostgresPort, ClickHousePort: b.ClickHousePort, ClickHouseHTTP: b.ClickHouseHTTP, Log: quiet()}).
		Down(ctx, devstack.Started{Postgres: true, ClickHouse: true}))
	bPG, bCH = states(t, b)
	require.Equal(t, devstack.Stopped, bPG.State)
	require.Equal(t, devstack.Stopped, bCH.State)
}

// A user other than root brings its own stack up, sees it as its own and takes it down, from a
// working directory it cannot even enter: the servers run as that user.
func TestNonRootUserUpStatusDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own Postgres and ClickHouse")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the stack as another user (runuser)")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	// The test binary and the run dir where nobody reaches them (t.TempDir is mode 0700).
	base, err := os.MkdirTemp("", "devstack-nobody-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	exe, err := os.Executable()
	require.NoError(t, err)
	bin, err := os.ReadFile(exe)
	require.NoError(t, err)
	helperBin := filepath.Join(base, "devstack.test")
	require.NoError(t, os.WriteFile(helperBin, bin, 0o755))
	runDir := filepath.Join(base, "run")
	require.NoError(t, os.Mkdir(runDir, 0o755))
	require.NoError(t, os.Chown(runDir, uid, gid))
	st := &devstack.Stack{Dir: runDir, PostgresPort: port(t), ClickHousePort: port(t), ClickHouseHTTP: port(t), Log: quiet()}
	unreachable := t.TempDir() // root's, mode 0700

	run := func(action string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "runuser", "-u", "nobody", "--", "env",
			"HS_DEVSTACK_HELPER="+action, "HS_DEVSTACK_DIR="+runDir,
			fmt.Sprintf("HS_DEVSTACK_PORTS=%d,%d,%d", st.PostgresPort, st.ClickHousePort, st.ClickHouseHTTP), helperBin)
		cmd.Dir = unreachable
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { _, _ = run("down") })

	out, err := run("up")
	require.NoError(t, err, out)
	pg, ch := states(t, st)
	require.Equal(t, devstack.Running, pg.State, pg.String())
	require.Equal(t, devstack.Running, ch.State, ch.String())
	require.Equal(t, filepath.Join(runDir, "postgres", "data"), pg.DataDir, "a non-root user keeps its data in its run dir")
	for _, pid := range []int{pg.PID, ch.PID} {
		fi, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint(uid), fmt.Sprint(fileUID(fi)), "the server runs as nobody")
	}
	require.NoError(t, pgPing(t, st))

	out, err = run("status")
	require.NoError(t, err, out)
	require.Equal(t, 2, strings.Count(out, "ours, running"), out)

	out, err = run("down")
	require.NoError(t, err, out)
	pg, ch = states(t, st)
	require.Equal(t, devstack.Stopped, pg.State, pg.String())
	require.Equal(t, devstack.Stopped, ch.State, ch.String())

	out, err = run("down")
	require.NoError(t, err, "down of a stopped stack: %s", out)
}

func TestDefaultRunDirIsTheCheckouts(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/planehq/hiringsignal\n\ngo 1.26\n"), 0o644))
	sub := filepath.Join(root, "api", "events")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	t.Chdir(sub)
	require.Equal(t, filepath.Join(root, ".run"), devstack.DefaultRunDir())

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644))
	t.Chdir(other)
	require.Equal(t, ".run", devstack.DefaultRunDir(), "outside a checkout (the test binary is not in one either): the working directory's")
}

func fileUID(fi os.FileInfo) uint32 { return fi.Sys().(*syscall.Stat_t).Uid }
