// Command deliverybench measures the webhook dispatcher: it writes --deliveries pending
// deliveries straight into a throwaway Postgres schema (one account, --endpoints endpoints with
// a watch each, all on one loopback receiver), runs the real dispatch.Dispatcher until every one
// is delivered, recorded and billed, and beside it, in the same run and against the same
// receiver, a baseline: a plain Go HTTP client POSTing the same bodies with as many workers. It
// prints Markdown for bench/README.md. It is never run by `make test`.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/dispatch"
	"github.com/planehq/hiringsignal/egress"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/payload"
	"github.com/planehq/hiringsignal/secretbox"
	"github.com/planehq/hiringsignal/signing"
)

type options struct {
	pgURL                 string
	deliveries, endpoints int
	workers, rounds       int
}

func main() {
	var o options
	flag.StringVar(&o.pgURL, "postgres-url", envOr("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"), "Postgres server (a throwaway schema is created and dropped; env HS_POSTGRES_URL)")
	flag.IntVar(&o.deliveries, "deliveries", 20_000, "pending deliveries written for each dispatcher round")
	flag.IntVar(&o.endpoints, "endpoints", 4, "webhook endpoints (each with a watch) the deliveries are spread over")
	flag.IntVar(&o.workers, "workers", 64, "deliveries in flight at once, for the dispatcher (--delivery-workers) and the baseline alike")
	flag.IntVar(&o.rounds, "rounds", 2, "alternating rounds of baseline and dispatcher")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "deliverybench:", err)
		os.Exit(1)
	}
}

// result of one measured run.
type result struct {
	name     string
	n        int
	took     time.Duration
	lat      []time.Duration // per POST
	recorded []time.Duration // dispatcher: attempt start to recorded
	received int64
}

func run(ctx context.Context, o options) error {
	pool, drop, err := throwawaySchema(ctx, o.pgURL)
	if err != nil {
		return err
	}
	defer drop()

	var received atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		received.Add(1)
		w.WriteHeader(http.StatusOK)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	box, err := secretbox.New(secretbox.GenerateKey())
	if err != nil {
		return err
	}
	f, err := newFixture(ctx, pool, box, base, o.endpoints)
	if err != nil {
		return err
	}
	var results []result
	for round := range o.rounds {
		bodies := f.bodies(round, o.deliveries)
		received.Store(0)
		b := baseline(base, bodies, o.workers)
		b.received = received.Load()
		results = append(results, b)

		received.Store(0)
		if err := f.write(ctx, round, bodies); err != nil {
			return err
		}
		d, err := f.dispatch(ctx, o.workers, len(bodies))
		if err != nil {
			return err
		}
		d.received = received.Load()
		results = append(results, d)
	}
	var billed int64
	if err := pool.QueryRow(ctx, "SELECT COALESCE(sum(units), 0) FROM usage_monthly").Scan(&billed); err != nil {
		return err
	}
	report(o, results, billed)
	return nil
}

// fixture is the account, its endpoints and watches.
type fixture struct {
	pool      *pgxpool.Pool
	box       *secretbox.Box
	log       *slog.Logger
	acct      oltp.NewAccount
	endpoints []int64
	watches   []int64
}

func newFixture(ctx context.Context, pool *pgxpool.Pool, box *secretbox.Box, base string, n int) (*fixture, error) {
	a, err := oltp.CreateAccount(ctx, pool, "growth", "bench-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@example.com")
	if err != nil {
		return nil, err
	}
	f := &fixture{pool: pool, box: box, acct: a, log: slog.New(slog.DiscardHandler)}
	if os.Getenv("DELIVERYBENCH_DEBUG") != "" {
		f.log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	for i := range n {
		e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, base+"/hooks/"+strconv.Itoa(i), oltp.EndpointSecret{Secret: signing.NewSecret()})
		if err != nil {
			return nil, err
		}
		company := int64(1000 + i)
		w, _, _, err := oltp.CreateWatch(ctx, pool, box, oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID,
			Allowance: int64(n), EndpointID: e.ID, CompanyID: &company, EventTypes: []string{"opened"}, MaxFiresPerHour: 1000})
		if err != nil {
			return nil, err
		}
		f.endpoints = append(f.endpoints, e.ID)
		f.watches = append(f.watches, w.ID)
	}
	return f, nil
}

// delivery is one body and where it goes.
type delivery struct {
	key      string
	endpoint int64
	watch    int64
	seq      uint64
	body     []byte
}

func (f *fixture) bodies(round, n int) []delivery {
	out := make([]delivery, n)
	for i := range out {
		k := i % len(f.watches)
		seq := uint64(round*n + i + 1)
		key := payload.EventKey(f.watches[k], seq)
		country, code, fn, fnName := "Germany", "DE", "eng", "Engineering"
		req, company := "req_"+strconv.Itoa(i), uint64(1000+k)
		w := f.watches[k]
		observed := "2026-11-23T12:00:00Z"
		b := payload.Body{Event: "opened", Company: "Acme " + strconv.Itoa(k), RawTitle: "Senior Backend Engineer (Go), Payments",
			Location: "Berlin, Germany", DetectedOn: "greenhouse", URL: "https://boards.example.com/acme/jobs/" + strconv.Itoa(i),
			Country: &country, CountryCode: &code, Function: &fn, FunctionName: &fnName, EventSeq: &seq, ReqKey: &req,
			CompanyID: &company, OccurredAt: observed, ObservedAt: &observed, WatchID: &w, WebhookID: f.endpoints[k],
			IdempotencyKey: key}
		out[i] = delivery{key: key, endpoint: f.endpoints[k], watch: w, seq: seq, body: b.Marshal()}
	}
	return out
}

