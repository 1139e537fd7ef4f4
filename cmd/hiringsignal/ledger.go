package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/oltp"
)

// runLedger is `hiringsignal ledger head`: the crawl's ledger head as Postgres records it
// (oltp.LedgerHeads) beside ClickHouse's committed head, and with --reset --apply, the recovery
// when ClickHouse lost acknowledged commits: the recorded head is set to ClickHouse's and a
// pending write forgotten, under the crawl's commit lock.
func runLedger(ctx context.Context, log *slog.Logger, args []string) error {
	return ledgerHead(ctx, log, os.Stdout, args)
}

func ledgerHead(ctx context.Context, log *slog.Logger, out io.Writer, args []string) error {
	fs := flagenv.New("ledger", "Show the crawl's ledger head: `ledger head` prints the head Postgres records (and a commit left pending) beside "+
		"ClickHouse's committed head. When ClickHouse lost acknowledged commits (restored from an older backup) every commit is refused; "+
		"`ledger head --reset --apply` then records ClickHouse's head as the ledger's, under the commit lock (a dry run without --apply).")
	f := addStoreFlags(fs)
	reset := fs.Bool("reset", false, "set the recorded head to ClickHouse's committed head and forget a pending write (a dry run unless --apply)")
	apply := fs.Bool("apply", false, "with --reset: write it")
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if action != "head" {
		return errors.New("say `ledger head` (add --reset --apply to record ClickHouse's committed head)")
	}
	if *apply && !*reset {
		return errors.New("--apply writes only with --reset: say `ledger head --reset --apply`")
	}
	s, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	heads := oltp.LedgerHeads{Pool: s.pg, Ledger: *f.clickhouseDB}
	show := func(when string) (uint64, error) {
		st, err := heads.State(ctx)
		if err != nil {
			return 0, err
		}
		wm, _, err := analytics.Watermark(ctx, s.ch)
		if err != nil {
			return 0, fmt.Errorf("cannot read ClickHouse's committed head: %w", err)
		}
		fmt.Fprintf(out, "ledger %s (%s)\n", *f.clickhouseDB, when)
		fmt.Fprintf(out, "  clickhouse committed head  %d\n", wm)
		switch {
		case !st.Known:
			fmt.Fprintln(out, "  postgres head              none recorded (the next commit adopts ClickHouse's)")
		default:
			at := ""
			if st.CommittedAt != "" {
				at = " (window " + st.CommittedAt + ")"
			}
			fmt.Fprintf(out, "  postgres head              %d%s, changed %s\n", st.CommittedTo, at, time.Unix(st.UpdatedAtEpoch, 0).UTC().Format(time.RFC3339))
		}
		if st.Pending {
			fmt.Fprintf(out, "  pending write              events %d..%d of window %s, %d bytes (sent again before the next commit)\n",
				st.PendingFrom, st.PendingTo, st.PendingWindow, st.PendingBytes)
		}
		switch {
		case st.Known && st.CommittedTo > wm:
			fmt.Fprintf(out, "  verdict                    AHEAD: Postgres says event %d is committed, ClickHouse holds up to %d; no commit is taken until "+
				"`ledger head --reset --apply` (the windows after %d are crawled again)\n", st.CommittedTo, wm, wm)
		case st.Known && st.CommittedTo < wm:
			fmt.Fprintln(out, "  verdict                    behind: the next commit adopts ClickHouse's head")
		default:
			fmt.Fprintln(out, "  verdict                    in step")
		}
		return wm, nil
	}
	wm, err := show("now")
	if err != nil || !*reset {
		return err
	}
	if !*apply {
		fmt.Fprintf(out, "dry run: --apply records %d as the head and forgets any pending write\n", wm)
		return nil
	}
	unlock, err := oltp.CrawlCommitLock(s.pg, *f.clickhouseDB)(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	// Under the lock no commit runs: read ClickHouse's head again, it may have moved.
	if wm, _, err = analytics.Watermark(ctx, s.ch); err != nil {
		return fmt.Errorf("cannot read ClickHouse's committed head: %w", err)
	}
	before, err := heads.Reset(ctx, wm)
	if err != nil {
		return err
	}
	log.Warn("the crawl's ledger head was reset to ClickHouse's committed head", "ledger", *f.clickhouseDB,
		"was", before.CommittedTo, "now", wm, "pending_forgotten", before.Pending)
	_, err = show("after the reset")
	return err
}
