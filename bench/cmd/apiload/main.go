// Command apiload is a bounded load run on loopback: the real API server (Postgres-backed keys,
// limits and metering) side by side with a trivial fasthttp handler, in the same process and run,
// at the same connection count, in alternating rounds. Targets (--targets): authenticated,
// rate-limited GET /v1/whoami; with --search-clickhouse-database, the metered company read
// GET /v1/companies/{id}/is-hiring and the metered GET /v1/reqs/search mix on a crawled world;
// search-compressed (opt-in), the reqs/search mix with no Accept-Encoding and with gzip, br and
// zstd in alternating rounds, bytes per answer beside throughput, after timing the encoders'
// levels on one page (see compress.go); spendcap, once before the rounds: --conns concurrent reqs/search pages against a Starter
// account's hard cap (--spend-cap-units), reporting the overshoot (see spendcap.go).
// It prints each round as it ends and Markdown tables for bench/README.md.
//
// The key is a growth-tier key whose account carries a contract override of calls_per_minute
// (accounts.calls_per_minute) far above what the run can reach, so every call goes through the
// real limiter (leases from Postgres, local spending) without being refused: the run measures
// the chain, not 429s.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/bench/benchapi"
	"github.com/planehq/hiringsignal/bench/loadgen"
	"github.com/planehq/hiringsignal/internal/flagenv"
)

type result = loadgen.Result

// load runs conns workers against one URL for dur (at most maxReq requests in all).
func load(name, url string, headers map[string]string, conns int, dur time.Duration, maxReq int64) result {
	return loadMix(name, url, []string{""}, headers, conns, dur, maxReq, nil)
}

// loadMix runs conns workers for dur (at most maxReq requests in all); worker w sends base+paths[i]
// for i = w, w+1, ... round the list. onOK (may be nil) sees the body of every 200 answer.
func loadMix(name, base string, paths []string, headers map[string]string, conns int, dur time.Duration, maxReq int64, onOK func(body []byte)) result {
	ok := func(body []byte) bool {
		if onOK != nil {
			onOK(body)
		}
		return true
	}
	return loadgen.Run(loadgen.Spec{Name: name, Base: base, Paths: paths, Headers: headers, OK: ok, Conns: conns, Dur: dur, MaxReq: maxReq})
}

// options are the flags of one load run.
type options struct {
	pgURL        string
	conns        int
	dur          time.Duration
	maxReq       int64
	rounds       int
	searchCH     [2]string // addr, database
	cpuProfile   string
	memProfile   string
	meteringSync time.Duration
	capUnits     int64           // spendcap target: the hard cap
	capPage      int64           // spendcap target: rows per page
	enabled      map[string]bool // --targets
}

