package devstack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresBinDir holds Debian's Postgres 15 server binaries.
const PostgresBinDir = "/usr/lib/postgresql/15/bin"

// pgDir is where the private Postgres keeps its data: under the run dir, unless we are root and
// the postgres user (which the server runs as) cannot reach it — a checkout under a private home
// or a mode-700 temporary directory — then under /var/tmp/hiringsignal, keyed by the run dir.
func (s *Stack) pgDir() string {
	d := filepath.Join(s.Dir, "postgres")
	if !isRoot() || othersCanReach(s.Dir) {
		return d
	}
	h := sha256.Sum256([]byte(s.Dir))
	return filepath.Join("/var/tmp/hiringsignal", hex.EncodeToString(h[:6]), "postgres")
}

// othersCanReach reports whether every directory from / down to dir lets other users through.
func othersCanReach(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func (s *Stack) pgData() string { return filepath.Join(s.pgDir(), "data") }

func pgBin(name string) (string, error) {
	p := filepath.Join(PostgresBinDir, name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("cannot find Postgres binary %s: install it with `apt-get install -y postgresql` (or run `make deps`)", name)
}

func (s *Stack) postgresAnswers(ctx context.Context, db string) bool {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := pgx.Connect(cctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", s.PostgresPort, db))
	if err != nil {
		return false
	}
	defer c.Close(cctx)
	return c.Ping(cctx) == nil
}

func (s *Stack) postgresUp(ctx context.Context) (bool, error) {
	if s.postgresAnswers(ctx, "postgres") {
		return false, s.ensurePostgresDB(ctx)
	}
	if portOpen(s.PostgresPort) {
		return false, fmt.Errorf("port %d is taken by something that is not our Postgres: pass --pg-port (env HS_PG_PORT) to use another", s.PostgresPort)
	}
	initdb, err := pgBin("initdb")
	if err != nil {
		return false, err
	}
	pgctl, err := pgBin("pg_ctl")
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(s.pgDir(), 0o755); err != nil {
		return false, err
	}
	if err := os.Chmod(filepath.Dir(s.pgDir()), 0o755); err != nil {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(s.pgData(), "PG_VERSION")); err != nil {
		s.Log.Info("initialising private Postgres", "dir", s.pgData())
		if err := chownToPostgres(s.pgDir()); err != nil {
			return false, err
		}
		out, err := asPostgres(ctx, initdb, "-D", s.pgData(), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync").CombinedOutput()
		if err != nil {
			return false, fmt.Errorf("initdb failed: %w: %s", err, strings.TrimSpace(string(out)))
		}
	}
	if err := chownToPostgres(s.pgDir()); err != nil {
		return false, err
	}
	_ = os.Remove(filepath.Join(s.pgData(), "postmaster.pid")) // stale after a killed machine; pg_ctl checks the live one
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=256MB", s.PostgresPort, s.pgDir())
	s.Log.Info("starting private Postgres", "port", s.PostgresPort)
	out, err := asPostgres(ctx, pgctl, "-D", s.pgData(), "-l", filepath.Join(s.pgDir(), "postgres.log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("cannot start Postgres (log: %s): %w: %s", filepath.Join(s.pgDir(), "postgres.log"), err, strings.TrimSpace(string(out)))
	}
	if err := waitFor(ctx, "Postgres on port "+strconv.Itoa(s.PostgresPort), 60*time.Second, func() bool { return s.postgresAnswers(ctx, "postgres") }); err != nil {
		return true, err
	}
	return true, s.ensurePostgresDB(ctx)
}

func (s *Stack) ensurePostgresDB(ctx context.Context) error {
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.PostgresPort))
	if err != nil {
		return fmt.Errorf("cannot connect to private Postgres: %w", err)
	}
	defer c.Close(ctx)
	var exists bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", Database).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := c.Exec(ctx, "CREATE DATABASE "+Database); err != nil {
			return fmt.Errorf("cannot create database %s: %w", Database, err)
		}
	}
	return nil
}

func (s *Stack) postgresDown(ctx context.Context) error {
	pgctl, err := pgBin("pg_ctl")
	if err != nil {
		return err
	}
	out, err := asPostgres(ctx, pgctl, "-D", s.pgData(), "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("cannot stop Postgres: %w: %s", err, strings.TrimSpace(string(out)))
	}
	s.Log.Info("stopped private Postgres")
	return nil
}
