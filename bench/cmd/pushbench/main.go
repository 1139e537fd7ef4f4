// Command pushbench measures push end to end, as `serve` runs it: cycles of --events ledger
// events are committed to a throwaway ClickHouse database; the real read snapshot learns of each
// commit by its poll (nudged by the notifier's commit poll), the real notifier matches the cycle
// against --company-watches company watches (which the events match) and --criteria-watches
// criteria watches (which they do not: they sit in the index the events are matched through) and
// writes the deliveries, and the real dispatcher signs and POSTs them to a loopback receiver.
// Beside it, in the same run, a plain Go client POSTs the same bodies to the same receiver. It
// prints, per cycle, commit → first POST and commit → every POST, and the notifier's write rate,
// as Markdown for bench/README.md. It is never run by `make test`.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/bench/benchdb"
	"github.com/planehq/hiringsignal/bench/deliverykit"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/dispatch"
	"github.com/planehq/hiringsignal/push/notifier"
	"github.com/planehq/hiringsignal/read/snapshot"
)

type options struct {
	pgURL, chAddr                       string
	events, cycles, companyWatches      int
	criteriaWatches, endpoints, workers int
	readRefresh                         time.Duration
	log                                 *slog.Logger
}

func main() {
	var o options
	flag.StringVar(&o.pgURL, "postgres-url", flagenv.Env("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"), "Postgres server (a throwaway schema is created and dropped; env HS_POSTGRES_URL)")
	flag.StringVar(&o.chAddr, "clickhouse-addr", flagenv.Env("HS_CLICKHOUSE_ADDR", "127.0.0.1:59000"), "ClickHouse native address (a throwaway database is created and dropped; env HS_CLICKHOUSE_ADDR)")
	flag.IntVar(&o.events, "events", 20_000, "opened events per cycle, every one matching exactly one company watch")
	flag.IntVar(&o.cycles, "cycles", 3, "cycles committed one after the other (each waits until the previous one is delivered)")
	flag.IntVar(&o.companyWatches, "company-watches", 1000, "company watches the events are spread over")
	flag.IntVar(&o.criteriaWatches, "criteria-watches", 10_000, "criteria watches (function × country outside the events' country) in the notifier's index")
	flag.IntVar(&o.endpoints, "endpoints", 4, "webhook endpoints on the loopback receiver the watches deliver to")
	flag.IntVar(&o.workers, "workers", 64, "deliveries in flight (--delivery-workers), and the baseline's workers")
	flag.DurationVar(&o.readRefresh, "read-refresh", 5*time.Second, "the read snapshot's poll (serve's --read-refresh)")
	debug := flag.Bool("debug", false, "log the notifier, snapshot and dispatcher at debug level to stderr")
	flag.Parse()
	o.log = slog.New(slog.DiscardHandler)
	if *debug {
		o.log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "pushbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	pool, drop, err := benchdb.ThrowawaySchema(ctx, o.pgURL, "bench_push_")
	if err != nil {
		return err
	}
	defer drop()
	ch, dropCH, err := throwawayClickHouse(ctx, o.chAddr)
	if err != nil {
		return err
	}
	defer dropCH()

	rc := newReceiver()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close(); <-served }()
	base := "http://" + ln.Addr().String()

	box, err := secretbox.New(secretbox.GenerateKey())
	if err != nil {
		return err
	}
	fx, err := newFixture(ctx, pool, box, base, o)
	if err != nil {
		return err
	}

	// serve's wiring (cmd/hiringsignal/serve.go): the snapshot wakes the notifier on every build,
	// the notifier nudges the snapshot when its commit poll sees a newer committed watermark.
	set := metrics.NewSet()
	listener := pglisten.New(pglisten.Config{ConnConfig: pool.Config().ConnConfig, Log: o.log, Metrics: set})
	var notify *notifier.Notifier
	snap := snapshot.New(snapshot.Config{ClickHouse: ch, Log: o.log, Poll: o.readRefresh,
		OnBuild: func(time.Duration, error) { notify.Wake() }})
	notify = notifier.New(notifier.Config{Pool: pool, ClickHouse: ch, Snapshots: snap, Nudge: snap.Nudge, Log: o.log, Metrics: set})
	disp, err := dispatch.New(dispatch.Config{Pool: pool, Listener: listener, Box: box, Egress: egress.Policy{AllowHTTP: true, AllowPrivate: true},
		Log: o.log, Workers: o.workers, Metrics: set})
	if err != nil {
		return err
	}
	for _, p := range []interface{ Start(context.Context) error }{listener, snap, notify, disp} {
		if err := p.Start(ctx); err != nil {
			return err
		}
	}
	defer func() { _ = disp.Stop(ctx); _ = notify.Stop(ctx); _ = snap.Stop(ctx); _ = listener.Stop(ctx) }()
	if err := waitFor(time.Minute, func() bool { _, err := oltp.NotifierPosition(ctx, pool); return err == nil }); err != nil {
		return fmt.Errorf("the notifier never set its position: %w", err)
	}

	var cycles []cycleResult
	var baselines []deliverykit.Result
	for c := range o.cycles {
		r, err := fx.cycle(ctx, ch, rc, snap, uint32(c), o)
		if err != nil {
			return err
		}
		cycles = append(cycles, r)
		urls, bodies, err := fx.bodies(ctx, r.seqFrom, r.seqTo)
		if err != nil {
			return err
		}
		rc.reset()
		b := deliverykit.PlainPosts(urls, bodies, o.workers)
		baselines = append(baselines, b)
		fmt.Fprintf(os.Stderr, "cycle %d: %d delivered, first POST %s after the commit, last %s; baseline %.0f/s\n",
			c+1, r.n, r.first.Round(time.Millisecond), r.last.Round(time.Millisecond), float64(b.N)/b.Took.Seconds())
	}
	var billed int64
	if err := pool.QueryRow(ctx, "SELECT COALESCE(sum(units), 0) FROM usage_monthly").Scan(&billed); err != nil {
		return err
	}
	report(o, cycles, baselines, billed)
	return nil
}

