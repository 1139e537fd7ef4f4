// Package devstack starts and stops the private Postgres and ClickHouse instances that `make run`
// and `make test` use, with their data under a directory of the checkout (./.run by default).
//
// It owns process management of those two servers only (init, start, health wait, stop) and the
// URLs that reach them. It must not apply migrations or hold any service logic.
package devstack

import (
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
	"time"
)

// Stack describes the private instances.
type Stack struct {
	Dir            string // base directory, e.g. ./.run
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
)

// PostgresURL is the URL of the private Postgres database.
func (s *Stack) PostgresURL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.PostgresPort, Database)
}

// ClickHouseAddr is the native-protocol address of the private ClickHouse.
func (s *Stack) ClickHouseAddr() string { return fmt.Sprintf("127.0.0.1:%d", s.ClickHousePort) }

// Started says which servers Up started (as opposed to found running).
type Started struct{ Postgres, ClickHouse bool }

// Up starts whichever of the two servers is not already running and waits until both answer.
// It is safe to call when they are up.
func (s *Stack) Up(ctx context.Context) (Started, error) {
	var st Started
	abs, err := filepath.Abs(s.Dir)
	if err != nil {
		return st, err
	}
	s.Dir = abs
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return st, fmt.Errorf("cannot create %s: %w", s.Dir, err)
	}
	st.Postgres, err = s.postgresUp(ctx)
	if err != nil {
		return st, err
	}
	st.ClickHouse, err = s.clickhouseUp(ctx)
	if err != nil {
		return st, err
	}
	return st, nil
}

// Down stops the servers named in which.
func (s *Stack) Down(ctx context.Context, which Started) error {
	var errs []error
	if which.ClickHouse {
		errs = append(errs, s.clickhouseDown(ctx))
	}
	if which.Postgres {
		errs = append(errs, s.postgresDown(ctx))
	}
	return errors.Join(errs...)
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

// asPostgres runs a Postgres server binary, as the postgres user when we are root
// (initdb and postgres refuse to run as root).
func asPostgres(ctx context.Context, bin string, args ...string) *exec.Cmd {
	if isRoot() {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	return exec.CommandContext(ctx, bin, args...)
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
