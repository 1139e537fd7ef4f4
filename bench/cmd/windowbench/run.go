package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/klauspost/compress/gzip"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/bench/benchdb"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
	"github.com/planehq/hiringsignal/sim"
)

// bench holds what the phases share.
type bench struct {
	o     options
	log   *slog.Logger
	w     *world
	pool  *pgxpool.Pool
	ch    driver.Conn
	fc    pipeline.FetchConfig
	codec *pipeline.ReadCodec
	clock sources.Clock
	quiet *slog.Logger
	rows  [][]string // the result table
}

func run(ctx context.Context, log *slog.Logger, o options) error {
	tmp, err := os.MkdirTemp("", "windowbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	log.Info("building the world", "companies", o.companies, "tick", o.tick, "latency", o.latency)
	w, err := startWorld(o.companies, o.seed, o.tick, o.latency, tmp)
	if err != nil {
		return err
	}
	defer w.stop()
	log.Info("the world serves", "tls", w.TLS, "built", w.Built.Round(time.Millisecond))

	pool, drop, err := benchdb.ThrowawaySchema(ctx, o.pgURL, "hs_windowbench_")
	if err != nil {
		return err
	}
	defer drop()
	ch, err := freshDB(ctx, o.chAddr, o.chDB)
	if err != nil {
		return err
	}
	defer func() {
		ch.Close()
		if admin, err := analytics.Open(analytics.Options{Addr: o.chAddr, Database: "default"}); err == nil {
			_ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+o.chDB)
			admin.Close()
		}
	}()
	// The workers' clock makes the window read the current one, as `crawl --once` reads it: a
	// source read is next due in the next window, after the ones still unread. The window starts
	// now, so its end (where a chain still being read is carried to the next window) is 3 hours
	// away, past any run; --chain-window-pages carries the long chains sooner. The ledger's
	// cycle time stays the world's (Commit is given it).
	now := time.Now().UTC()
	clock := sources.Clock{Epoch: now.Add(-time.Duration(o.tick) * sources.DefaultWindowLength)}
	b := &bench{o: o, log: log, w: w, pool: pool, ch: ch, codec: pipeline.NewReadCodec(), clock: clock,
		quiet: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		fc: pipeline.FetchConfig{ConnectTo: []string{":443=" + w.TLS}, CAFile: w.CAFile, Workers: o.fetchWorkers, PerHost: o.fetchWorkers,
			SourceDeadline: o.sourceDeadline, PageBudget: o.pageBudget, SourceDeadlineMax: o.sourceMax, ChainDepth: o.chainDepth, MaxPages: o.maxPages}} // HostRate 0: no per-host rate, as for the simulator; the latency is the world's

	if err := b.importRegistry(ctx); err != nil {
		return err
	}
	dir, err := sources.Directory(ctx, pool, o.tick, w.CycleTime)
	if err != nil {
		return err
	}
	kinds := map[string]int{}
	for _, s := range dir.Sources {
		kinds[s.Kind]++
	}
	fmt.Printf("world: %d companies, %d sources (%d ATS tenants, %d boards, %d aggregator feeds), window %d, latency %s, %d fetches at once per crawler, claims of %d, "+
		"numbered chains read %d pages at once, at most %d pages a source, stores of up to %d reads, chains read in parts of %d pages and at most %d a window (0: whole)\n\n",
		o.companies, len(dir.Sources), kinds["ats_tenant"], kinds["board"], kinds["aggregator"], o.tick, o.latency, o.fetchWorkers, o.claimBatch,
		o.chainDepth, o.maxPages, o.storeBatch, o.chainPart, o.windowPages)

	if o.phases["fetch"] {
		if err := b.fetchBesidePlainGets(ctx, dir); err != nil {
			return err
		}
	}
	dir = nil
	if err := b.saveSchedule(ctx); err != nil {
		return err
	}
	var one, two *windowRead
	if o.phases["one"] {
		if one, err = b.readWindow(ctx, 1); err != nil {
			return err
		}
	}
	if o.phases["two"] {
		if one != nil {
			if err := b.resetReads(ctx); err != nil {
				return err
			}
		}
		if two, err = b.readWindow(ctx, 2); err != nil {
			return err
		}
	}
	if o.phases["again"] {
		// One worker again, the registry holding the pages the reads before found (as any window
		// after the first finds them): the first read of a run starts from an import, which
		// knows no source's pages, so its claims follow the due order alone.
		if one != nil || two != nil {
			if err := b.resetReads(ctx); err != nil {
				return err
			}
		}
		again, err := b.readWindow(ctx, 1)
		if err != nil {
			return err
		}
		if one != nil {
			b.rows = append(b.rows, []string{"window read, 1 worker: pages unknown ÷ pages known",
				fmt.Sprintf("**%.2f×** (time)", one.took.Seconds()/again.took.Seconds()), "1 worker, pages known", "—", "—", "—"})
		}
		one = again
	}
	if one != nil && two != nil {
		b.rows = append(b.rows, []string{"window read, 2 workers ÷ 1 worker",
			fmt.Sprintf("**%.2f×** (sources/s)", one.took.Seconds()/two.took.Seconds()), "1 worker", "—", "≥ 1.8×", metOr(one.took.Seconds()/two.took.Seconds() >= 1.8)})
	}
	if o.phases["commit"] {
		if err := b.commit(ctx); err != nil {
			return err
		}
	}
	printTable(b.rows)
	return nil
}

