// Package deliverykit is the harness of the delivery benchmarks (bench/cmd/deliverybench and
// bench/riverbench): it writes pending deliveries straight into a throwaway Postgres schema (one
// account, some endpoints with a watch each, all on one loopback receiver), runs each sender
// until every delivery is delivered, recorded and billed, and beside them, in the same run and
// against the same receiver, a baseline: a plain Go HTTP client POSTing the same bodies with as
// many workers. It prints Markdown for bench/README.md. Nothing here runs in `make test`.
package deliverykit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/bench/benchdb"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/dispatch"
)

// Options of a run.
type Options struct {
	PostgresURL string
	Deliveries  int          // written for each sender in each round
	Endpoints   int          // the deliveries are spread over
	Workers     int          // in flight at once, for every sender and the baseline
	Rounds      int          // alternating rounds of the baseline and every sender
	CPUProfile  string       // profile the first round of the first sender to this file
	Log         *slog.Logger // default: discard
}

// Env is what a sender gets: the schema's pool (its calls counted, see Work), the box sealing
// the secrets. A sender calls Finished once its deliveries are all recorded, before reading
// anything back (on Admin, not counted), so the round's Work is its own.
type Env struct {
	Pool     *pgxpool.Pool
	Admin    *pgxpool.Pool
	Box      *secretbox.Box
	Workers  int
	Log      *slog.Logger
	Finished func()
}

// Result of one measured run: Took, and latencies of POSTs and from attempt start to recorded.
type Result struct {
	Name     string
	N        int
	Took     time.Duration
	Lat      []time.Duration
	Recorded []time.Duration
	Received int64
	Baseline bool
	Work     Work // Postgres's part (senders only)
}

// Sender sends n pending, due deliveries of env's schema and returns once all are delivered.
type Sender struct {
	Name string
	Run  func(ctx context.Context, env Env, n int) (Result, error)
}

// Run measures the baseline and every sender, in alternating rounds, and prints the table.
func Run(ctx context.Context, o Options, senders ...Sender) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	pool, drop, err := benchdb.ThrowawaySchema(ctx, o.PostgresURL, "bench_delivery_")
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
	f, err := newFixture(ctx, pool, box, base, o.Endpoints)
	if err != nil {
		return err
	}
	var results []Result
	batch := 0
	for round := range o.Rounds {
		received.Store(0)
		b := baseline(base, f.bodies(batch, o.Deliveries), o.Workers)
		b.Received = received.Load()
		results = append(results, b)
		for i, s := range senders {
			bodies := f.bodies(batch, o.Deliveries)
			batch++
			if err := f.write(ctx, bodies); err != nil {
				return err
			}
			received.Store(0)
			env, finished, err := countedEnv(ctx, pool, box, o)
			if err != nil {
				return err
			}
			stop, err := startProfile(o.CPUProfile, round == 0 && i == 0)
			if err != nil {
				return err
			}
			r, err := s.Run(ctx, env, len(bodies))
			stop()
			env.Finished()
			if err != nil {
				return fmt.Errorf("%s: %w", s.Name, err)
			}
			r.Name, r.N, r.Received, r.Work = s.Name, len(bodies), received.Load(), *finished
			logByRelation(o.Log, s.Name, len(bodies), r.Work)
			results = append(results, r)
		}
	}
	var billed int64
	if err := pool.QueryRow(ctx, "SELECT COALESCE(sum(units), 0) FROM usage_monthly").Scan(&billed); err != nil {
		return err
	}
	report(o, results, billed)
	return nil
}

// countedEnv is a sender's Env for one round: a pool of its own whose round trips are counted,
// and Finished, which closes it and fills in the round's Work (once).
func countedEnv(ctx context.Context, admin *pgxpool.Pool, box *secretbox.Box, o Options) (Env, *Work, error) {
	settle(admin) // the deliveries' COPY is not the sender's work
	before, err := tableWork(ctx, admin)
	if err != nil {
		return Env{}, nil, err
	}
	t := &tracer{}
	traced, err := tracedPool(ctx, admin, t)
	if err != nil {
		return Env{}, nil, err
	}
	w := &Work{}
	var once sync.Once
	finished := func() {
		once.Do(func() {
			traced.Close()
			time.Sleep(time.Second) // the backends' exit reports
			after, err := tableWork(ctx, admin)
			if err != nil {
				o.Log.Warn("cannot count the round's Postgres work", "err", err)
				return
			}
			*w = after.minus(before)
			w.RoundTrips, w.Statements = t.roundTrips.Load(), t.statements.Load()
		})
	}
	return Env{Pool: traced, Admin: admin, Box: box, Workers: o.Workers, Log: o.Log, Finished: finished}, w, nil
}

