// Command bigworld measures the read side on a generated world of millions of reqs: it writes the
// world into its own ClickHouse database with package bench/bigworld (--clickhouse-database,
// default hs_bigworld_<reqs>; reused when complete, resumed when not), then builds the read
// snapshot from it (read/snapshot.Build: time and phases, heap after the build), builds it again
// while the first is held (what a rebuild costs an API instance: its peak heap), and loads the
// real API on that snapshot (reqs/search, jobs/search, reqs/qualified, a company read and the
// events feed's 1,000-event page, Enterprise key, every call metered) beside a trivial fasthttp
// handler in the same run. It prints Markdown for bench/README.md. It is never run by
// `make test`; --drop drops the database at the end. --measure-only writes nothing and measures
// a database as it is (a crawled world's, to compare). The rebuild beside a held snapshot is
// skipped when the machine lacks the room for it. With the build it prints each kind of
// ClickHouse query's peak memory and time (system.query_log: the build's queries set
// log_queries=1), and --heap-profile writes the heap after the first build, the snapshot's memory
// by the code that allocated it (go tool pprof -top). --memory-limit-mib, --clickhouse-read-timeout
// and --clickhouse-settings change how the build runs (serve sets none of them: bench/README.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math"
	neturl "net/url"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/bench/benchapi"
	"github.com/planehq/hiringsignal/bench/bigworld"
	"github.com/planehq/hiringsignal/bench/loadgen"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/read/snapshot"
)

type options struct {
	cfg                 bigworld.Config
	chAddr, chDB, pgURL string
	generateOnly, drop  bool
	measureOnly         bool
	memLimitMiB         int64
	chSettings          string
	readTimeout         time.Duration
	conns, rounds       int
	dur                 time.Duration
	targets             string
	heapProfile         string
	cpuProfile          string
	perQuery            int
	chQueryLog          bool
}