func metOr(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func printTable(rows [][]string) {
	fmt.Println()
	fmt.Println("| measure | figure | baseline (same run) | ratio | target | met |")
	fmt.Println("|---|---:|---|---:|---|---|")
	for _, r := range rows {
		fmt.Println("| " + strings.Join(r, " | ") + " |")
	}
}

func freshDB(ctx context.Context, addr, db string) (driver.Conn, error) {
	opts := analytics.Options{Addr: addr, Database: db}
	admin, err := analytics.Open(analytics.Options{Addr: addr, Database: "default"})
	if err != nil {
		return nil, err
	}
	if err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		admin.Close()
		return nil, fmt.Errorf("cannot reach ClickHouse at %s (start it with `bin/hiringsignal stores up`): %w", addr, err)
	}
	admin.Close()
	if err := analytics.EnsureDatabase(ctx, opts); err != nil {
		return nil, err
	}
	ch, err := analytics.Open(opts)
	if err != nil {
		return nil, err
	}
	return ch, analytics.Migrate(ctx, ch, opts, nil)
}

// importRegistry imports the world's registry CSV as an operator would (`sources import --apply`),
// with --tenants-only the rows of ATS tenants and companies without one only.
func (b *bench) importRegistry(ctx context.Context) error {
	f, err := os.Open(b.w.CSVFile)
	if err != nil {
		return err
	}
	defer f.Close()
	var in io.Reader = f
	if b.o.tenantsOnly {
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return fmt.Errorf("cannot read the world's registry: %w", err)
		}
		vendor := slices.Index(sim.RegistryColumns, "vendor")
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		for i, r := range rows {
			if i == 0 || (r[vendor] != "jsonld" && r[vendor] != "aggregator") {
				_ = w.Write(r)
			}
		}
		w.Flush()
		in = &buf
	}
	start := time.Now()
	rep, err := sources.Import(ctx, b.pool, in, sources.ImportOptions{File: "world.csv", By: "windowbench", Apply: true})
	if err != nil {
		return err
	}
	fmt.Printf("registry import: %d rows in %.1fs\n", rep.Rows, time.Since(start).Seconds())
	return nil
}