// throwawayClickHouse creates a migrated database of its own and returns a connection to it and
// the function that closes it and drops the database.
func throwawayClickHouse(ctx context.Context, addr string) (driver.Conn, func(), error) {
	var b [5]byte
	_, _ = rand.Read(b[:])
	opts := analytics.Options{Addr: addr, Database: "hs_bench_push_" + hex.EncodeToString(b[:])}
	if err := analytics.EnsureDatabase(ctx, opts); err != nil {
		return nil, nil, fmt.Errorf("cannot reach ClickHouse at %s (run `bin/hiringsignal stores up` or pass --clickhouse-addr): %w", addr, err)
	}
	drop := func() {
		if admin, err := analytics.Open(analytics.Options{Addr: addr, Database: "default"}); err == nil {
			_ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+opts.Database)
			_ = admin.Close()
		}
	}
	conn, err := analytics.Open(opts)
	if err != nil {
		drop()
		return nil, nil, err
	}
	if err := analytics.Migrate(ctx, conn, opts, nil); err != nil {
		_ = conn.Close()
		drop()
		return nil, nil, err
	}
	return conn, func() { _ = conn.Close(); drop() }, nil
}

// receiver answers 200 to every POST and keeps the first arrival of each webhook-id.
type receiver struct {
	mu    sync.Mutex
	first map[string]time.Time
	posts int
}

func newReceiver() *receiver { return &receiver{first: map[string]time.Time{}} }

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	_, _ = io.Copy(io.Discard, r.Body)
	id := r.Header.Get("webhook-id")
	rc.mu.Lock()
	rc.posts++
	if _, seen := rc.first[id]; !seen && id != "" {
		rc.first[id] = at
	}
	rc.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (rc *receiver) distinct() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.first)
}

// arrivals returns the first arrivals and clears them.
func (rc *receiver) arrivals() []time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]time.Time, 0, len(rc.first))
	for _, at := range rc.first {
		out = append(out, at)
	}
	rc.first, rc.posts = map[string]time.Time{}, 0
	return out
}

func (rc *receiver) reset() { _ = rc.arrivals() }

// fixture is the account, its endpoints and watches.
type fixture struct {
	pool      *pgxpool.Pool
	base      string
	acct      oltp.NewAccount
	companies []uint64 // watched companies, in order
	next      uint64   // the next event_seq
	at        time.Time
}

