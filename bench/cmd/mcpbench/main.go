// Command mcpbench measures the agent interface beside REST in one run: the company_hiring_brief
// tool (POST /mcp, tools/call, stateless, JSON response) and the route it runs (GET
// /v1/companies/{id}/pre-action-brief), on the same api.Server over a crawled world in ClickHouse
// (--clickhouse-database), at the same connection count, in alternating rounds, with one
// Enterprise key (no daily quota or spend cap; calls_per_minute override) so every call is
// admitted and metered. It prints each round as it ends, a Markdown table for bench/README.md,
// and checks that the metered calls per channel equal the successful calls of each target.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/api/agent"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/api/watches"
	"github.com/planehq/hiringsignal/bench/benchapi"
	"github.com/planehq/hiringsignal/bench/loadgen"
	"github.com/planehq/hiringsignal/bench/profiling"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func main() {
	pgURL := flag.String("postgres-url", flagenv.Env("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"), "Postgres server (a throwaway schema is created and dropped)")
	chAddr := flag.String("clickhouse-addr", flagenv.Env("HS_CLICKHOUSE_ADDR", "127.0.0.1:59000"), "ClickHouse of the crawled world")
	chDB := flag.String("clickhouse-database", "", "ClickHouse database of a crawled world (read only), e.g. hs_bench_events")
	conns := flag.Int("conns", 16, "concurrent connections")
	dur := flag.Duration("duration", 5*time.Second, "duration of each measured run")
	rounds := flag.Int("rounds", 2, "alternating rounds of the REST and tool runs")
	maxReq := flag.Int64("max-requests", 5_000_000, "upper bound on requests per run")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the tool runs (server and generator) to this file (round i > 1: <file>.<i-1>)")
	memProfile := flag.String("memprofile", "", "write the allocations of the first round's tool run to this file (and those before it to <file>.base: go tool pprof -sample_index=alloc_space -diff_base <file>.base <file>)")
	flag.Parse()
	if *chDB == "" {
		fmt.Fprintln(os.Stderr, "mcpbench: pass --clickhouse-database naming a crawled world (see bench/README.md)")
		os.Exit(2)
	}
	if err := run(*pgURL, *chAddr, *chDB, *conns, *dur, *rounds, *maxReq, *cpuProfile, *memProfile); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

func run(pgURL, chAddr, chDB string, conns int, dur time.Duration, rounds int, maxReq int64, cpuProfile, memProfile string) error {
	ctx := context.Background()
	opts := analytics.Options{Addr: chAddr, Database: chDB}
	ch, err := analytics.Open(opts)
	if err != nil {
		return fmt.Errorf("cannot open ClickHouse %s/%s: %w", chAddr, chDB, err)
	}
	// A world crawled by an older build lacks the newest columns the snapshot reads: add them
	// (migrations only add; the world's rows are not touched).
	if err := analytics.Migrate(ctx, ch, opts, nil); err != nil {
		return fmt.Errorf("cannot bring %s up to the current schema: %w", chDB, err)
	}
	snaps := snapshot.New(snapshot.Config{ClickHouse: ch, Log: slog.New(slog.DiscardHandler), Poll: time.Hour})
	if _, err := snaps.Refresh(ctx, true); err != nil {
		return err
	}
	a, stop, err := benchapi.Start(ctx, pgURL, "bench_mcp_", "enterprise", api.Config{MeteringSyncEvery: 20 * time.Millisecond},
		func(srv *api.Server, pool *pgxpool.Pool) error {
			account.Register(srv, account.Deps{Pool: pool})
			// The world is not re-crawled while the bench runs: the cold-company check (202 crawling) is off.
			companies.Register(srv, companies.Deps{Snapshots: snaps, Pool: pool, ColdAfter: -1})
			search.Register(srv, search.Deps{Snapshots: snaps})
			events.Register(srv, events.Deps{Snapshots: snaps, ClickHouse: ch})
			watches.Register(srv, watches.Deps{Pool: pool, Snapshots: snaps})
			agent.Register(agent.Deps{API: srv})
			return nil
		})
	if err != nil {
		return err
	}
	defer stop()
	srv, pool := a.Srv, a.Pool

	// 2,000 companies spread across the world, the same ones for both targets.
	all, err := analytics.Companies(ctx, ch)
	if err != nil {
		return err
	}
	var paths []string
	var bodies [][]byte
	for i := 0; i < len(all) && len(paths) < 2000; i += max(1, len(all)/2000) {
		id := all[i].CompanyID
		paths = append(paths, fmt.Sprintf("/v1/companies/%d/pre-action-brief", id))
		bodies = append(bodies, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"company_hiring_brief","arguments":{"company_id":%d}}}`, i+1, id))
	}
	base := a.Base
	rest := loadgen.Spec{Name: "GET /v1/companies/{id}/pre-action-brief (REST)", Base: base, Paths: paths,
		Headers: map[string]string{"X-API-Key": a.Key}, Conns: conns, Dur: dur, MaxReq: maxReq}
	tool := loadgen.Spec{Name: "tools/call company_hiring_brief (POST /mcp)", Base: base, Method: "POST", Paths: []string{agent.Path}, Bodies: bodies,
		Headers: map[string]string{"X-API-Key": a.Key, "Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"},
		OK: func(b []byte) bool {
			return !strings.Contains(string(b), `"isError":true`) && strings.Contains(string(b), `"result"`)
		},
		Conns: conns, Dur: dur, MaxReq: maxReq}

	// Warm up both (connections, key cache, first lease), then alternate.
	for _, s := range []loadgen.Spec{rest, tool} {
		w := s
		w.Name, w.Dur = "warmup", time.Second
		if r := loadgen.Run(w); r.Errors > 0 {
			return fmt.Errorf("warm-up of %s: %d of %d calls failed", s.Name, r.Errors, r.Requests)
		}
	}
	var runs []loadgen.Result
	for i := 0; i < rounds; i++ {
		for _, s := range []loadgen.Spec{rest, tool} {
			var prof profiling.Profiles
			if s.Name == tool.Name {
				prof = profileOf(cpuProfile, memProfile, i)
			}
			if err := prof.Begin(); err != nil {
				return err
			}
			r := loadgen.Run(s)
			if err := prof.End(); err != nil {
				return err
			}
			runs = append(runs, r)
			fmt.Fprintf(os.Stderr, "round %d/%d %-48s %7.0f req/s  p50 %-9s p99 %s  errors %d\n", i+1, rounds, r.Name, r.RPS(),
				r.Pct(0.50).Round(time.Microsecond), r.Pct(0.99).Round(time.Microsecond), r.Errors)
		}
	}
	r, t := loadgen.Merge(runs, rest.Name), loadgen.Merge(runs, tool.Name)
	fmt.Printf("%d connections, %d rounds of %s per target, loopback, GOMAXPROCS=%d, world %s (%d companies)\n\n",
		conns, rounds, dur, runtime.GOMAXPROCS(0), chDB, len(all))
	fmt.Println("| target | requests | errors | req/s | p50 | p95 | p99 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	for _, x := range []loadgen.Result{r, t} {
		fmt.Printf("| %s | %d | %d | %.0f | %s | %s | %s |\n", x.Name, x.Requests, x.Errors, x.RPS(),
			x.Pct(0.50).Round(time.Microsecond), x.Pct(0.95).Round(time.Microsecond), x.Pct(0.99).Round(time.Microsecond))
	}
	fmt.Printf("\nthroughput ratio (tool / REST): %.2f\n", t.RPS()/r.RPS())

	// Every successful call of either kind metered once, under its channel (warm-ups included).
	if err := srv.FlushUsage(ctx); err != nil {
		return err
	}
	rows, err := pool.Query(ctx, "SELECT channel, sum(calls) FROM usage_events WHERE account_id = $1 GROUP BY channel ORDER BY channel", a.Account)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var chn string
		var n int64
		if err := rows.Scan(&chn, &n); err != nil {
			return err
		}
		fmt.Printf("metered calls, channel %s: %d\n", chn, n)
	}
	return rows.Err()
}

// profileOf is the profiles of round i's tool run: the CPU profile of every round (round 0 writes
// cpu, later rounds cpu.<i>), the allocations of round 0.
func profileOf(cpu, mem string, i int) profiling.Profiles {
	if cpu != "" && i > 0 {
		cpu = fmt.Sprintf("%s.%d", cpu, i)
	}
	if i > 0 {
		mem = ""
	}
	return profiling.Profiles{CPU: cpu, Mem: mem}
}
