package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/planehq/hiringsignal/api/metering"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/oltp"
)

// runMetering is `hiringsignal metering replay`: it moves what the metering log directory of an
// instance that is gone holds into the Postgres usage ledger, then exits. An instance started on
// the directory does the same; this is for a directory whose instance will not come back (its
// volume mounted elsewhere). Each segment goes in once whoever replays it, so running it twice,
// or beside a restart, bills nothing twice; a directory still in use is refused (its lock).
func runMetering(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("metering", "Replay the metering log of an API instance that is gone: `metering replay --metering-dir DIR` moves every call it holds "+
		"that Postgres does not into the usage ledger, then exits. Each call is billed once however often it runs; a directory a running instance holds is refused.")
	f := addStoreFlags(fs)
	dir := fs.String("metering-dir", "", "the metering log directory of the instance that is gone (its --metering-dir)")
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if action != "replay" {
		return errors.New("say `metering replay --metering-dir DIR`")
	}
	if *dir == "" {
		return errors.New("cannot replay a metering log without its directory: pass --metering-dir (env HS_METERING_DIR)")
	}
	if _, err := os.Stat(*dir); err != nil {
		return fmt.Errorf("cannot replay the metering log in %s: %w", *dir, err)
	}
	pool, err := oltp.Open(ctx, *f.postgresURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	before := segments(*dir)
	l := metering.New(metering.Config{Dir: *dir, Pool: pool, Log: log})
	if err := l.Start(ctx); err != nil {
		return err
	}
	if err := l.Stop(ctx); err != nil {
		return fmt.Errorf("cannot move every metering segment of %s to Postgres (%d left; run it again once Postgres answers): %w", *dir, l.Backlog(), err)
	}
	log.Info("metering log replayed", "dir", *dir, "segments", before, "left", l.Backlog())
	return nil
}

// segments counts the metering segments in dir, sealed or left open by a crash.
func segments(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	return len(m)
}