func main() {
	var o options
	flag.IntVar(&o.cfg.Reqs, "reqs", 1_000_000, "distinct reqs of the world, live and closed")
	flag.Int64Var(&o.cfg.Seed, "seed", 1, "seed of the world")
	flag.IntVar(&o.cfg.Days, "days", 28, "days of history (8 cycles a day in each of 7 regions)")
	flag.IntVar(&o.cfg.Batch, "batch", 200_000, "events per INSERT")
	flag.StringVar(&o.chAddr, "clickhouse-addr", flagenv.Env("HS_CLICKHOUSE_ADDR", "127.0.0.1:59000"), "ClickHouse native address (env HS_CLICKHOUSE_ADDR)")
	flag.StringVar(&o.chDB, "clickhouse-database", "", "database of the world (default hs_bigworld_<reqs>; created, filled or resumed, never a test database)")
	flag.StringVar(&o.pgURL, "postgres-url", flagenv.Env("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"), "Postgres server (a throwaway schema is created and dropped; env HS_POSTGRES_URL)")
	flag.BoolVar(&o.generateOnly, "generate-only", false, "write the world and stop")
	flag.BoolVar(&o.drop, "drop", false, "drop the world's database at the end")
	flag.Int64Var(&o.memLimitMiB, "memory-limit-mib", 0, "soft memory limit of the process (debug.SetMemoryLimit; 0: none, as serve runs)")
	flag.StringVar(&o.chSettings, "clickhouse-settings", "", "settings of the snapshot builds' queries, name=value,... (e.g. max_bytes_before_external_sort=2000000000; empty: the server's)")
	flag.DurationVar(&o.readTimeout, "clickhouse-read-timeout", 0, "read timeout of the builds' connection (0: analytics.Open's, 5 minutes, as serve runs); the 10-million-req world's req read sends its first row later than that here")
	flag.BoolVar(&o.measureOnly, "measure-only", false, "write nothing: measure the database as it is (a crawled world's, say, to compare)")
	flag.IntVar(&o.conns, "conns", 16, "concurrent connections of the load generator")
	flag.IntVar(&o.rounds, "rounds", 2, "rounds of every target, each after a round of the trivial handler")
	flag.DurationVar(&o.dur, "duration", 5*time.Second, "duration of each measured run")
	flag.StringVar(&o.targets, "targets", "reqs,jobs,qualified,company,events", "routes loaded: reqs (reqs/search), jobs (jobs/search), qualified (reqs/qualified), company (is-hiring), events (the feed); empty: none")
	flag.StringVar(&o.heapProfile, "heap-profile", "", "write the heap profile after the first build to this file (go tool pprof -sample_index=inuse_space: the snapshot's memory by the code that allocated it)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured rounds (the servers and the generator) to this file")
	flag.IntVar(&o.perQuery, "per-query", 0, "before the rounds, call each query of the loaded targets alone this many times on one connection and print its p50 and max (0: none)")
	flag.BoolVar(&o.chQueryLog, "clickhouse-query-log", true, "log the builds' ClickHouse queries (log_queries=1) and print the peak memory and duration of each kind from system.query_log")
	flag.Parse()
	if o.chDB == "" {
		o.chDB = "hs_bigworld_" + short(o.cfg.Reqs)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if o.memLimitMiB > 0 {
		debug.SetMemoryLimit(o.memLimitMiB << 20)
	}
	if err := run(context.Background(), o, log); err != nil {
		fmt.Fprintln(os.Stderr, "bigworld:", err)
		os.Exit(1)
	}
}

// short is n as 10k, 1m, 10m, or its digits.
func short(n int) string {
	switch {
	case n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "m"
	case n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	}
	return strconv.Itoa(n)
}

type analyticsConn = driver.Conn

// fixed is a read snapshot that never changes (the world does not move while it is loaded).
type fixed struct{ s *snapshot.Snapshot }

func (f fixed) Current() *snapshot.Snapshot { return f.s }

func run(ctx context.Context, o options, log *slog.Logger) error {
	chOpts := analytics.Options{Addr: o.chAddr, Database: o.chDB}
	if o.measureOnly {
		if o.drop {
			return fmt.Errorf("cannot drop a database measured as it is (--measure-only): drop it yourself")
		}
	} else {
		if !strings.HasPrefix(o.chDB, "hs_") || strings.HasPrefix(o.chDB, "hs_test_") {
			return fmt.Errorf("cannot use database %q: name one of its own starting hs_ (not hs_test_)", o.chDB)
		}
		if err := analytics.EnsureDatabase(ctx, chOpts); err != nil {
			return err
		}
	}
	ch, err := analytics.Open(chOpts)
	if err != nil {
		return err
	}
	defer ch.Close()
	if o.drop {
		defer func() {
			if err := ch.Exec(context.Background(), "DROP DATABASE IF EXISTS "+o.chDB); err != nil {
				log.Error("bigworld: cannot drop the database", "database", o.chDB, "err", err)
			} else {
				log.Info("bigworld: database dropped", "database", o.chDB)
			}
		}()
	}
	if !o.measureOnly {
		if err := analytics.Migrate(ctx, ch, chOpts, nil); err != nil {
			return err
		}
		st, err := bigworld.Generate(ctx, ch, o.cfg, log)
		if err != nil {
			return err
		}
		fmt.Printf("world: %d reqs (%d live), %d companies (%d with reqs), %d events, %d cycles, seed %d, %d days; written in %s (%d events this run)\n",
			st.Reqs, st.Live, st.Companies, st.WithReqs, st.Events, st.Cycles, o.cfg.Seed, o.cfg.Days, st.Took.Round(time.Second), st.EventsWritten)
	}
	size, err := dbSize(ctx, ch, o.chDB)
	if err != nil {
		return err
	}
	fmt.Printf("database %s: %s\n\n", o.chDB, size)
	if o.generateOnly {
		return nil
	}

	// The builds' connection: analytics.Open's options (its 5-minute read timeout unless
	// --clickhouse-read-timeout), named bigworld-build so that the query log tells its queries
	// from other clients'.
	readTimeout := 5 * time.Minute
	if o.readTimeout > 0 {
		readTimeout = o.readTimeout
	}
	bch, err := clickhouse.Open(&clickhouse.Options{Addr: chOpts.Addrs(), Auth: clickhouse.Auth{Database: o.chDB, Username: "default"},
		DialTimeout: 5 * time.Second, MaxOpenConns: 16, MaxIdleConns: 8, ConnMaxLifetime: time.Hour, ReadTimeout: readTimeout,
		Compression: &clickhouse.Compression{Method: clickhouse.CompressionLZ4}, BlockBufferSize: 10, ConnOpenStrategy: clickhouse.ConnOpenInOrder,
		ClientInfo: clickhouse.ClientInfo{Products: []struct{ Name, Version string }{{Name: buildClient, Version: "1"}}}})
	if err != nil {
		return err
	}
	defer bch.Close()
	bctx := ctx
	set := clickhouse.Settings{}
	if o.chQueryLog {
		set["log_queries"] = 1
	}
	if o.chSettings != "" {
		for _, kv := range strings.Split(o.chSettings, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("cannot read --clickhouse-settings %q: give name=value pairs, comma-separated", o.chSettings)
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				set[k] = int(n) // the driver sends int settings as numbers
			} else {
				set[k] = v
			}
		}
	}
	if len(set) > 0 {
		bctx = clickhouse.Context(ctx, clickhouse.WithSettings(set))
	}

	// The build, on a heap with nothing else on it.
	runtime.GC()
	debug.FreeOSMemory()
	before := heap()
	peak := sampleHeap()
	buildStart := time.Now()
	snap, err := snapshot.Build(bctx, bch)
	buildPeak := peak()
	if err != nil {
		return err
	}
	runtime.GC()
	after := heap()
	held := after - before
	if o.heapProfile != "" {
		if err := writeHeapProfile(o.heapProfile); err != nil {
			return err
		}
	}
	s := snap.Index.Stats()
	fmt.Printf("| figure | value |\n|---|---:|\n")
	fmt.Printf("| snapshot build (read/snapshot.Build) | %s |\n", snap.BuildTook.Round(time.Millisecond))
	fmt.Printf("| its phases | %s |\n", snap.Phases)
	fmt.Printf("| reqs indexed (live) / companies in the model | %d (%d) / %d |\n", s.Reqs, s.LiveReqs, snap.Model.Companies())
	fmt.Printf("| entries of the lineage's dictionaries (searchindex.Dictionaries) | %d |\n", s.DictionaryEntries)
	fmt.Printf("| heap after the build, after GC: total (snapshot) | %s (%s) |\n", mib(after), mib(held))
	fmt.Printf("| snapshot heap per req | %.0f bytes |\n", float64(held)/float64(max(1, s.Reqs)))
	fmt.Printf("| peak heap during the build (heap objects, sampled every 10 ms) | %s (%.2f× the snapshot) |\n", mib(buildPeak), float64(buildPeak)/float64(max(1, held)))
	if o.chQueryLog {
		if err := printQueryLog(ctx, ch, buildStart); err != nil {
			return err
		}
	}

	// A rebuild while the first snapshot serves: the peak heap an instance must have room for.
	// Skipped when the machine lacks the room (two snapshots and the build's garbage), so the
	// bench never pushes a shared machine out of memory.
	if avail := memAvailable(); avail > 0 && avail < held*5/2+2<<30 {
		fmt.Printf("| rebuild with the first snapshot held | not run: %s available, under 2.5× the snapshot + 2 GiB |\n", mib(avail))
		if o.targets == "" {
			return nil
		}
		return serve(ctx, o, ch, snap)
	}
	peak = sampleHeap()
	snap2, err := snapshot.Build(bctx, bch)
	rebuildPeak := peak()
	if err != nil {
		return err
	}
	fmt.Printf("| rebuild with the first snapshot held | %s (%s) |\n", snap2.BuildTook.Round(time.Millisecond), snap2.Phases)
	fmt.Printf("| peak heap during the rebuild (heap objects, sampled every 10 ms) | %s (%.2f× the snapshot) |\n", mib(rebuildPeak), float64(rebuildPeak)/float64(max(1, held)))
	fmt.Printf("| peak RSS of the process so far (VmHWM) | %s |\n", vmHWM())
	snap, snap2 = snap2, nil
	runtime.GC()

	if o.targets == "" {
		return nil
	}
	return serve(ctx, o, ch, snap)
}