func main() {
	var o options
	flag.StringVar(&o.pgURL, "postgres-url", flagenv.Env("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"), "Postgres server (a throwaway schema is created and dropped)")
	flag.IntVar(&o.conns, "conns", 64, "concurrent connections")
	flag.DurationVar(&o.dur, "duration", 10*time.Second, "duration of each measured run")
	flag.Int64Var(&o.maxReq, "max-requests", 5_000_000, "upper bound on requests per run")
	flag.IntVar(&o.rounds, "rounds", 2, "alternating rounds of trivial and API runs")
	flag.StringVar(&o.searchCH[0], "search-clickhouse-addr", flagenv.Env("HS_CLICKHOUSE_ADDR", "127.0.0.1:59000"), "ClickHouse of the crawled world for the reqs/search target")
	flag.StringVar(&o.searchCH[1], "search-clickhouse-database", "", "ClickHouse database of a crawled world: adds is-hiring and reqs/search to the run (empty: whoami only)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured runs (generator and servers, after set-up) to this file")
	flag.DurationVar(&o.meteringSync, "metering-fsync-interval", 20*time.Millisecond, "as serve's flag: 0 fsyncs the metering log before every metered answer")
	flag.StringVar(&o.memProfile, "memprofile", "", "write a heap profile after set-up (read model and index built) to this file, and the run's allocations to <file>.after")
	flag.Int64Var(&o.capUnits, "spend-cap-units", 25_000, "spendcap target: the Starter account's hard cap in units")
	flag.Int64Var(&o.capPage, "spend-cap-page", 100, "spendcap target: rows per reqs/search page (limit)")
	targets := flag.String("targets", "whoami,is-hiring,search", "API targets loaded beside the trivial handler: whoami, is-hiring, search, search-compressed (the last three need --search-clickhouse-database; spendcap runs once, before the rounds)")
	flag.Parse()
	o.enabled = map[string]bool{}
	for _, t := range strings.Split(*targets, ",") {
		o.enabled[strings.TrimSpace(t)] = true
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(o options) error {
	pgURL, conns, dur, maxReq, rounds, searchCH, enabled := o.pgURL, o.conns, o.dur, o.maxReq, o.rounds, o.searchCH, o.enabled
	ctx := context.Background()
	trivialBase, stopTrivial, err := benchapi.Trivial()
	if err != nil {
		return err
	}
	defer stopTrivial()
	trivialURL := trivialBase + "/"

	cfg := api.Config{MeteringSyncEvery: o.meteringSync}
	if enabled["spendcap"] {
		cfg.KeyMaxInFlight = max(256, conns) // every connection's call in flight at once, none key_throttled
	}
	var st *searchTarget
	var ct *compressTarget
	inproc, stop, err := benchapi.Start(ctx, pgURL, "bench_apiload_", "growth", cfg, func(srv *api.Server, pool *pgxpool.Pool) (err error) {
		account.Register(srv, account.Deps{Pool: pool})
		if searchCH[1] != "" {
			if st, err = setupSearch(ctx, pool, srv, searchCH[0], searchCH[1]); err != nil {
				return err
			}
			if enabled["search-compressed"] {
				if ct, err = setupCompressed(ctx, pool, st); err != nil {
					return err
				}
			}
		} else if enabled["spendcap"] {
			srv.Register(spendCapStub())
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer stop()
	srv, pool := inproc.Srv, inproc.Pool
	apiURL := "http://" + srv.Addr() + "/v1/whoami"
	hdr := map[string]string{"X-API-Key": inproc.Key}
	if o.memProfile != "" {
		runtime.GC()
		if f, err := os.Create(o.memProfile); err == nil {
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	if enabled["spendcap"] {
		r, err := runSpendCap(ctx, pool, srv, "http://"+srv.Addr(), conns, o.capUnits, o.capPage, max(dur, time.Minute))
		if err != nil {
			return err
		}
		r.print()
		if rounds == 0 {
			return nil
		}
	}
	// Warm up both (connections, caches, first lease).
	load("warmup", trivialURL, nil, conns, time.Second, maxReq)
	load("warmup", apiURL, hdr, conns, time.Second, maxReq)
	if st != nil {
		st.load("warmup", "http://"+srv.Addr(), conns, time.Second, maxReq)
	}
	if ct != nil {
		if err := ct.levels("http://" + srv.Addr()); err != nil {
			return err
		}
		for _, e := range encodings {
			ct.load(e, "http://"+srv.Addr(), conns, time.Second, maxReq, false)
		}
	}

	var all []result
	progress := func(round int) {
		r := all[len(all)-1]
		fmt.Fprintf(os.Stderr, "round %d/%d %-45s %8.0f req/s  p50 %-9s p99 %s\n", round+1, rounds, r.Name, r.RPS(),
			r.Pct(0.50).Round(time.Microsecond), r.Pct(0.99).Round(time.Microsecond))
	}
	for i := 0; i < rounds; i++ {
		all = append(all, load("trivial fasthttp handler", trivialURL, nil, conns, dur, maxReq))
		progress(i)
		if enabled["whoami"] {
			all = append(all, load("GET /v1/whoami (auth + rate limit)", apiURL, hdr, conns, dur, maxReq))
			progress(i)
		}
		if st != nil && enabled["is-hiring"] {
			all = append(all, st.hiring().load("GET /v1/companies/{id}/is-hiring (metered)", "http://"+srv.Addr(), conns, dur, maxReq))
			progress(i)
		}
		if st != nil && enabled["search"] {
			all = append(all, st.load("GET /v1/reqs/search (metered, 14-query mix)", "http://"+srv.Addr(), conns, dur, maxReq))
			progress(i)
		}
		for _, e := range encodings {
			if ct != nil {
				all = append(all, ct.load(e, "http://"+srv.Addr(), conns, dur, maxReq, true))
				progress(i)
			}
		}
	}
	if o.memProfile != "" { // allocations of the whole run (alloc_space), after the measured runs
		if f, err := os.Create(o.memProfile + ".after"); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	merge := func(name string) result { return loadgen.Merge(all, name) }
	t, a := merge("trivial fasthttp handler"), merge("GET /v1/whoami (auth + rate limit)")
	fmt.Printf("%d connections, %d rounds of %s each, loopback, GOMAXPROCS=%d\n\n", conns, rounds, dur, runtime.GOMAXPROCS(0))
	fmt.Println("| target | requests | errors | req/s | p50 | p99 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, r := range []result{t, a} {
		fmt.Printf("| %s | %d | %d | %.0f | %s | %s |\n", r.Name, r.Requests, r.Errors, r.RPS(), r.Pct(0.50).Round(time.Microsecond), r.Pct(0.99).Round(time.Microsecond))
	}
	fmt.Printf("\nthroughput ratio (whoami / trivial): %.2f\n", a.RPS()/t.RPS())
	var used int64
	_ = pool.QueryRow(ctx, "SELECT COALESCE(sum(used),0) FROM rate_windows WHERE scope LIKE 'rk:%'").Scan(&used)
	fmt.Printf("calls leased from the shared Postgres rate counter: %d (leases of up to 1000 calls)\n", used)
	if ct != nil {
		merged := map[string]result{}
		for _, e := range encodings {
			merged[e] = merge(encName(e))
		}
		ct.report(merged)
	}
	if st != nil {
		return st.report(ctx, pool, srv, merge("GET /v1/reqs/search (metered, 14-query mix)"), merge("GET /v1/companies/{id}/is-hiring (metered)"), t)
	}
	return nil
}