// fetchBesidePlainGets reads every ATS tenant of the window with a fresh crawler
// (Crawler.ReadSources: fetch, parse, normalize; no Postgres), recording the URLs the world
// served, then GETs the same URLs with plain net/http at the same concurrency through a transport
// built as the fetcher's (same dial mapping, TLS roots, connection limits), reading and
// gunzipping each body. Boards and aggregator feeds are left out: each is a chain of up to
// thousands of pages read one after another, which a flat list of GETs need not respect; they
// are in the window figures.
func (b *bench) fetchBesidePlainGets(ctx context.Context, dir *pipeline.Directory) error {
	var keys []string
	for _, s := range dir.Sources {
		if s.Kind == "ats_tenant" {
			keys = append(keys, s.Key)
		}
	}
	c, err := pipeline.NewCrawler(ctx, b.ch, pipeline.Config{Log: b.quiet, Fetch: b.fc})
	if err != nil {
		return err
	}
	if err := b.w.record(ctx); err != nil {
		return err
	}
	b.log.Info("the crawler reads the ATS tenants", "sources", len(keys))
	m, err := mark(ctx, b.w)
	if err != nil {
		return err
	}
	const chunk = 4096 // bounds the reads held at once; a chunk waits only for its slowest tenant
	pages, postings, failed := 0, 0, 0
	for i := 0; i < len(keys); i += chunk {
		reads, err := c.ReadSources(ctx, dir, uint32(b.o.tick), keys[i:min(i+chunk, len(keys))])
		if err != nil {
			return err
		}
		for _, r := range reads {
			pages += r.Pages
			postings += r.Postings
			if r.Status != pipeline.StatusOK {
				failed++
			}
		}
	}
	crawl, err := since(ctx, b.w, m)
	if err != nil {
		return err
	}
	urls, err := b.w.recorded(ctx)
	if err != nil {
		return err
	}
	c = nil
	runtime.GC()

	f, err := pipeline.NewFetcher(b.fc) // a fresh transport, configured as the crawler's
	if err != nil {
		return err
	}
	b.log.Info("plain GETs of the same URLs", "urls", len(urls))
	if m, err = mark(ctx, b.w); err != nil {
		return err
	}
	n, nbytes, bad := plainGets(ctx, f.Client(), urls, b.o.fetchWorkers)
	plain, err := since(ctx, b.w, m)
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d plain GETs failed; the baseline is not comparable", bad, len(urls))
	}
	crawlRate := float64(crawl.requests) / crawl.wall.Seconds()
	plainRate := float64(n) / plain.wall.Seconds()
	fmt.Printf("crawler read:  %6d tenants (%d failed), %6d pages, %7d postings, %6d requests in %6.1fs: %6.0f req/s, CPU %s cores (crawl + world), load %s\n",
		len(keys), failed, pages, postings, crawl.requests, crawl.wall.Seconds(), crawlRate, crawl.cores(), crawl.load)
	fmt.Printf("plain GETs:    %6d URLs, %.0f MB decoded, in %6.1fs: %6.0f req/s, CPU %s cores (client + world), load %s\n",
		n, float64(nbytes)/1e6, plain.wall.Seconds(), plainRate, plain.cores(), plain.load)
	fmt.Printf("CPU per request: crawler %.2f ms, plain GET %.2f ms (this process); the world %.2f / %.2f ms\n\n",
		ms(crawl.self)/float64(crawl.requests), ms(plain.self)/float64(n), ms(crawl.world)/float64(crawl.requests), ms(plain.world)/float64(n))
	b.rows = append(b.rows, []string{
		fmt.Sprintf("crawler's read of the %d ATS tenants (ReadSources: fetch, parse, normalize; %d requests incl. robots.txt)", len(keys), crawl.requests),
		fmt.Sprintf("%.0f req/s (%.1f s)", crawlRate, crawl.wall.Seconds()),
		fmt.Sprintf("plain GETs of the same URLs: %.0f req/s (%.1f s)", plainRate, plain.wall.Seconds()),
		fmt.Sprintf("**%.2f**", crawlRate/plainRate), "—", "—"})
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// plainGets sends every recorded request with conc goroutines (a GET, or Workday's POST with its
// body), reading and gunzipping each body.
func plainGets(ctx context.Context, client *http.Client, urls []string, conc int) (n int, nbytes int64, failed int) {
	var next, total, bad atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var zr gzip.Reader
			for {
				i := int(next.Add(1)) - 1
				if i >= len(urls) {
					return
				}
				size, err := get(ctx, client, urls[i], &zr)
				if err != nil {
					bad.Add(1)
					continue
				}
				total.Add(size)
			}
		}()
	}
	wg.Wait()
	return len(urls), total.Load(), int(bad.Load())
}

