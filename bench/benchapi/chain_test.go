package benchapi

import (
	"context"
	"log/slog"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// The chain in process, without the network: what one call of a route costs the server (CPU
// and allocations) beside the trivial handler run the same way. apiload measures the same over
// loopback, where the sockets cost more than either; these isolate the chain for profiling:
//
//	go test -run '^$' -bench Chain -benchmem -cpuprofile /tmp/cpu.prof -memprofile /tmp/mem.prof ./bench/benchapi/
//	HS_CHAIN_BENCH_WORLD=hs_bench_events go test -run '^$' -bench Chain -benchmem ./bench/benchapi/   # adds is-hiring
//
// They need HS_POSTGRES_URL (a throwaway schema); is-hiring needs a crawled world in ClickHouse
// (HS_CLICKHOUSE_ADDR, HS_CHAIN_BENCH_WORLD), whose snapshot is built before the timer starts.

// chainAPI starts the API once per benchmark with the account routes and, when world is set,
// the company reads over that world's snapshot.
func chainAPI(b *testing.B, plan, world string) (*API, []string) {
	b.Helper()
	pgURL := os.Getenv("HS_POSTGRES_URL")
	if pgURL == "" {
		b.Skip("HS_POSTGRES_URL is not set")
	}
	ctx := context.Background()
	var paths []string
	a, stop, err := Start(ctx, pgURL, "bench_chain_", plan, api.Config{MeteringSyncEvery: 20 * time.Millisecond}, func(srv *api.Server, pool *pgxpool.Pool) error {
		account.Register(srv, account.Deps{Pool: pool})
		if world == "" {
			return nil
		}
		opts := analytics.Options{Addr: os.Getenv("HS_CLICKHOUSE_ADDR"), Database: world}
		ch, err := analytics.Open(opts)
		if err != nil {
			return err
		}
		if err := analytics.Migrate(ctx, ch, opts, nil); err != nil {
			return err
		}
		snap := snapshot.New(snapshot.Config{ClickHouse: ch, Log: slog.New(slog.DiscardHandler), Poll: time.Hour})
		if _, err := snap.Refresh(ctx, true); err != nil {
			return err
		}
		companies.Register(srv, companies.Deps{Snapshots: snap, Pool: pool, ColdAfter: -1})
		all, err := analytics.Companies(ctx, ch)
		if err != nil {
			return err
		}
		for i := 0; i < len(all) && len(paths) < 2000; i += max(1, len(all)/2000) {
			paths = append(paths, "/v1/companies/"+strconv.FormatUint(all[i].CompanyID, 10)+"/is-hiring")
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	return a, paths
}

// serveInProcess runs h on requests for paths in turn with key, as a connection's worker would
// (one RequestCtx reused), and fails on an answer other than 200.
func serveInProcess(b *testing.B, h fasthttp.RequestHandler, key string, paths []string) {
	b.Helper()
	reqs := make([]fasthttp.Request, len(paths))
	for i, p := range paths {
		reqs[i].SetRequestURI(p)
		reqs[i].Header.SetHost("127.0.0.1")
		if key != "" {
			reqs[i].Header.Set("X-API-Key", key)
		}
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
	var rc fasthttp.RequestCtx
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		rc.Init(&reqs[i%len(reqs)], addr, nil)
		h(&rc)
		if rc.Response.StatusCode() != fasthttp.StatusOK {
			b.Fatalf("%s answered %d: %s", paths[i%len(paths)], rc.Response.StatusCode(), rc.Response.Body())
		}
		i++
	}
}

// BenchmarkChainTrivial is the baseline: the trivial handler of Trivial, called the same way.
func BenchmarkChainTrivial(b *testing.B) {
	serveInProcess(b, func(c *fasthttp.RequestCtx) {
		c.SetContentType("application/json")
		c.SetBodyString(`{"ok":true}`)
	}, "", []string{"/"})
}

// BenchmarkChainWhoami is GET /v1/whoami through the whole chain (key from the cache, rate
// windows, the answer), for a Growth key without a minute limit, as apiload loads it.
func BenchmarkChainWhoami(b *testing.B) {
	a, _ := chainAPI(b, "growth", "")
	serveInProcess(b, a.Srv.Router().Handler, a.Key, []string{"/v1/whoami"})
}

// BenchmarkChainIsHiring is the metered GET /v1/companies/{id}/is-hiring over 2,000 companies
// of the world HS_CHAIN_BENCH_WORLD names, for an Enterprise key, as apiload loads it.
func BenchmarkChainIsHiring(b *testing.B) {
	world := os.Getenv("HS_CHAIN_BENCH_WORLD")
	if world == "" {
		b.Skip("HS_CHAIN_BENCH_WORLD (a crawled world in ClickHouse) is not set")
	}
	a, paths := chainAPI(b, "enterprise", world)
	serveInProcess(b, a.Srv.Router().Handler, a.Key, paths)
}
