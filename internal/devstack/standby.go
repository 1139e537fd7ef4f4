package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresPair is a local Postgres primary and its streaming standby, built from it with
// pg_basebackup -R (the production shape of docs/deployment.md, "Replication"), on loopback
// ports: for the cluster's end-to-end test and for trying a failover, never for data anyone
// keeps. Its data lives under Dir (primary/, standby/), which the postgres user must be able to
// reach when we are root (the server refuses to run as root: the tools run as postgres, as the
// private stack's do). StopPrimary and Promote are the failover's two steps; Down stops both.
type PostgresPair struct {
	Dir         string
	PrimaryPort int
	StandbyPort int
	Log         *slog.Logger
}

func (p *PostgresPair) log() *slog.Logger {
	if p.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Log
}

func (p *PostgresPair) primaryData() string { return filepath.Join(p.Dir, "primary") }
func (p *PostgresPair) standbyData() string { return filepath.Join(p.Dir, "standby") }

// URL is the service's multi-host URL of database Database: the primary first, then the
// standby, asking for the server that takes writes (target_session_attrs=read-write).
func (p *PostgresPair) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/%s?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
		p.PrimaryPort, p.StandbyPort, Database)
}

// serverOpts are the settings both servers start with: loopback, sockets in Dir, WAL for a
// streaming standby, the throwaway durability of test data.
func (p *PostgresPair) serverOpts(port int) string {
	return fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=64MB %s "+
		"-c wal_level=replica -c max_wal_senders=5 -c hot_standby=on -c wal_keep_size=256MB", port, p.Dir, throwawayDurability)
}

// Up initialises the primary (first time), starts it, creates database Database, builds the
// standby from it (first time: pg_basebackup -R -X stream) and starts it, then waits until the
// primary reports the standby streaming.
func (p *PostgresPair) Up(ctx context.Context) error {
	abs, err := filepath.Abs(p.Dir)
	if err != nil {
		return fmt.Errorf("cannot resolve the Postgres pair's directory %q: %w", p.Dir, err)
	}
	p.Dir = abs
	if isRoot() && !othersCanReach(p.Dir) {
		return fmt.Errorf("cannot run Postgres in %s: the postgres user cannot reach it (give a directory under /var/tmp)", p.Dir)
	}
	for _, port := range []int{p.PrimaryPort, p.StandbyPort} {
		if portOpen(port) {
			return fmt.Errorf("cannot start the Postgres pair: port %d is held by something else", port)
		}
	}
	initdb, err := pgBin("initdb")
	if err != nil {
		return err
	}
	basebackup, err := pgBin("pg_basebackup")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", p.Dir, err)
	}
	if err := chownToPostgres(p.Dir); err != nil {
		return err
	}
	if !exists(filepath.Join(p.primaryData(), "PG_VERSION")) {
		p.log().Info("initialising the Postgres primary", "dir", p.primaryData())
		if out, err := asPostgres(ctx, initdb, "-D", p.primaryData(), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync").CombinedOutput(); err != nil {
			return fmt.Errorf("initdb failed: %w: %s", err, strings.TrimSpace(string(out)))
		}
	}
	if err := p.start(ctx, "primary", p.primaryData(), p.PrimaryPort); err != nil {
		return err
	}
	if err := createDatabase(ctx, p.PrimaryPort); err != nil {
		return err
	}
	if !exists(filepath.Join(p.standbyData(), "PG_VERSION")) {
		p.log().Info("building the Postgres standby from the primary", "dir", p.standbyData())
		out, err := asPostgres(ctx, basebackup, "-h", "127.0.0.1", "-p", strconv.Itoa(p.PrimaryPort), "-U", "postgres",
			"-D", p.standbyData(), "-R", "-X", "stream", "-c", "fast").CombinedOutput()
		if err != nil {
			return fmt.Errorf("pg_basebackup failed: %w: %s", err, strings.TrimSpace(string(out)))
		}
	}
	if err := p.start(ctx, "standby", p.standbyData(), p.StandbyPort); err != nil {
		return err
	}
	streaming := func() bool {
		var n int
		err := queryPort(ctx, p.PrimaryPort, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'", &n)
		return err == nil && n > 0
	}
	return waitFor(ctx, "the standby's streaming replication", time.Minute, streaming)
}