// get sends one recorded request (world.recorded: a URL, or "METHOD URL BODY") and reads its
// body whole, gunzipped.
func get(ctx context.Context, client *http.Client, recorded string, zr *gzip.Reader) (int64, error) {
	method, url, body := http.MethodGet, recorded, ""
	if m, rest, ok := strings.Cut(recorded, " "); ok {
		method = m
		url, body, _ = strings.Cut(rest, " ")
	}
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("User-Agent", pipeline.DefaultUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		if err := zr.Reset(resp.Body); err != nil {
			return 0, err
		}
		r = zr
	}
	return io.Copy(io.Discard, r)
}

// saveSchedule keeps the sources' due times as imported, so every window read claims the
// sources in the same order (the import's: by key, as `crawl --once` after an import does).
func (b *bench) saveSchedule(ctx context.Context) error {
	for _, q := range []string{
		`CREATE TABLE windowbench_due AS SELECT source_key, next_due_at FROM crawl_sources`,
		`VACUUM ANALYZE crawl_sources`, `VACUUM ANALYZE crawl_reads`,
	} {
		if _, err := b.pool.Exec(ctx, q); err != nil {
			return fmt.Errorf("cannot prepare the registry for the window reads (%s): %w", q, err)
		}
	}
	return nil
}

// resetReads undoes a window read: its reads and carried chains deleted, the leases, due times and health of the
// sources as imported, and both tables vacuumed so the next read starts as the first did.
func (b *bench) resetReads(ctx context.Context) error {
	for _, q := range []string{
		`DELETE FROM crawl_reads WHERE tick = ` + fmt.Sprint(b.o.tick),
		`DELETE FROM crawl_chains`, // every read starts the chains at their first page
		`UPDATE crawl_sources s SET lease_owner = NULL, lease_until = NULL, next_due_at = d.next_due_at, last_status = NULL, last_reason = NULL,
			last_count = NULL, last_ok_count = NULL, last_ok_at = NULL, consecutive_failures = 0 FROM windowbench_due d WHERE d.source_key = s.source_key`,
		`VACUUM ANALYZE crawl_sources`, `VACUUM ANALYZE crawl_reads`,
	} {
		if _, err := b.pool.Exec(ctx, q); err != nil {
			return fmt.Errorf("cannot reset the window's reads (%s): %w", q, err)
		}
	}
	return nil
}

// windowRead is one read of the whole window.
type windowRead struct {
	workers int
	took    time.Duration
}