func newFixture(ctx context.Context, pool *pgxpool.Pool, box *secretbox.Box, base string, o options) (*fixture, error) {
	a, err := oltp.CreateAccount(ctx, pool, "enterprise", "pushbench-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@example.com")
	if err != nil {
		return nil, err
	}
	f := &fixture{pool: pool, base: base, acct: a, next: 1, at: time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)}
	var endpoints []int64
	for i := range o.endpoints {
		e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, base+"/hooks/"+strconv.Itoa(i), oltp.EndpointSecret{Secret: signing.NewSecret()})
		if err != nil {
			return nil, err
		}
		endpoints = append(endpoints, e.ID)
	}
	allowance := int64(o.companyWatches + o.criteriaWatches)
	for i := range o.companyWatches {
		company := int64(1000 + i)
		if _, _, _, err := oltp.CreateWatch(ctx, pool, box, oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID,
			Allowance: allowance, EndpointID: endpoints[i%len(endpoints)], CompanyID: &company, EventTypes: []string{"opened"},
			MaxFiresPerHour: 1000, Budgets: oltp.Budgets{WatchesPerDay: int(allowance)}}); err != nil {
			return nil, err
		}
		f.companies = append(f.companies, uint64(company))
	}
	var functions []string
	for _, fn := range normalize.Functions() {
		functions = append(functions, fn.ID)
	}
	countries := slices.DeleteFunc(slices.Clone(normalize.CountryNames()), func(c string) bool { return c == "Germany" })
	for i := range o.criteriaWatches {
		raw, _ := json.Marshal(map[string]any{"req": map[string]any{
			"function": []string{functions[i%len(functions)]}, "country": []string{countries[(i/len(functions))%len(countries)]}}})
		if _, _, _, err := oltp.CreateWatch(ctx, pool, box, oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID,
			Allowance: allowance, EndpointID: endpoints[i%len(endpoints)], Criteria: raw, EventTypes: []string{"opened"},
			MaxFiresPerHour: 1000, Budgets: oltp.Budgets{WatchesPerDay: int(allowance)}}); err != nil {
			return nil, fmt.Errorf("cannot create criteria watch %s: %w", raw, err)
		}
	}
	return f, nil
}

// cycleResult is one cycle, measured from its commit.
type cycleResult struct {
	n              int
	seqFrom, seqTo uint64
	first, last    time.Duration   // commit → first and last POST
	each           []time.Duration // commit → each delivery's first POST
	built          time.Duration   // commit → the read snapshot holding the cycle swapped in
	visible        time.Duration   // commit → the first delivery rows of the cycle visible (to within 50 ms)
	written        time.Duration   // commit → every delivery row of the cycle visible
}