// start starts the server of data on port unless it answers there already.
func (p *PostgresPair) start(ctx context.Context, role, data string, port int) error {
	if d, answers, _ := postgresDataDirAt(ctx, port); answers {
		if sameDir(d, data) {
			return nil
		}
		return fmt.Errorf("cannot start the Postgres %s on port %d: another Postgres answers there (data %s)", role, port, d)
	}
	pgctl, err := pgBin("pg_ctl")
	if err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(data, "postmaster.pid"))
	logPath := filepath.Join(p.Dir, role+".log")
	p.log().Info("starting the Postgres "+role, "port", port, "dir", data)
	out, err := asPostgres(ctx, pgctl, "-D", data, "-l", logPath, "-o", p.serverOpts(port), "-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		return fmt.Errorf("cannot start the Postgres %s (log: %s): %w: %s", role, logPath, err, strings.TrimSpace(string(out)))
	}
	ours := func() bool { d, _, _ := postgresDataDirAt(ctx, port); return sameDir(d, data) }
	return waitFor(ctx, "the Postgres "+role+" on port "+strconv.Itoa(port), time.Minute, ours)
}

// StopPrimary stops the primary (pg_ctl stop -m fast): the first step of a failover.
func (p *PostgresPair) StopPrimary(ctx context.Context) error {
	return p.stop(ctx, "primary", p.primaryData())
}

// Promote promotes the standby (pg_ctl promote) and waits until it takes writes.
func (p *PostgresPair) Promote(ctx context.Context) error {
	pgctl, err := pgBin("pg_ctl")
	if err != nil {
		return err
	}
	out, err := asPostgres(ctx, pgctl, "-D", p.standbyData(), "-w", "-t", "60", "promote").CombinedOutput()
	if err != nil {
		return fmt.Errorf("cannot promote the standby: %w: %s", err, strings.TrimSpace(string(out)))
	}
	primary := func() bool {
		var inRecovery bool
		err := queryPort(ctx, p.StandbyPort, "SELECT pg_is_in_recovery()", &inRecovery)
		return err == nil && !inRecovery
	}
	return waitFor(ctx, "the promoted standby", time.Minute, primary)
}

// Down stops both servers; one not running is not an error.
func (p *PostgresPair) Down(ctx context.Context) error {
	return errors.Join(p.stop(ctx, "standby", p.standbyData()), p.stop(ctx, "primary", p.primaryData()))
}

func (p *PostgresPair) stop(ctx context.Context, role, data string) error {
	if !exists(data) {
		return nil
	}
	stopped, err := stopPostgresData(ctx, data)
	if err != nil {
		return fmt.Errorf("the Postgres %s: %w", role, err)
	}
	if !stopped {
		return nil // not running
	}
	p.log().Info("stopped the Postgres "+role, "dir", data)
	return nil
}

// createDatabase creates database Database on the server on port unless it exists.
func createDatabase(ctx context.Context, port int) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(cctx, adminURL(port, "postgres"))
	if err != nil {
		return fmt.Errorf("cannot connect to the Postgres on port %d: %w", port, err)
	}
	defer c.Close(cctx)
	var exists bool
	if err := c.QueryRow(cctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", Database).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := c.Exec(cctx, "CREATE DATABASE "+Database); err != nil {
			return fmt.Errorf("cannot create database %s: %w", Database, err)
		}
	}
	return nil
}

// queryPort scans one row of sql on the server on port into dest.
func queryPort(ctx context.Context, port int, sql string, dest ...any) error {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := pgx.Connect(cctx, adminURL(port, "postgres"))
	if err != nil {
		return err
	}
	defer c.Close(cctx)
	return c.QueryRow(cctx, sql).Scan(dest...)
}