// Dispatcher is the real dispatch.Dispatcher as a Sender.
func Dispatcher() Sender {
	return Sender{Name: "dispatcher (claim, sign, POST, record, bill)", Run: func(ctx context.Context, env Env, n int) (Result, error) {
		set := metrics.NewSet()
		delivered := set.GetOrCreateCounter("hs_deliveries_delivered_total")
		// The process's listener, on Admin: its LISTEN and pings are not the round's work.
		listener := pglisten.New(pglisten.Config{ConnConfig: env.Admin.Config().ConnConfig, Log: env.Log, Metrics: set})
		if err := listener.Start(ctx); err != nil {
			return Result{}, err
		}
		defer func() { _ = listener.Stop(context.WithoutCancel(ctx)) }()
		d, err := dispatch.New(dispatch.Config{Pool: env.Pool, Listener: listener, Box: env.Box, Egress: egress.Policy{AllowHTTP: true, AllowPrivate: true},
			Log: env.Log, Workers: env.Workers, Metrics: set})
		if err != nil {
			return Result{}, err
		}
		start := time.Now()
		if err := d.Start(ctx); err != nil {
			return Result{}, err
		}
		for delivered.Get() < uint64(n) {
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(start)
		if err := d.Stop(ctx); err != nil {
			return Result{}, err
		}
		env.Finished()
		return Latencies(ctx, env.Admin, start, took)
	}}
}

// Latencies reads the POST latency (response_ms) and attempt start to recorded (delivered_at) of
// every delivery delivered since start.
func Latencies(ctx context.Context, pool *pgxpool.Pool, start time.Time, took time.Duration) (Result, error) {
	r := Result{Took: took}
	rows, err := pool.Query(ctx, `SELECT a.response_ms, EXTRACT(EPOCH FROM d.delivered_at - a.started_at)::float8
		FROM webhook_delivery_attempts a JOIN webhook_deliveries d USING (delivery_id)
		WHERE d.delivered_at >= $1`, start)
	if err != nil {
		return Result{}, err
	}
	for rows.Next() {
		var ms int
		var rec float64
		if err := rows.Scan(&ms, &rec); err != nil {
			return Result{}, err
		}
		r.Lat = append(r.Lat, time.Duration(ms)*time.Millisecond)
		r.Recorded = append(r.Recorded, time.Duration(rec*float64(time.Second)))
	}
	return r, rows.Err()
}

// fixture is the account, its endpoints and watches.
type fixture struct {
	pool      *pgxpool.Pool
	acct      oltp.NewAccount
	endpoints []int64
	watches   []int64
}

func newFixture(ctx context.Context, pool *pgxpool.Pool, box *secretbox.Box, base string, n int) (*fixture, error) {
	a, err := oltp.CreateAccount(ctx, pool, "growth", "bench-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@example.com")
	if err != nil {
		return nil, err
	}
	f := &fixture{pool: pool, acct: a}
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

// bodies are the n deliveries of batch (event_seq unique across batches).
func (f *fixture) bodies(batch, n int) []delivery {
	out := make([]delivery, n)
	for i := range out {
		k := i % len(f.watches)
		seq := uint64(batch*n + i + 1)
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
func (f *fixture) write(ctx context.Context, ds []delivery) error {
	rows := make([][]any, len(ds))
	for i, d := range ds {
		rows[i] = []any{d.key, f.acct.CustomerID, f.acct.AccountID, f.acct.KeyID, d.endpoint, d.watch, int64(d.seq), "opened", d.body, "pending", time.Now()}
	}
	_, err := f.pool.CopyFrom(ctx, pgx.Identifier{"webhook_deliveries"},
		[]string{"idempotency_key", "customer_id", "account_id", "key_id", "endpoint_id", "watch_id", "event_seq", "event_type", "body", "status", "next_attempt_at"},
		pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("cannot write the deliveries: %w", err)
	}
	_, err = f.pool.Exec(ctx, "NOTIFY "+oltp.DeliveriesChannel)
	return err
}

// baseline POSTs the same bodies with a plain Go client, workers at once.
func baseline(base string, ds []delivery, workers int) Result {
	urls, bodies := make([]string, len(ds)), make([][]byte, len(ds))
	for i, d := range ds {
		urls[i], bodies[i] = base+"/hooks/"+strconv.FormatInt(d.endpoint, 10), d.body
	}
	return PlainPosts(urls, bodies, workers)
}

// PlainPosts is the baseline of the delivery benchmarks: a plain Go HTTP client (keep-alive, as
// many connections per host as workers) POSTing bodies[i] to urls[i], workers at once.
func PlainPosts(urls []string, bodies [][]byte, workers int) Result {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost, t.MaxConnsPerHost = workers, workers
	c := &http.Client{Transport: t, Timeout: 15 * time.Second}
	defer c.CloseIdleConnections()
	lat := make([]time.Duration, len(bodies))
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(bodies) {
					return
				}
				s := time.Now()
				resp, err := c.Post(urls[i], "application/json", bytes.NewReader(bodies[i]))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
				lat[i] = time.Since(s)
			}
		})
	}
	wg.Wait()
	return Result{Name: "baseline (plain Go client POST)", N: len(bodies), Took: time.Since(start), Lat: lat, Baseline: true}
}

