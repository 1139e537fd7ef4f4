package devstack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PostgresBinDir holds Debian's Postgres 15 server binaries.
const PostgresBinDir = "/usr/lib/postgresql/15/bin"

const pgFlag = "--pg-port (env HS_PG_PORT)"

// PostgresDir is where the private Postgres keeps its data, log and socket: under the run dir,
// unless we are root and the postgres user (which the server runs as) cannot reach it — a
// checkout under a private home or a mode-700 temporary directory — then under
// /var/tmp/hiringsignal, keyed by the run dir. Once one of the two holds a data directory it is
// kept, so up and down agree whoever runs them.
func (s *Stack) PostgresDir() string {
	_ = s.absolute()
	in := filepath.Join(s.Dir, "postgres")
	h := sha256.Sum256([]byte(s.Dir))
	out := filepath.Join("/var/tmp/hiringsignal", hex.EncodeToString(h[:6]), "postgres")
	switch {
	case exists(filepath.Join(in, "data")):
		return in
	case exists(filepath.Join(out, "data")):
		return out
	case !isRoot() || othersCanReach(s.Dir):
		return in
	}
	return out
}

// runDirNote, beside a Postgres directory kept outside its run dir, names that run dir.
const runDirNote = "run-dir"

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// othersCanReach reports whether every directory from / down to dir lets other users through
// (one not created yet will: Up creates it 0755).
func othersCanReach(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist): // created 0755 by Up
		case err != nil || fi.Mode().Perm()&0o001 == 0:
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func (s *Stack) pgData() string { return filepath.Join(s.PostgresDir(), "data") }

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

func adminURL(port int, db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", port, db)
}

// postgresDataDirAt asks the Postgres on port for its data directory. answers is false when
// nothing there speaks the Postgres protocol; dir is empty when a Postgres answers but will not
// say (it refused us).
func postgresDataDirAt(ctx context.Context, port int) (dir string, answers bool, err error) {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := pgx.Connect(cctx, adminURL(port, "postgres"))
	if err != nil {
		var pgErr *pgconn.PgError
		return "", errors.As(err, &pgErr), err
	}
	defer c.Close(cctx)
	if err := c.QueryRow(cctx, "SHOW data_directory").Scan(&dir); err != nil {
		return "", true, err
	}
	return dir, true, nil
}

// postmaster reads our data directory's postmaster.pid: the server's pid and port.
func (s *Stack) postmaster() (pid, port int, ok bool) {
	b, err := os.ReadFile(filepath.Join(s.pgData(), "postmaster.pid"))
	if err != nil {
		return 0, 0, false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(lines[0]))
	port, err2 := strconv.Atoi(strings.TrimSpace(lines[3]))
	return pid, port, err1 == nil && err2 == nil
}

// probePostgres says what answers on the Postgres port and whether it is ours: a server is ours
// only when the data directory it reports is this run directory's.
func (s *Stack) probePostgres(ctx context.Context) StoreStatus {
	st := StoreStatus{Store: "postgres", Port: s.PostgresPort, Flag: pgFlag, DataDir: s.pgData()}
	dir, answers, err := postgresDataDirAt(ctx, s.PostgresPort)
	switch {
	case answers && sameDir(dir, st.DataDir):
		st.State = Running
		st.PID, _, _ = s.postmaster()
		return st
	case answers && dir != "":
		st.State, st.Owner = Foreign, dir
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(dir)), runDirNote)); err == nil {
			st.OwnerRunDir = strings.TrimSpace(string(b))
		}
		return st
	case answers:
		st.State, st.Owner = Foreign, fmt.Sprintf("unknown: it would not say (%v)", err)
		return st
	case portOpen(s.PostgresPort):
		st.State = Stranger
		return st
	}
	if pid, port, ok := s.postmaster(); ok && port != s.PostgresPort {
		if dir, _, _ := postgresDataDirAt(ctx, port); sameDir(dir, st.DataDir) {
			st.State, st.PID, st.Owner = Elsewhere, pid, fmt.Sprintf("on port %d, not %d", port, s.PostgresPort)
		}
	}
	return st
}