// readWindow reads every source of the window with n workers at once in this process, each a
// sources.Crawl with its own Crawler (so its own fetcher, connections and concurrency), as n
// `crawl --role worker` processes would. The work is waiting on the world (latency) and on
// Postgres; the CPU columns say how much of the two cores it used.
func (b *bench) readWindow(ctx context.Context, n int) (*windowRead, error) {
	pg := &pgCount{}
	cfg := b.pool.Config().Copy()
	cfg.ConnConfig.Tracer = pg
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	workers := make([]*sources.Crawl, n)
	for i := range workers {
		c, err := pipeline.NewCrawler(ctx, b.ch, pipeline.Config{Log: b.quiet, Fetch: b.fc})
		if err != nil {
			return nil, err
		}
		workers[i] = &sources.Crawl{Pool: pool, Crawler: c, Codec: b.codec, Clock: b.clock, Owner: fmt.Sprintf("worker-%d", i+1), Batch: b.o.claimBatch,
			StoreBatch: b.o.storeBatch, ChainPart: b.o.chainPart, WindowPages: b.o.windowPages}
	}
	b.log.Info("reading the window", "workers", n)
	m, err := mark(ctx, b.w)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	claimed, stopWatch := b.watchClaims(ctx, start)
	counts := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[i], errs[i] = wk.ReadDue(ctx, b.o.tick, true)
		}()
	}
	wg.Wait()
	stopWatch()
	sp, err := since(ctx, b.w, m)
	if err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	s, err := b.summarize(ctx, start, claimed)
	if err != nil {
		return nil, err
	}
	label := "1 worker"
	if n > 1 {
		label = fmt.Sprintf("%d workers", n)
	}
	rate := float64(s.sources) / sp.wall.Seconds()
	fmt.Printf("window read, %s: %d sources (by worker %v; %d not ok), %d pages, %d postings, %d requests, %.1f MB of reads stored, in %.1fs: %.0f sources/s, %.0f req/s; "+
		"ATS tenants all read at %.1fs; CPU %s cores (crawl + world), load %s\n",
		label, s.sources, counts, s.notOK, s.pages, s.postings, sp.requests, float64(s.stored)/1e6, sp.wall.Seconds(), rate, float64(sp.requests)/sp.wall.Seconds(),
		s.tenantsDone.Seconds(), sp.cores(), sp.load)
	var stores int64
	var taken, dropped uint64
	for _, wk := range workers {
		stores += wk.Stores()
		t, d := wk.Crawler.Fetcher().ChainPages()
		taken, dropped = taken+t, dropped+d
	}
	fmt.Printf("  long sources (%d pages or more, claimed first once their pages are known): %d; chains carried to the next window (partial reads): %d\n",
		oltp.LongSourcePages, s.long, s.carried)
	fmt.Printf("  Postgres: %s (%d stores of reads); the statements that took longest in all:\n", pg, stores)
	for _, l := range pg.Top(6) {
		fmt.Printf("    %s\n", l)
	}
	fmt.Printf("  pages of numbered chains read ahead: %d taken, %d dropped (past a chain's end, or a guess disproved)\n", taken, dropped)
	for _, l := range s.last {
		fmt.Printf("  last read: %s\n", l)
	}
	for _, l := range s.longest {
		fmt.Printf("  longest chain: %s\n", l)
	}
	for _, l := range s.notOKs {
		fmt.Printf("  not ok: %s\n", l)
	}
	fmt.Println()
	b.rows = append(b.rows, []string{fmt.Sprintf("window read, %s (%d sources, %d pages; tenants all read at %.0f s)", label, s.sources, s.pages, s.tenantsDone.Seconds()),
		fmt.Sprintf("%.0f sources/s (%.1f s)", rate, sp.wall.Seconds()), "—", "—", "—", "—"})
	return &windowRead{workers: n, took: sp.wall}, nil
}