// sampleHeap samples the heap's objects (live and not yet swept) every 10 ms until the function
// it returns is called, which returns the highest sample.
func sampleHeap() func() uint64 {
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak.Store(max(peak.Load(), sample[0].Value.Uint64()))
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak.Load()
	}
}

// memAvailable is the machine's MemAvailable (0 when unknown).
func memAvailable() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "MemAvailable:") {
			f := strings.Fields(l)
			if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// heap is the live heap (HeapAlloc) now.
func heap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// vmHWM is the process's peak resident set, as /proc/self/status has it.
func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				return mib(kb << 10)
			}
		}
	}
	return "unknown"
}

// writeHeapProfile writes the heap profile (after a GC) to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot write the heap profile: %w", err)
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("cannot write the heap profile: %w", err)
	}
	return f.Close()
}

// buildClient names the builds' ClickHouse client (system.query_log's client_name).
const buildClient = "bigworld-build"

// printQueryLog prints, per kind of query the builds' client sent since since (60 characters
// from its FROM), how many ran, their peak memory and their longest duration, from
// system.query_log (the build's queries set log_queries=1).
func printQueryLog(ctx context.Context, ch analyticsConn, since time.Time) error {
	if err := ch.Exec(ctx, "SYSTEM FLUSH LOGS"); err != nil {
		return fmt.Errorf("cannot flush ClickHouse's query log: %w", err)
	}
	rows, err := ch.Query(ctx, `
		SELECT substring(replaceRegexpAll(query, '[\\s]+', ' '), position(replaceRegexpAll(query, '[\\s]+', ' '), 'FROM'), 60) AS kind,
		       count(), max(memory_usage), max(query_duration_ms), sum(query_duration_ms)
		FROM system.query_log
		WHERE type = 2 AND query_start_time >= ? AND position(client_name, ?) > 0
		GROUP BY kind ORDER BY max(memory_usage) DESC LIMIT 12`, since.Add(-time.Second), buildClient+"/")
	if err != nil {
		return fmt.Errorf("cannot read ClickHouse's query log: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var n, mem, longest, total uint64
		if err := rows.Scan(&kind, &n, &mem, &longest, &total); err != nil {
			return fmt.Errorf("cannot read ClickHouse's query log: %w", err)
		}
		fmt.Printf("| ClickHouse: %d× `%s…` | peak memory %s a query, longest %.1f s, %.1f s in all |\n",
			n, strings.ReplaceAll(kind, "|", "\\|"), mib(mem), float64(longest)/1000, float64(total)/1000)
	}
	return rows.Err()
}

// dbSize is the database's size on disk and uncompressed.
func dbSize(ctx context.Context, ch analyticsConn, db string) (string, error) {
	var disk, raw uint64
	if err := ch.QueryRow(ctx, "SELECT sum(bytes), sum(data_uncompressed_bytes) FROM system.parts WHERE active AND database = ?", db).Scan(&disk, &raw); err != nil {
		return "", fmt.Errorf("cannot read the database's size: %w", err)
	}
	return fmt.Sprintf("%.2f GiB on disk (%.2f GiB uncompressed)", float64(disk)/(1<<30), float64(raw)/(1<<30)), nil
}

// serve loads the API on snap beside a trivial handler and prints the table.
func serve(ctx context.Context, o options, ch analyticsConn, snap *snapshot.Snapshot) error {
	snaps := fixed{snap}
	a, stop, err := benchapi.Start(ctx, o.pgURL, "bench_bigworld_", "enterprise", api.Config{MeteringSyncEvery: 20 * time.Millisecond},
		func(srv *api.Server, pool *pgxpool.Pool) error {
			search.Register(srv, search.Deps{Snapshots: snaps})
			companies.Register(srv, companies.Deps{Snapshots: snaps, Pool: pool, ColdAfter: -1})
			events.Register(srv, events.Deps{Snapshots: snaps, ClickHouse: ch})
			return nil
		})
	if err != nil {
		return err
	}
	defer stop()
	trivURL, stopTrivial, err := benchapi.Trivial()
	if err != nil {
		return err
	}
	defer stopTrivial()

	base := a.Base
	hdr := map[string]string{"X-API-Key": a.Key}
	all0, err := targetsOf(ctx, ch, snap)
	if err != nil {
		return err
	}
	var targets []target
	for _, tg := range all0 {
		if strings.Contains(","+o.targets+",", ","+tg.id+",") {
			targets = append(targets, tg)
		}
	}
	// Every target answers 200 before it is loaded.
	for _, tg := range targets {
		r := loadgen.Run(loadgen.Spec{Name: "check", Base: base, Method: tg.method, Paths: tg.paths, Bodies: tg.bodies,
			Headers: tg.headers(hdr), Conns: 1, Dur: time.Minute, MaxReq: int64(max(len(tg.paths), len(tg.bodies)))})
		if r.Errors > 0 {
			return fmt.Errorf("target %s: %d of %d calls did not answer 200", tg.name, r.Errors, r.Requests)
		}
	}
	var mu sync.Mutex
	codes := map[string]map[int]int64{} // statuses of the answers other than 200, per target
	run := func(name, base string, tg target, h map[string]string, dur time.Duration) loadgen.Result {
		return loadgen.Run(loadgen.Spec{Name: name, Base: base, Method: tg.method, Paths: tg.paths, Bodies: tg.bodies,
			Headers: tg.headers(h), Conns: o.conns, Dur: dur, MaxReq: math.MaxInt64, Status: func(code int) {
				mu.Lock()
				defer mu.Unlock()
				if codes[name] == nil {
					codes[name] = map[int]int64{}
				}
				codes[name][code]++
			}})
	}
	errors := func(r loadgen.Result) string {
		out := strconv.FormatInt(r.Errors, 10)
		var by []string
		for code, n := range codes[r.Name] {
			by = append(by, fmt.Sprintf("%d: %d", code, n))
		}
		slices.Sort(by)
		if len(by) > 0 {
			out += " (" + strings.Join(by, ", ") + ")"
		}
		return out
	}
	triv := target{name: "baseline: trivial fasthttp handler", paths: []string{"/"}}
	run("warmup", trivURL, triv, nil, time.Second)
	for _, tg := range targets {
		run("warmup", base, tg, hdr, time.Second)
	}
	if o.perQuery > 0 {
		perQuery(base, targets, hdr, o.perQuery)
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return fmt.Errorf("cannot write the CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cannot start the CPU profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var all []loadgen.Result
	report := func(r loadgen.Result) {
		all = append(all, r)
		fmt.Fprintf(os.Stderr, "%-60s %8.0f req/s  p50 %-10s p95 %-10s p99 %-10s errors %d\n", r.Name, r.RPS(),
			r.Pct(0.50).Round(time.Microsecond), r.Pct(0.95).Round(time.Microsecond), r.Pct(0.99).Round(time.Microsecond), r.Errors)
	}
	load1 := loadavg()
	for range o.rounds {
		report(run(triv.name, trivURL, triv, nil, o.dur))
		for _, tg := range targets {
			report(run(tg.name, base, tg, hdr, o.dur))
		}
	}
	t := loadgen.Merge(all, triv.name)
	fmt.Printf("\n%d connections, %d round(s) of %s per target, loopback, GOMAXPROCS=%d, load average %s → %s\n\n",
		o.conns, o.rounds, o.dur, runtime.GOMAXPROCS(0), load1, loadavg())
	fmt.Println("| target | requests | errors | req/s | p50 | p95 | p99 | req/s ÷ trivial | p99 ÷ trivial's |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	row := func(r loadgen.Result) {
		fmt.Printf("| %s | %d | %s | %.0f | %s | %s | %s | %.3f | %.1f |\n", r.Name, r.Requests, errors(r), r.RPS(),
			r.Pct(0.50).Round(time.Microsecond), r.Pct(0.95).Round(time.Microsecond), r.Pct(0.99).Round(time.Microsecond),
			r.RPS()/t.RPS(), float64(r.Pct(0.99))/float64(t.Pct(0.99)))
	}
	row(t)
	for _, tg := range targets {
		row(loadgen.Merge(all, tg.name))
	}
	return nil
}

// perQuery calls each query of the targets alone, n times one after another on one connection,
// and prints its p50 and max: which queries of a mix cost what, without the queueing of a load.
func perQuery(base string, targets []target, hdr map[string]string, n int) {
	fmt.Printf("\nEach query alone, %d calls on one connection, load average %s:\n\n| target | query | p50 | max |\n|---|---|---:|---:|\n", n, loadavg())
	for _, tg := range targets {
		if tg.id == "company" || tg.id == "events" {
			continue // many paths of one query each
		}
		for i := range max(len(tg.paths), len(tg.bodies)) {
			s := loadgen.Spec{Name: "query", Base: base, Method: tg.method, Headers: tg.headers(hdr), Conns: 1, Dur: time.Minute, MaxReq: int64(n)}
			label := ""
			if len(tg.bodies) > 0 {
				s.Paths, s.Bodies = tg.paths, [][]byte{tg.bodies[i]}
				label = string(tg.bodies[i])
			} else {
				s.Paths = []string{tg.paths[i]}
				label = tg.paths[i]
			}
			r := loadgen.Run(s)
			fmt.Printf("| %s | `%s` | %s | %s |\n", tg.id, label, r.Pct(0.50).Round(10*time.Microsecond), r.Pct(1).Round(10*time.Microsecond))
		}
	}
	fmt.Println()
}

// loadavg is the 1-minute load average.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// target is one loaded route: GET paths, or POST bodies to one path.
type target struct {
	id     string // its name in --targets
	name   string
	method string
	paths  []string
	bodies [][]byte
}

func (t target) headers(h map[string]string) map[string]string {
	if t.method != "POST" {
		return h
	}
	out := map[string]string{"Content-Type": "application/json"}
	for k, v := range h {
		out[k] = v
	}
	return out
}

// targetsOf are the loaded routes on snap's world.
func targetsOf(ctx context.Context, ch analyticsConn, snap *snapshot.Snapshot) ([]target, error) {
	mid := snap.AsOf.Add(-7 * 24 * time.Hour).Format(time.RFC3339)
	var reqs, jobs []string
	for _, q := range []string{
		"q=engineer", "q=senior+software+engineer", "q=sales", "q=product+manager&geo=United+States", "q=data",
		"", "q=engineers&geo=Germany&geo=France", "q=manager&exclude_agencies=true&headcount_band=51-200",
		"q=designer&since=" + neturl.QueryEscape(mid), "q=account+executive&source_type=board", "q=nurse",
		"q=engineer&cursor=140737488355328", "industry_terms=soft&q=developer", "q=marketing&limit=50",
	} {
		reqs = append(reqs, "/v1/reqs/search?"+q)
	}
	for _, q := range []string{
		"q=engineer", "q=senior+software+engineer", "q=account+executive&geo=United+States", "q=data+scientist",
		"", "q=product+manager&sort=recency", "function=Engineering&geo=Germany", "q=nurse&geo=United+Kingdom",
		"q=customer+success&since=" + neturl.QueryEscape(mid), "q=developer&limit=50",
	} {
		jobs = append(jobs, "/v1/jobs/search?"+q)
	}
	var qualified [][]byte
	for _, c := range []string{
		`{"req":{"function":["Engineering"]}}`, `{"req":{"function":["Sales"],"country":["Germany"]}}`,
		`{"req":{"q":"engineer"}}`, `{"req":{"country":["United States"]},"company":{"headcount_band":["51-200"]}}`,
		`{"req":{"q":"manager","function":["Marketing"]}}`, `{"req":{"function":["Data & Analytics"],"country":["United Kingdom"]}}`,
	} {
		qualified = append(qualified, []byte(`{"criteria":`+c+`,"limit":20}`))
	}
	var hiring []string
	rows, err := ch.Query(ctx, "SELECT DISTINCT company_id FROM companies ORDER BY company_id")
	if err != nil {
		return nil, fmt.Errorf("cannot read the companies: %w", err)
	}
	defer rows.Close()
	every := max(1, snap.Model.Companies()/2000)
	for i := 0; rows.Next(); i++ {
		var id uint64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("cannot read the companies: %w", err)
		}
		if i%every == 0 && len(hiring) < 2000 {
			hiring = append(hiring, fmt.Sprintf("/v1/companies/%d/is-hiring", id))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the companies: %w", err)
	}
	wm := snap.Watermark
	var feed []string
	for i := range uint64(16) {
		feed = append(feed, fmt.Sprintf("/v1/events?limit=1000&since=%d", wm/2+i*1000))
	}
	return []target{
		{id: "reqs", name: "GET /v1/reqs/search (14-query mix)", paths: reqs},
		{id: "jobs", name: "GET /v1/jobs/search (10-query mix)", paths: jobs},
		{id: "qualified", name: "POST /v1/reqs/qualified (6 criteria, 20 rows)", method: "POST", paths: []string{"/v1/reqs/qualified"}, bodies: qualified},
		{id: "company", name: "GET /v1/companies/{id}/is-hiring (2,000 companies)", paths: hiring},
		{id: "events", name: "GET /v1/events, 1,000-event page mid-ledger", paths: feed},
	}, nil
}