// cycle commits the next cycle of o.events opened events and waits until every one is received.
func (f *fixture) cycle(ctx context.Context, ch driver.Conn, rc *receiver, snap *snapshot.Service, tick uint32, o options) (cycleResult, error) {
	at := f.at.Add(time.Duration(tick) * time.Minute)
	fn := normalize.Functions()[0].ID
	rows := make([]analytics.Event, o.events)
	from := f.next
	cos := map[uint64]bool{}
	for i := range rows {
		s := f.next
		f.next++
		company := f.companies[i%len(f.companies)]
		cos[company] = true
		rows[i] = analytics.Event{Seq: s, Type: "opened", ReqKey: fmt.Sprintf("req-%d", s), CompanyID: company, Region: "bench",
			Tick: tick, OccurredAt: at, ObservedAt: at, FirstSeen: at, RawTitle: fmt.Sprintf("Senior Backend Engineer (Go) %d", s),
			Function: fn, Country: "Germany", Location: "Berlin, Germany", SourceType: "ats", Board: "greenhouse",
			Boards: []string{"greenhouse"}, URL: fmt.Sprintf("https://boards.example.com/acme/jobs/%d", s)}
	}
	var companies []analytics.Company
	for id := range cos {
		companies = append(companies, analytics.Company{CompanyID: id, Name: fmt.Sprintf("Company %d", id), Region: "bench", UpdatedAt: at})
	}
	c := analytics.Cycle{Region: "bench", Tick: tick, CycleTime: at, StartedAt: at, Events: uint64(len(rows)), SeqFrom: from, SeqTo: f.next - 1}
	if err := analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: rows, Companies: companies, Cycle: c}, 10_000); err != nil {
		return cycleResult{}, fmt.Errorf("cannot commit cycle %d: %w", tick, err)
	}
	committed := time.Now()
	// The notifier's rows carry their transaction's start (created_at): when they became visible
	// is seen by counting them, every 50 ms, until all are.
	var built, visible, written time.Time
	var wg sync.WaitGroup
	wg.Go(func() {
		for snap.Current().Watermark < f.next-1 && time.Since(committed) < 5*time.Minute {
			time.Sleep(5 * time.Millisecond)
		}
		built = time.Now()
	})
	wg.Go(func() {
		for {
			var n int
			err := f.pool.QueryRow(ctx, "SELECT count(*) FROM webhook_deliveries WHERE event_seq BETWEEN $1 AND $2",
				int64(from), int64(f.next-1)).Scan(&n)
			if n > 0 && visible.IsZero() {
				visible = time.Now()
			}
			if err != nil || n >= o.events || time.Since(committed) > 5*time.Minute {
				written = time.Now()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	err := waitFor(5*time.Minute, func() bool { return rc.distinct() >= o.events })
	wg.Wait()
	if err != nil {
		return cycleResult{}, fmt.Errorf("cycle %d: %d of %d deliveries received: %w", tick, rc.distinct(), o.events, err)
	}
	r := cycleResult{n: o.events, seqFrom: from, seqTo: f.next - 1}
	for _, a := range rc.arrivals() {
		r.each = append(r.each, a.Sub(committed))
	}
	slices.Sort(r.each)
	r.first, r.last = r.each[0], r.each[len(r.each)-1]
	r.built, r.visible, r.written = built.Sub(committed), visible.Sub(committed), written.Sub(committed)
	return r, nil
}

// bodies reads the delivered bodies of the cycle's events, with their endpoints' URLs.
func (f *fixture) bodies(ctx context.Context, from, to uint64) ([]string, [][]byte, error) {
	rows, err := f.pool.Query(ctx, `SELECT e.url, d.body FROM webhook_deliveries d JOIN webhook_endpoints e USING (endpoint_id)
		WHERE d.event_seq BETWEEN $1 AND $2 ORDER BY d.event_seq`, int64(from), int64(to))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the cycle's bodies: %w", err)
	}
	defer rows.Close()
	var urls []string
	var bodies [][]byte
	for rows.Next() {
		var u string
		var b []byte
		if err := rows.Scan(&u, &b); err != nil {
			return nil, nil, err
		}
		urls, bodies = append(urls, u), append(bodies, b)
	}
	return urls, bodies, rows.Err()
}

func report(o options, cs []cycleResult, bs []deliverykit.Result, billed int64) {
	fmt.Printf("%d cycles of %d opened events; %d company watches (every event matches one) and %d criteria watches (none match) "+
		"on %d endpoints of one loopback receiver; %d delivery workers; read snapshot poll %s; GOMAXPROCS=%d\n\n",
		o.cycles, o.events, o.companyWatches, o.criteriaWatches, o.endpoints, o.workers, o.readRefresh, runtime.GOMAXPROCS(0))
	fmt.Println("| cycle | deliveries | commit → first POST | commit → p50 POST | p95 | last POST | commit → snapshot built | first rows committed | all rows | notifier rows/s | end-to-end deliveries/s | baseline POSTs/s | ratio |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var firsts, all []time.Duration
	for i, c := range cs {
		b := bs[i]
		base := float64(b.N) / b.Took.Seconds()
		e2e := float64(c.n) / (c.last - c.first).Seconds()
		rate := "–" // one batch: the rows became visible at once
		if c.written > c.visible {
			rate = fmt.Sprintf("%.0f", float64(c.n)/(c.written-c.visible).Seconds())
		}
		fmt.Printf("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f | %.2f |\n", i+1, c.n,
			c.first.Round(time.Millisecond), deliverykit.Pct(c.each, 0.5).Round(time.Millisecond), deliverykit.Pct(c.each, 0.95).Round(time.Millisecond),
			c.last.Round(time.Millisecond), c.built.Round(time.Millisecond), c.visible.Round(time.Millisecond), c.written.Round(time.Millisecond), rate, e2e, base, e2e/base)
		firsts = append(firsts, c.first)
		all = append(all, c.each...)
	}
	fmt.Println()
	fmt.Printf("commit → first POST of a cycle: p50 %s, p95 %s, max %s over %d cycles\n", deliverykit.Pct(firsts, 0.5).Round(time.Millisecond),
		deliverykit.Pct(firsts, 0.95).Round(time.Millisecond), slices.Max(firsts).Round(time.Millisecond), len(firsts))
	fmt.Printf("commit → every delivery's first POST: p50 %s, p95 %s over %d deliveries\n", deliverykit.Pct(all, 0.5).Round(time.Millisecond),
		deliverykit.Pct(all, 0.95).Round(time.Millisecond), len(all))
	fmt.Printf("delivered_change units billed: %d (deliveries: %d)\n", billed, len(all))
}

func waitFor(within time.Duration, cond func() bool) error {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", within)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}
