// Package devstack starts and stops the private Postgres and ClickHouse instances that `make run`
// and `make test` use, with their data under the run directory of a checkout (<checkout>/.run by
// default), and the local replicated ClickHouse (Cluster: one ZooKeeper and two ClickHouse
// replicas under <run dir>/cluster) that `make cluster-up` and `make test-cluster` use, and a
// Postgres primary with its streaming standby (PostgresPair) for the cluster's end-to-end test.
//
// It owns process management of those servers only (init, start, health wait, stop), the proof
// that a server answering on a port is this run directory's own (its data directory, asked from
// the server itself), their configs (the cluster's macros and remote_servers included), and the
// addresses that reach them. It must not apply migrations or hold any service logic, and it never
// stops or reuses a server whose data lives elsewhere.
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
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Stack describes the private instances.
type Stack struct {
	Dir            string // run directory, e.g. /work/checkout/.run; relative paths are made absolute first
	PostgresPort   int
	ClickHousePort int // native protocol
	ClickHouseHTTP int
	Log            *slog.Logger
}

// Default ports do not clash with system services (5432, 9000, 8123).
const (
	DefaultPostgresPort   = 55432
	DefaultClickHousePort = 59000
	DefaultClickHouseHTTP = 58123
	Database              = "hiringsignal"
	module                = "github.com/planehq/hiringsignal"
)

// PostgresURL is the URL of the private Postgres database.
func (s *Stack) PostgresURL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.PostgresPort, Database)
}

// ClickHouseAddr is the native-protocol address of the private ClickHouse.
func (s *Stack) ClickHouseAddr() string { return fmt.Sprintf("127.0.0.1:%d", s.ClickHousePort) }

// DefaultRunDir is <checkout>/.run, the checkout being the nearest directory holding this module's
// go.mod above the working directory, else above the executable (bin/hiringsignal run from
// anywhere), else the working directory itself.
func DefaultRunDir() string {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, start := range starts {
		for d := start; ; d = filepath.Dir(d) {
			if isCheckout(d) {
				return filepath.Join(d, ".run")
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return ".run"
}

func isCheckout(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return fields[1] == module
		}
	}
	return false
}

// absolute makes Dir absolute once, so a later change of working directory (ours or a child's)
// cannot move the stack.
func (s *Stack) absolute() error {
	abs, err := filepath.Abs(s.Dir)
	if err != nil {
		return fmt.Errorf("cannot resolve the run directory %q: %w", s.Dir, err)
	}
	s.Dir = abs
	return nil
}

// Started says which servers Up started (as opposed to found running).
type Started struct{ Postgres, ClickHouse bool }

// Up starts whichever of the two servers is not already running and waits until both answer. A
// server of this run directory already running is reused; a port held by anything else (another
// checkout's server included) is refused, before anything starts, with an error naming the port
// and the flag that changes it. It is safe to call when both are up.
func (s *Stack) Up(ctx context.Context) (Started, error) {
	var st Started
	if err := s.absolute(); err != nil {
		return st, err
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return st, fmt.Errorf("cannot create the run directory %s: %w", s.Dir, err)
	}
	pg, ch := s.probePostgres(ctx), s.probeClickHouse(ctx)
	if err := errors.Join(pg.refusal(), ch.refusal()); err != nil {
		return st, err
	}
	var err error
	if pg.State == Running {
		err = createDatabase(ctx, s.PostgresPort)
	} else {
		st.Postgres, err = s.postgresUp(ctx)
	}
	if err != nil {
		return st, err
	}
	if ch.State != Running {
		st.ClickHouse, err = s.clickhouseUp(ctx)
	}
	return st, err
}

// Down stops the servers named in which, when they are this run directory's and running; a store
// that is not running is not an error.
func (s *Stack) Down(ctx context.Context, which Started) error {
	if err := s.absolute(); err != nil {
		return err
	}
	var errs []error
	if which.ClickHouse {
		errs = append(errs, s.clickhouseDown(ctx))
	}
	if which.Postgres {
		errs = append(errs, s.postgresDown(ctx))
	}
	return errors.Join(errs...)
}

// Status probes both stores without starting or stopping anything.
func (s *Stack) Status(ctx context.Context) ([]StoreStatus, error) {
	if err := s.absolute(); err != nil {
		return nil, err
	}
	return []StoreStatus{s.probePostgres(ctx), s.probeClickHouse(ctx)}, nil
}

// sameDir says whether a and b name the same directory (symbolic links resolved where they exist).
func sameDir(a, b string) bool {
	norm := func(p string) string {
		p = filepath.Clean(p)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	return a != "" && b != "" && norm(a) == norm(b)
}

func portOpen(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 300*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func waitFor(ctx context.Context, what string, timeout time.Duration, ok func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if ok() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not come up within %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func isRoot() bool { return os.Geteuid() == 0 }

// asPostgres runs a Postgres server binary, as the postgres user when we are root (initdb and
// postgres refuse to run as root), from / so the working directory never matters: the caller's
// may be one the postgres user cannot enter. Every path passed in args must be absolute.
func asPostgres(ctx context.Context, bin string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if isRoot() {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, bin, args...)
	}
	cmd.Dir = "/"
	return cmd
}

func chownToPostgres(path string) error {
	if !isRoot() {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root needs the postgres user (created by the postgresql package): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