// postgresUp initialises (first time) and starts our Postgres; the caller probed the port free.
func (s *Stack) postgresUp(ctx context.Context) (bool, error) {
	initdb, err := pgBin("initdb")
	if err != nil {
		return false, err
	}
	pgctl, err := pgBin("pg_ctl")
	if err != nil {
		return false, err
	}
	dir, data := s.PostgresDir(), s.pgData()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("cannot create %s: %w", dir, err)
	}
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		return false, err
	}
	if !strings.HasPrefix(dir, s.Dir+string(filepath.Separator)) {
		// Data outside the run dir: say whose it is, for another checkout's status and refusals.
		if err := os.WriteFile(filepath.Join(filepath.Dir(dir), runDirNote), []byte(s.Dir+"\n"), 0o644); err != nil {
			return false, err
		}
	}
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil {
		s.Log.Info("initialising private Postgres", "dir", data)
		if err := chownToPostgres(dir); err != nil {
			return false, err
		}
		out, err := asPostgres(ctx, initdb, "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync").CombinedOutput()
		if err != nil {
			return false, fmt.Errorf("initdb failed: %w: %s", err, strings.TrimSpace(string(out)))
		}
	}
	if err := chownToPostgres(dir); err != nil {
		return false, err
	}
	// The probe found ours running nowhere, so a postmaster.pid left is stale (a killed machine);
	// removing it keeps a reused pid from blocking the start.
	_ = os.Remove(filepath.Join(data, "postmaster.pid"))
	// The private instance is a throwaway store for `make run` and `make test`: it writes without
	// fsync (a killed process loses nothing it acknowledged, since every commit's WAL still reaches
	// the OS before the commit returns; only a crash of the machine can lose the run directory).
	// The tests' many small commits and per-test migrations otherwise wait on the disk.
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=256MB %s", s.PostgresPort, dir, throwawayDurability)
	s.Log.Info("starting private Postgres", "port", s.PostgresPort, "dir", data)
	logPath := filepath.Join(dir, "postgres.log")
	out, err := asPostgres(ctx, pgctl, "-D", data, "-l", logPath, "-o", opts, "-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("cannot start Postgres (log: %s): %w: %s", logPath, err, strings.TrimSpace(string(out)))
	}
	ours := func() bool { d, _, _ := postgresDataDirAt(ctx, s.PostgresPort); return sameDir(d, data) }
	if err := waitFor(ctx, "Postgres on port "+strconv.Itoa(s.PostgresPort), 60*time.Second, ours); err != nil {
		return true, err
	}
	return true, createDatabase(ctx, s.PostgresPort)
}

// postgresDown stops our Postgres (pg_ctl on our data directory: nobody else's server can be hit)
// wherever it listens; not running is not an error.
func (s *Stack) postgresDown(ctx context.Context) error {
	data := s.pgData()
	if !exists(data) {
		s.Log.Info("private Postgres was never set up here; nothing to stop", "dir", data)
		return nil
	}
	stopped, err := stopPostgresData(ctx, data)
	if err != nil {
		return fmt.Errorf("%w (run `stores down` as root or as the user that ran `stores up`)", err)
	}
	if !stopped {
		s.Log.Info("private Postgres was not running", "dir", data)
		return nil
	}
	s.Log.Info("stopped private Postgres", "dir", data)
	return nil
}

// stopPostgresData stops the Postgres of data directory data (pg_ctl, fast shutdown); stopped is
// false when it was not running.
func stopPostgresData(ctx context.Context, data string) (stopped bool, err error) {
	pgctl, err := pgBin("pg_ctl")
	if err != nil {
		return false, err
	}
	out, err := asPostgres(ctx, pgctl, "-D", data, "status").CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot tell whether Postgres (data %s) runs: %w: %s", data, err, strings.TrimSpace(string(out)))
	}
	if out, err := asPostgres(ctx, pgctl, "-D", data, "-m", "fast", "-w", "stop").CombinedOutput(); err != nil {
		return false, fmt.Errorf("cannot stop Postgres (data %s): %w: %s", data, err, strings.TrimSpace(string(out)))
	}
	return true, nil
}

// throwawayDurability are the settings of a private Postgres whose data may be lost with the
// machine but not with a process: no fsync, no full-page images; synchronous_commit stays on, so
// a commit's WAL is written to the OS before it is acknowledged.
const throwawayDurability = "-c fsync=off -c full_page_writes=off"
