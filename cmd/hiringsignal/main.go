// Command hiringsignal is the service's one binary: serve, crawl, backfill, simulate, migrate,
// dev (what `make run` calls), stores (private Postgres/ClickHouse for dev and tests), cluster (a
// local replicated ClickHouse for tests), accounts, sources (the source registry the crawl reads),
// listen (a webhook receiver for trying push), metering (replays the metering log of an
// instance that is gone) and facts (re-derives posting facts from stored descriptions).
//
// main stays thin: parse flags, start the parts in order, wait for a signal, stop them in reverse.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

type command struct {
	summary string
	run     func(ctx context.Context, log *slog.Logger, args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"serve":    {"run the HTTP API", runServe},
		"migrate":  {"apply the Postgres and ClickHouse migrations and exit", runMigrate},
		"accounts": {"manage accounts: `accounts create --plan free|trial|starter|growth --email x@example.com`", runAccounts},
		"stores":   {"start/stop the private Postgres and ClickHouse under ./.run: `stores up|down|status`", runStores},
		"cluster":  {"start/stop a local replicated ClickHouse (ZooKeeper, two replicas) for tests: `cluster up|down|addrs`", runCluster},
		"dev":      {"bring the whole stack up with demo data (what `make run` calls)", runDev},
		"simulate": {"serve the simulated ATS/board world on loopback", runSimulate},
		"crawl":    {"crawl every region each interval (or --once)", runCrawl},
		"backfill": {"replay crawl cycles over a date range on the simulator's virtual clock", runBackfill},
		"sources":  {"the source registry the crawl reads: `sources import|add|list|show|pause|resume|retire`", runSources},
		"listen":   {"receive webhook deliveries on loopback, verify both signatures, print each event (try push)", runListen},
		"ledger":   {"the crawl's ledger head beside ClickHouse's, and its reset after a restore: `ledger head [--reset --apply]`", runLedger},
		"metering": {"replay the metering log of an API instance that is gone: `metering replay --metering-dir DIR`", runMetering},
		"facts":    {"re-derive posting facts from stored descriptions: `facts backfill [--apply]` (a dry run by default)", runFacts},
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "Usage: hiringsignal <command> [flags]\n\nCommands:")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-9s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun `hiringsignal <command> --help` for its flags and HS_* variables.")
}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		os.Exit(2)
	}
	cmd, ok := commands()[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmd.run(ctx, log, os.Args[2:]); err != nil {
		if errors.Is(err, errHelp) {
			os.Exit(0)
		}
		log.Error("hiringsignal "+os.Args[1]+" failed", "err", err)
		os.Exit(1)
	}
}

func logLevel() slog.Level {
	switch os.Getenv("HS_LOG_LEVEL") {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}