// write inserts the deliveries as pending and due now, as the notifier would (COPY, one NOTIFY).
func (f *fixture) write(ctx context.Context, round int, ds []delivery) error {
	rows := make([][]any, len(ds))
	for i, d := range ds {
		rows[i] = []any{d.key, f.acct.CustomerID, f.acct.AccountID, f.acct.KeyID, d.endpoint, d.watch, int64(d.seq), "opened", d.body, "pending", time.Now()}
	}
	_, err := f.pool.CopyFrom(ctx, pgx.Identifier{"webhook_deliveries"},
		[]string{"idempotency_key", "customer_id", "account_id", "key_id", "endpoint_id", "watch_id", "event_seq", "event_type", "body", "status", "next_attempt_at"},
		pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("cannot write round %d's deliveries: %w", round, err)
	}
	_, err = f.pool.Exec(ctx, "NOTIFY "+oltp.DeliveriesChannel)
	return err
}

// dispatch runs a dispatcher until n deliveries are delivered (recorded), then stops it.
func (f *fixture) dispatch(ctx context.Context, workers, n int) (result, error) {
	set := metrics.NewSet()
	delivered := set.GetOrCreateCounter("hs_deliveries_delivered_total")
	d, err := dispatch.New(dispatch.Config{Pool: f.pool, Box: f.box, Egress: egress.Policy{AllowHTTP: true, AllowPrivate: true},
		Log: f.log, Workers: workers, Metrics: set})
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	if err := d.Start(ctx); err != nil {
		return result{}, err
	}
	for delivered.Get() < uint64(n) {
		time.Sleep(10 * time.Millisecond)
	}
	took := time.Since(start)
	if err := d.Stop(ctx); err != nil {
		return result{}, err
	}
	r := result{name: "dispatcher (claim, sign, POST, record, bill)", n: n, took: took}
	rows, err := f.pool.Query(ctx, `SELECT a.response_ms, EXTRACT(EPOCH FROM d.delivered_at - a.started_at)::float8
		FROM webhook_delivery_attempts a JOIN webhook_deliveries d USING (delivery_id)
		WHERE d.delivered_at >= $1`, start)
	if err != nil {
		return result{}, err
	}
	for rows.Next() {
		var ms int
		var rec float64
		if err := rows.Scan(&ms, &rec); err != nil {
			return result{}, err
		}
		r.lat = append(r.lat, time.Duration(ms)*time.Millisecond)
		r.recorded = append(r.recorded, time.Duration(rec*float64(time.Second)))
	}
	return r, rows.Err()
}

// baseline POSTs the same bodies with a plain Go client, workers at once.
func baseline(base string, ds []delivery, workers int) result {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost, t.MaxConnsPerHost = workers, workers
	c := &http.Client{Transport: t, Timeout: 15 * time.Second}
	defer c.CloseIdleConnections()
	lat := make([]time.Duration, len(ds))
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(ds) {
					return
				}
				s := time.Now()
				resp, err := c.Post(base+"/hooks/"+strconv.FormatInt(ds[i].endpoint, 10), "application/json", bytes.NewReader(ds[i].body))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
				lat[i] = time.Since(s)
			}
		})
	}
	wg.Wait()
	return result{name: "baseline (plain Go client POST)", n: len(ds), took: time.Since(start), lat: lat}
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func report(o options, rs []result, billed int64) {
	fmt.Printf("deliverybench: %d deliveries a round over %d endpoints on one loopback receiver, %d workers, %d rounds, GOMAXPROCS=%d\n\n",
		o.deliveries, o.endpoints, o.workers, o.rounds, runtime.GOMAXPROCS(0))
	fmt.Println("| run | deliveries | received | seconds | deliveries/s | POST p50 | POST p99 | attempt→recorded p50 | p99 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	var base, disp []float64
	for _, r := range rs {
		rate := float64(r.n) / r.took.Seconds()
		rec50, rec99 := "–", "–"
		if r.recorded != nil {
			rec50, rec99 = pct(r.recorded, 0.5).Round(time.Millisecond).String(), pct(r.recorded, 0.99).Round(time.Millisecond).String()
			disp = append(disp, rate)
		} else {
			base = append(base, rate)
		}
		fmt.Printf("| %s | %d | %d | %.2f | %.0f | %s | %s | %s | %s |\n", r.name, r.n, r.received, r.took.Seconds(), rate,
			pct(r.lat, 0.5).Round(10*time.Microsecond), pct(r.lat, 0.99).Round(10*time.Microsecond), rec50, rec99)
	}
	if len(base) > 0 && len(disp) > 0 {
		fmt.Printf("\ndispatcher / baseline: %.2f (best rounds: %.0f vs %.0f deliveries/s); delivered_change units billed: %d\n",
			slices.Max(disp)/slices.Max(base), slices.Max(disp), slices.Max(base), billed)
	}
}

// throwawaySchema creates a migrated Postgres schema for the run; drop removes it.
func throwawaySchema(ctx context.Context, pgURL string) (*pgxpool.Pool, func(), error) {
	var b [5]byte
	_, _ = rand.Read(b[:])
	schema := "bench_delivery_" + hex.EncodeToString(b[:])
	admin, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot reach Postgres at %s (run `bin/hiringsignal stores up` or pass --postgres-url): %w", pgURL, err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close(ctx)
		return nil, nil, err
	}
	drop := func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close(context.Background())
	}
	u, err := neturl.Parse(pgURL)
	if err != nil {
		drop()
		return nil, nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	pool, err := oltp.Open(ctx, u.String())
	if err != nil {
		drop()
		return nil, nil, err
	}
	if err := oltp.Migrate(ctx, pool, nil); err != nil {
		pool.Close()
		drop()
		return nil, nil, err
	}
	return pool, func() { pool.Close(); drop() }, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