// Pct is the p-quantile (0..1) of d (0 when empty).
func Pct(d []time.Duration, p float64) time.Duration { return pct(d, p) }

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func report(o Options, rs []Result, billed int64) {
	fmt.Printf("%d deliveries a round over %d endpoints on one loopback receiver, %d workers, %d rounds, GOMAXPROCS=%d\n\n",
		o.Deliveries, o.Endpoints, o.Workers, o.Rounds, runtime.GOMAXPROCS(0))
	fmt.Println("| run | deliveries | received | seconds | deliveries/s | POST p50 | POST p99 | attempt→recorded p50 | p99 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	best := map[string]float64{}
	var names []string
	baseName := ""
	for _, r := range rs {
		rate := float64(r.N) / r.Took.Seconds()
		rec50, rec99 := "–", "–"
		if !r.Baseline {
			rec50, rec99 = pct(r.Recorded, 0.5).Round(time.Millisecond).String(), pct(r.Recorded, 0.99).Round(time.Millisecond).String()
		} else {
			baseName = r.Name
		}
		if _, ok := best[r.Name]; !ok {
			names = append(names, r.Name)
		}
		best[r.Name] = max(best[r.Name], rate)
		fmt.Printf("| %s | %d | %d | %.2f | %.0f | %s | %s | %s | %s |\n", r.Name, r.N, r.Received, r.Took.Seconds(), rate,
			pct(r.Lat, 0.5).Round(10*time.Microsecond), pct(r.Lat, 0.99).Round(10*time.Microsecond), rec50, rec99)
	}
	fmt.Println()
	for _, n := range names {
		if n != baseName && best[baseName] > 0 {
			fmt.Printf("%s: best round %.0f deliveries/s, %.2f of the baseline's best (%.0f/s)\n", n, best[n], best[n]/best[baseName], best[baseName])
		}
	}
	fmt.Printf("delivered_change units billed: %d\n\n", billed)
	fmt.Println("Postgres per delivery (load-independent; rows and pages from the schema's pg_stat/pg_statio views):")
	fmt.Println()
	fmt.Println("| run | round trips | statements | rows inserted | rows updated | of those HOT | buffer pages touched |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		if r.Baseline || r.N == 0 {
			continue
		}
		n, w := float64(r.N), r.Work
		fmt.Printf("| %s | %.4f | %.4f | %.2f | %.2f | %.2f | %.1f |\n", r.Name, float64(w.RoundTrips)/n, float64(w.Statements)/n,
			float64(w.Inserted)/n, float64(w.Updated)/n, float64(w.HOT)/n, float64(w.Pages)/n)
	}
}

// startProfile profiles to path when on (nothing when path is empty).
func startProfile(path string, on bool) (func(), error) {
	if path == "" || !on {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}
