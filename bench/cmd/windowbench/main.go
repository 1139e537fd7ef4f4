// Command windowbench measures one crawl window on the source registry, the production path of
// `crawl --directory registry` (pipeline/sources): a host-mode simulated world served over TLS on
// loopback with an injected latency per request, its registry CSV imported into a throwaway
// Postgres schema, every source of one window read by one worker and then by two workers at
// once (claims through leases in Postgres, reads stored zstd-compressed), and the window
// committed by a committer into a throwaway ClickHouse database, with its time, memory and the
// store reads it did. Beside them, in the same run: the crawler's read of the same ATS pages
// beside plain net/http GETs of the same URLs, and the window's reads loaded back without a
// commit. The world runs in a child process (this binary with --serve-world) so that the CPU and
// RSS measured are the crawl's own. See bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/bench/profiling"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

type options struct {
	companies      int
	seed           int64
	tick           int
	latency        time.Duration
	pgURL, chAddr  string
	chDB           string
	fetchWorkers   int
	claimBatch     int
	sourceDeadline time.Duration
	pageBudget     time.Duration
	sourceMax      time.Duration
	chainDepth     int
	maxPages       int
	storeBatch     int
	chainPart      int
	windowPages    int
	tenantsOnly    bool
	phases         map[string]bool
	prof           profiling.Profiles
}

func main() {
	var o options
	serve := flag.Bool("serve-world", false, "serve the world and nothing else (the child process this command starts)")
	worldDir := flag.String("world-dir", "", "with --serve-world: where to write the registry CSV and the CA's PEM")
	flag.IntVar(&o.companies, "companies", 20000, "companies in the world (the README's current figures: 10,000)")
	flag.Int64Var(&o.seed, "seed", 42, "the world's seed")
	flag.IntVar(&o.tick, "tick", 2000, "the window read and committed (the world is pinned at it)")
	flag.DurationVar(&o.latency, "latency", 50*time.Millisecond,
		"time the world waits before answering each request (a vendor API's answer time as seen from the crawl's region; see bench/README.md)")
	flag.StringVar(&o.pgURL, "postgres-url", flagenv.Env("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"),
		"Postgres server (a throwaway schema is created and dropped; env HS_POSTGRES_URL)")
	flag.StringVar(&o.chAddr, "clickhouse-addr", flagenv.Env("HS_CLICKHOUSE_ADDR", "127.0.0.1:59000"), "ClickHouse native address (env HS_CLICKHOUSE_ADDR)")
	flag.StringVar(&o.chDB, "clickhouse-database", "hs_bench_window", "ClickHouse database of the ledger (dropped and created at the start, dropped at the end)")
	flag.IntVar(&o.fetchWorkers, "fetch-workers", 32, "each crawler's sources fetched at once and requests per host, as `crawl --fetch-workers --fetch-per-host`; also the plain GETs' concurrency")
	flag.IntVar(&o.claimBatch, "claim-batch", 64, "most sources a worker holds claimed at once, as `crawl --claim-batch`")
	flag.DurationVar(&o.sourceDeadline, "fetch-source-deadline", 2*time.Minute, "deadline of one source's read before its pages add to it, as `crawl --fetch-source-deadline`")
	flag.DurationVar(&o.pageBudget, "fetch-page-budget", pipeline.DefaultPageBudget, "time each page read adds to its source's deadline, as `crawl --fetch-page-budget` (0: none)")
	flag.DurationVar(&o.sourceMax, "fetch-source-deadline-max", pipeline.DefaultSourceDeadlineMax, "bound of a source's deadline, as `crawl --fetch-source-deadline-max`")
	flag.IntVar(&o.chainDepth, "fetch-chain-depth", pipeline.DefaultChainDepth, "pages of a numbered chain read at once, as `crawl --fetch-chain-depth` (1: page after page, as before 2026-11-27)")
	flag.IntVar(&o.maxPages, "fetch-max-pages", pipeline.DefaultMaxPages, "longest chain of pages read of one source, as `crawl --fetch-max-pages`")
	flag.IntVar(&o.storeBatch, "read-store-batch", sources.DefaultStoreBatch, "most reads a worker stores in one transaction, as `crawl --read-store-batch` (1: each on its own, as before 2026-11-27)")
	flag.IntVar(&o.chainPart, "chain-part-pages", sources.DefaultChainPart, "pages of a chain a worker reads before it records where the chain stands, as `crawl --chain-part-pages`")
	flag.IntVar(&o.windowPages, "chain-window-pages", 0, "most pages of one chain read in the window, as `crawl --chain-window-pages`: a chain with more is carried to the next window "+
		"(stored partial), so the window read no longer waits for it; 0: chains are read whole (the window ends in 3 hours)")
	flag.BoolVar(&o.tenantsOnly, "tenants-only", false, "import the ATS tenants only: no board or aggregator feed, whose pages are read one after another")
	memLimit := flag.Int("memory-limit-mib", 1400, "soft memory limit of this process, as `crawl --memory-limit-mib`; 0 for none")
	flag.StringVar(&o.prof.CPU, "cpuprofile", "", "write a CPU profile of the commit to this file")
	flag.StringVar(&o.prof.Mem, "memprofile", "", "write allocation profiles to this file (after the commit) and to FILE.base (before it): go tool pprof -diff_base FILE.base FILE")
	phases := flag.String("phases", "fetch,one,two,again,commit",
		"what to run, in this order: fetch (the crawler's read beside plain GETs), one (one worker, the first window after the import: no source's pages known), "+
			"two (two workers), again (one worker again, each source's pages known from the reads before), commit (needs one, two or again)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *serve {
		if err := serveWorld(o.companies, o.seed, o.tick, o.latency, *worldDir); err != nil {
			log.Error("the world failed", "err", err)
			os.Exit(1)
		}
		return
	}
	o.phases = map[string]bool{}
	for _, p := range strings.Split(*phases, ",") {
		switch p = strings.TrimSpace(p); p {
		case "fetch", "one", "two", "again", "commit":
			o.phases[p] = true
		default:
			fmt.Fprintf(os.Stderr, "--phases: %q is not one of fetch, one, two, again, commit\n", p)
			os.Exit(2)
		}
	}
	if o.phases["commit"] && !o.phases["one"] && !o.phases["two"] && !o.phases["again"] {
		fmt.Fprintln(os.Stderr, "--phases: commit needs the reads of one, two or again")
		os.Exit(2)
	}
	if *memLimit > 0 {
		debug.SetMemoryLimit(int64(*memLimit) << 20)
	}
	if err := run(context.Background(), log, o); err != nil {
		log.Error("windowbench failed", "err", err)
		os.Exit(1)
	}
}