// watchClaims notes, every 250 ms until stop, when each source that is not an ATS tenant (the
// boards and feeds: the chains of pages) was first seen leased, from start: where in the window
// read its chain began. Its granularity is the poll's.
func (b *bench) watchClaims(ctx context.Context, start time.Time) (claimed map[string]time.Duration, stop func()) {
	claimed = map[string]time.Duration{}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			rows, err := b.pool.Query(ctx, `SELECT source_key FROM crawl_sources WHERE kind <> 'ats_tenant' AND lease_owner IS NOT NULL`)
			if err == nil {
				keys, _ := pgx.CollectRows(rows, pgx.RowTo[string])
				at := time.Since(start)
				for _, k := range keys {
					if _, ok := claimed[k]; !ok {
						claimed[k] = at
					}
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return claimed, func() { cancel(); <-done }
}

type readSummary struct {
	sources, pages, postings, notOK int
	long                            int // reads of oltp.LongSourcePages pages or more
	carried                         int // partial reads: chains carried to the next window
	stored                          int64
	tenantsDone                     time.Duration
	last, notOKs, longest           []string
}

// summarize reads what a window read stored: counts, the time the last ATS tenant's read was
// stored (read_at is stamped when a source's read ends), the last reads, the longest chains of
// pages and the reads not ok.
func (b *bench) summarize(ctx context.Context, start time.Time, claimed map[string]time.Duration) (readSummary, error) {
	var s readSummary
	var tenants *time.Time
	err := b.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(r.pages), 0), coalesce(sum(r.postings), 0), count(*) FILTER (WHERE r.status <> 'ok'),
			coalesce(sum(octet_length(r.sightings)), 0), max(r.read_at) FILTER (WHERE s.kind = 'ats_tenant'), count(*) FILTER (WHERE r.pages >= $2),
			count(*) FILTER (WHERE r.status = 'partial')
		FROM crawl_reads r JOIN crawl_sources s USING (source_key) WHERE r.tick = $1`, b.o.tick, oltp.LongSourcePages).
		Scan(&s.sources, &s.pages, &s.postings, &s.notOK, &s.stored, &tenants, &s.long, &s.carried)
	if err != nil {
		return s, fmt.Errorf("cannot summarize the window's reads: %w", err)
	}
	if tenants != nil {
		s.tenantsDone = tenants.Sub(start)
	}
	rows, err := b.pool.Query(ctx, `SELECT source_key, worker, pages, read_at FROM crawl_reads WHERE tick = $1 ORDER BY read_at DESC, source_key LIMIT 3`, b.o.tick)
	if err != nil {
		return s, err
	}
	for rows.Next() {
		var key, worker string
		var pages int
		var at time.Time
		if err := rows.Scan(&key, &worker, &pages, &at); err != nil {
			rows.Close()
			return s, err
		}
		s.last = append(s.last, fmt.Sprintf("%s (%d pages, %s) at %.1fs", key, pages, worker, at.Sub(start).Seconds()))
	}
	rows.Close()
	// The longest chains of pages: a job-page board's pages are read one after another (each
	// names the next job's page), so the window read ends no sooner than its longest such chain,
	// however many workers read it; a numbered chain (a list board's ?page=N) is read ahead.
	rows, err = b.pool.Query(ctx, `SELECT source_key, worker, pages, status, read_at FROM crawl_reads WHERE tick = $1
		ORDER BY pages DESC, source_key LIMIT 5`, b.o.tick)
	if err != nil {
		return s, err
	}
	for rows.Next() {
		var key, worker, status string
		var pages int
		var at time.Time
		if err := rows.Scan(&key, &worker, &pages, &status, &at); err != nil {
			rows.Close()
			return s, err
		}
		line := fmt.Sprintf("%s: %d pages, %s, stored by %s at %.1fs", key, pages, status, worker, at.Sub(start).Seconds())
		if c, ok := claimed[key]; ok && pages > 0 {
			line += fmt.Sprintf(" (claimed at %.1fs: %.0f ms a page)", c.Seconds(), ms(at.Sub(start)-c)/float64(pages))
		}
		s.longest = append(s.longest, line)
	}
	rows.Close()
	rows, err = b.pool.Query(ctx, `SELECT source_key, status, reason, pages FROM crawl_reads WHERE tick = $1 AND status <> 'ok' ORDER BY source_key LIMIT 10`, b.o.tick)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var key, status, reason string
		var pages int
		if err := rows.Scan(&key, &status, &reason, &pages); err != nil {
			return s, err
		}
		s.notOKs = append(s.notOKs, fmt.Sprintf("%s: %s (%s)", key, status, reason))
	}
	return s, rows.Err()
}

// commit commits the window from the reads stored by the last window read, with a fresh
// committer (as a `crawl --role committer` process holds its own Crawler), after the baseline:
// the same reads loaded back and decoded, no commit.
func (b *bench) commit(ctx context.Context) error {
	debug.FreeOSMemory()
	h0 := heapNow()
	start := time.Now()
	reads := map[string]*pipeline.SourceRead{}
	var sightings int64
	err := oltp.CrawlReads(ctx, b.pool, b.o.tick, func(row oltp.CrawlRead) error {
		r := &pipeline.SourceRead{SourceKey: row.SourceKey, Tick: uint32(b.o.tick), ReadAt: row.ReadAt, Status: row.Status, Reason: row.Reason,
			Pages: row.Pages, Postings: row.Postings, Malformed: row.Malformed}
		sightings += int64(len(row.Sightings))
		reads[r.SourceKey] = r
		return b.codec.Decode(r, row.Sightings)
	})
	if err != nil {
		return err
	}
	loadTook := time.Since(start)
	held := heapNow() - h0
	nreads := len(reads)
	runtime.KeepAlive(reads)
	reads = nil
	fmt.Printf("reads loaded back (no commit): %d reads, %.1f MB stored, in %.1fs; %s of heap held decoded\n", nreads, float64(sightings)/1e6, loadTook.Seconds(), mib(held))

	pg := &pgCount{}
	cfg := b.pool.Config().Copy()
	cfg.ConnConfig.Tracer = pg
	tpool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer tpool.Close()
	cc := &chCount{Conn: b.ch}
	c, err := pipeline.NewCrawler(ctx, cc, pipeline.Config{Log: b.quiet, Fetch: b.fc})
	if err != nil {
		return err
	}
	cc.reset() // the ledger's state is loaded once per committer process, not per window
	committer := &sources.Crawl{Pool: tpool, Crawler: c, Codec: b.codec, Clock: b.clock, Owner: "committer"}

	debug.FreeOSMemory()
	heapBefore := heapNow()
	if err := resetPeakRSS(); err != nil {
		return err
	}
	_, rssBefore := rss()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	hw := watchHeap()
	m, err := mark(ctx, b.w)
	if err != nil {
		return err
	}
	b.log.Info("committing the window")
	if err := b.o.prof.Begin(); err != nil {
		return err
	}
	stats, err := committer.Commit(ctx, b.o.tick, b.w.CycleTime)
	if err != nil {
		return err
	}
	if err := b.o.prof.End(); err != nil {
		return err
	}
	sp, err := since(ctx, b.w, m)
	if err != nil {
		return err
	}
	peakHeap, peakLive, gcs, gcCPU := hw.end()
	peakRSS, _ := rss()
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	if len(stats) != 7 {
		return fmt.Errorf("the commit returned %d regions, want 7", len(stats))
	}
	var events, postings, notFetched, failed int
	var collect, emit time.Duration
	for _, st := range stats {
		if st.Skipped {
			return fmt.Errorf("region %s was skipped: the ledger database was not fresh", st.Region)
		}
		events += st.Events
		postings += st.Postings
		notFetched += st.NotFetched
		failed += st.SourcesFailed + st.Blocked
		collect = max(collect, st.CollectTook)
		emit += st.EmitTook
	}
	sort.Slice(stats, func(i, j int) bool { return stats[i].Region < stats[j].Region })
	fmt.Printf("commit: %d postings, %d events, %d sources unread (%d not fetched) in %.1fs (collect %.1fs, emit %.1fs); CPU %.1fs (%.2f cores), load %s\n",
		postings, events, failed+notFetched, notFetched, sp.wall.Seconds(), collect.Seconds(), emit.Seconds(), sp.self.Seconds(), sp.self.Seconds()/sp.wall.Seconds(), sp.load)
	fmt.Printf("commit memory: live heap %s before, peak %s (marked live by a GC), heap objects peak %s; RSS %s before, peak %s; %.0f MB allocated, %d GCs, GC CPU %.1fs (the runtime's estimate: idle-time marking counts)\n",
		mib(heapBefore), mib(peakLive), mib(peakHeap), mib(uint64(rssBefore)), mib(uint64(peakRSS)),
		float64(ms1.TotalAlloc-ms0.TotalAlloc)/1e6, gcs, gcCPU.Seconds())
	fmt.Printf("commit reads: Postgres %s (crawl_reads: %d reads, %.1f MB of sightings); ClickHouse %s\n\n", pg, nreads, float64(sightings)/1e6, cc)

	b.rows = append(b.rows,
		[]string{fmt.Sprintf("commit of the window (%d reads, %d postings, %d events)", nreads, postings, events),
			fmt.Sprintf("**%.1f s**", sp.wall.Seconds()), fmt.Sprintf("reads loaded back and decoded, no commit: %.1f s", loadTook.Seconds()),
			fmt.Sprintf("%.1f× (time)", sp.wall.Seconds()/loadTook.Seconds()), "—", "—"},
		[]string{"commit: peak live heap / heap objects / RSS",
			fmt.Sprintf("**%s** / %s / **%s**", mib(peakLive), mib(peakHeap), mib(uint64(peakRSS))), fmt.Sprintf("the window's reads held decoded: %s", mib(held)),
			fmt.Sprintf("%.1f× (live heap)", float64(peakLive)/float64(max(held, 1))), "—", "—"},
		[]string{"commit: store reads and writes", fmt.Sprintf("Postgres %s; ClickHouse %s", pg, cc), "—", "—", "—", "—"},
	)
	return nil
}
