// Command eventsbench measures GET /v1/events on a synthetic ledger of at least 10 million events:
// it fills its own ClickHouse database (--clickhouse-database, default hs_bench_events; reused
// when already filled) with the crawl's own cycle write, serves the real route on the real
// api.Server (Postgres-backed keys, limits and metering on a throwaway schema), and loads
// 1000-event pages at the head, at the start and in the middle of the ledger, and a sparse
// filtered page, each beside two baselines of the same run: a trivial fasthttp handler serving
// the same bytes as a head page, and plain encoding/json decoding of those bytes. It prints
// Markdown for bench/README.md. It is never run by `make test`.
//
// The key is an Enterprise key (no daily quota, no spend cap) whose account carries a
// calls_per_minute override, so every call goes through the whole chain and is metered.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/bench/benchapi"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

type options struct {
	chAddr, chDB, pgURL string
	events              uint64
	conns, rounds       int
	dur                 time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.chAddr, "clickhouse-addr", flagenv.Env("HS_CLICKHOUSE_ADDR", "127.0.0.1:59000"), "ClickHouse native address (env HS_CLICKHOUSE_ADDR)")
	flag.StringVar(&o.chDB, "clickhouse-database", "hs_bench_events", "ClickHouse database of the synthetic ledger (created and filled when short of --events; never a test database)")
	flag.StringVar(&o.pgURL, "postgres-url", flagenv.Env("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"), "Postgres server (a throwaway schema is created and dropped; env HS_POSTGRES_URL)")
	flag.Uint64Var(&o.events, "events", 10_000_000, "events in the synthetic ledger (filled in cycles of 100,000)")
	flag.IntVar(&o.conns, "conns", 4, "concurrent connections of the load generator")
	flag.IntVar(&o.rounds, "rounds", 1, "rounds of every target")
	flag.DurationVar(&o.dur, "duration", 10*time.Second, "duration of each measured run")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "eventsbench:", err)
		os.Exit(1)
	}
}

// fixed is a read snapshot that never changes (the bench ledger does not move).
type fixed struct{ s *snapshot.Snapshot }

func (f fixed) Current() *snapshot.Snapshot { return f.s }

func run(ctx context.Context, o options) error {
	chOpts := analytics.Options{Addr: o.chAddr, Database: o.chDB}
	if err := analytics.EnsureDatabase(ctx, chOpts); err != nil {
		return err
	}
	ch, err := analytics.Open(chOpts)
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := analytics.Migrate(ctx, ch, chOpts, nil); err != nil {
		return err
	}
	t0 := time.Now()
	wm, at, err := fill(ctx, ch, o.events)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "ledger: %d committed events in %s (fill or reuse took %s)\n", wm, o.chDB, time.Since(t0).Round(time.Second))

	// The read snapshot at the ledger's watermark. The feed reads its watermark, cycle time and
	// company names only, so it is built from the company directory without the req pass (which
	// the other routes need and this bench does not load).
	g := analytics.AtWatermark(wm, at)
	cos, err := analytics.CompaniesAt(ctx, ch, g)
	if err != nil {
		return err
	}
	snap := &snapshot.Snapshot{Watermark: wm, AsOf: at.UTC(), Model: readmodel.NewBuilder(nil, wm, at, nil, cos).Build(readmodel.Side{}),
		Index: searchindex.NewBuilder(wm, at, cos).Build(nil)}

	a, stop, err := benchapi.Start(ctx, o.pgURL, "bench_events_", "enterprise", api.Config{}, func(srv *api.Server, _ *pgxpool.Pool) error {
		events.Register(srv, events.Deps{Snapshots: fixed{snap}, ClickHouse: ch})
		return nil
	})
	if err != nil {
		return err
	}
	defer stop()
	base := a.Base
	hdr := map[string]string{"X-API-Key": a.Key}

	// Cursors: 16 per position, so consecutive calls do not read the same granules.
	cursors := func(from uint64, q string) []string {
		var out []string
		for i := range uint64(16) {
			out = append(out, fmt.Sprintf("/v1/events?limit=1000&since=%d%s", from+i*1000, q))
		}
		return out
	}
	ids := fmt.Sprintf("&company_id=%d&company_id=%d", companyID(17), companyID(4242))
	targets := []struct {
		name  string
		paths []string
	}{
		{"head: 1000 events, since within the last 20,000", cursors(wm-20_000, "")},
		{"deep, start: 1000 events, since within the first 20,000", cursors(0, "")},
		{"deep, middle: 1000 events, since near watermark/2", cursors(wm/2, "")},
		{fmt.Sprintf("filtered, sparse: 2 company_id, middle (examines %d positions)", events.MaxSpan), cursors(wm/2, ids)},
	}

	// The baselines serve and decode the bytes of a real head page.
	headBody, err := get(base+targets[0].paths[0], a.Key)
	if err != nil {
		return err
	}
	trivial := &fasthttp.Server{Handler: func(c *fasthttp.RequestCtx) {
		c.SetContentType("application/json")
		c.SetBody(headBody)
	}, NoDefaultServerHeader: true}
	tln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go trivial.Serve(tln)    //nolint:errcheck
	defer trivial.Shutdown() //nolint:errcheck
	trivialURL := "http://" + tln.Addr().String()
	count := func(b []byte) int { return bytes.Count(b, []byte(`"event_seq":`)) }

	// Warm up: connections, the first lease of the limiter, ClickHouse's mark cache.
	load("warmup", trivialURL, []string{"/"}, nil, o.conns, time.Second, nil)
	for _, tg := range targets {
		load("warmup", base, tg.paths, hdr, o.conns, time.Second, nil)
	}
	var all []result
	report := func(r result) {
		all = append(all, r)
		fmt.Fprintf(os.Stderr, "%-75s %8.0f req/s  p50 %-10s p99 %-10s errors %d\n", r.name, r.rps(),
			r.pct(0.50).Round(time.Microsecond), r.pct(0.99).Round(time.Microsecond), r.errors)
	}
	trivialName := fmt.Sprintf("baseline: trivial fasthttp handler, same %d bytes", len(headBody))
	decodeName := "baseline: encoding/json decode of the same bytes"
	for range o.rounds {
		report(load(trivialName, trivialURL, []string{"/"}, nil, o.conns, o.dur, count))
		report(decodeRun(decodeName, headBody, min(o.conns, runtime.GOMAXPROCS(0)), o.dur))
		for _, tg := range targets {
			report(load("GET /v1/events "+tg.name, base, tg.paths, hdr, o.conns, o.dur, count))
		}
	}
	printTable(o, wm, len(headBody), merge(all, trivialName), merge(all, decodeName), all, targets)
	return nil
}

// printTable prints the Markdown of the run: each target merged over rounds, with its ratios to
// the trivial handler (throughput) and to decoding the same bytes (p50).
func printTable(o options, wm uint64, size int, triv, dec result, all []result, targets []struct {
	name  string
	paths []string
}) {
	fmt.Printf("\n%d committed events; %d connections, %d round(s) of %s per target, loopback, GOMAXPROCS=%d; a head page is %d bytes\n\n",
		wm, o.conns, o.rounds, o.dur, runtime.GOMAXPROCS(0), size)
	fmt.Println("| target | requests | errors | events/page | req/s | events/s | p50 | p99 | req/s ÷ trivial | p50 ÷ decode p50 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	row := func(r result) {
		per := 0.0
		if r.requests > 0 {
			per = float64(r.events) / float64(r.requests)
		}
		fmt.Printf("| %s | %d | %d | %.0f | %.0f | %.0f | %s | %s | %.3f | %.1f |\n", r.name, r.requests, r.errors, per, r.rps(),
			float64(r.events)/r.elapsed.Seconds(), r.pct(0.50).Round(time.Microsecond), r.pct(0.99).Round(time.Microsecond),
			r.rps()/triv.rps(), float64(r.pct(0.50))/float64(dec.pct(0.50)))
	}
	row(triv)
	fmt.Printf("| %s | %d | %d | 1000 | %.0f (decodes/s) | %.0f | %s | %s | | 1.0 |\n", dec.name, dec.requests, dec.errors, dec.rps(),
		dec.rps()*1000, dec.pct(0.50).Round(time.Microsecond), dec.pct(0.99).Round(time.Microsecond))
	for _, tg := range targets {
		row(merge(all, "GET /v1/events "+tg.name))
	}
}

// merge is every run named name as one.
func merge(all []result, name string) result {
	m := result{name: name}
	for _, r := range all {
		if r.name == name {
			m.requests += r.requests
			m.errors += r.errors
			m.events += r.events
			m.elapsed += r.elapsed
			m.lat = append(m.lat, r.lat...)
		}
	}
	slices.Sort(m.lat)
	return m
}

// get fetches one answer (200 required).
func get(url, key string) ([]byte, error) {
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI(url)
	req.Header.Set("X-API-Key", key)
	if err := fasthttp.DoTimeout(req, res, 30*time.Second); err != nil {
		return nil, err
	}
	if res.StatusCode() != 200 {
		return nil, fmt.Errorf("GET %s answered %d: %s", url, res.StatusCode(), res.Body())
	}
	return append([]byte(nil), res.Body()...), nil
}
