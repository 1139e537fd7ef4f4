package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/bench/loadgen"
	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// TestClusterBench is the cluster's load run for bench/README.md ("Several instances behind
// haproxy"), skipped without HS_CLUSTER_BENCH: two `serve` on a replicated ClickHouse (three
// replicas, insert quorum two), each behind its own haproxy front and both behind a third, so
// that one run loads is-hiring and reqs/search through haproxy with one instance and with two in
// alternating rounds at the same connection count; then commit-to-delivery latency of watched
// companies over four windows with every replica up and four with the notifier's instance's
// first replica stopped. It prints Markdown tables. HS_CLUSTER_BENCH_CONNS (32),
// HS_CLUSTER_BENCH_DURATION (10s) and HS_CLUSTER_BENCH_ROUNDS (2) size the load.
func TestClusterBench(t *testing.T) {
	if os.Getenv("HS_CLUSTER_BENCH") == "" {
		t.Skip("the cluster load run runs with HS_CLUSTER_BENCH=1 (bench/README.md)")
	}
	conns := envInt(t, "HS_CLUSTER_BENCH_CONNS", 32)
	rounds := envInt(t, "HS_CLUSTER_BENCH_ROUNDS", 2)
	dur := 10 * time.Second
	if v := os.Getenv("HS_CLUSTER_BENCH_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		dur = d
	}
	const companies, windows = 500, 9
	ctx := context.Background()
	bin := plainBinary(t)
	dir := e2eDir(t)

	simURL, ticks, world := simWorld(t, bin, companies, 9, windows)

	cl := &devstack.Cluster{Dir: filepath.Join(dir, "clickhouse"), ZooKeeperPort: freePortNum(t), BasePort: freeClusterBase(t), Replicas: 3}
	t.Cleanup(func() { _ = cl.Down(context.Background()) })
	require.NoError(t, cl.Up(ctx))
	addrs := cl.Addrs()
	db := "hs_bench_cluster"
	orders := [][]string{{addrs[0], addrs[1], addrs[2]}, {addrs[1], addrs[2], addrs[0]}}
	chFlags := func(order []string) []string {
		return []string{"--clickhouse-cluster", devstack.ClusterName, "--clickhouse-addr", strings.Join(order, ","), "--clickhouse-database", db,
			"--clickhouse-insert-quorum", "2"}
	}
	pgURL := storetest.PostgresURL(t, "cmd_cluster_bench")
	env := []string{"HS_POSTGRES_URL=" + pgURL, "HS_LOG_LEVEL=warn"}
	migrate := startBinary(t, bin, io.Discard, env, append([]string{"migrate"}, chFlags(orders[0])...)...)
	require.NoError(t, <-migrate.done, "migrate")

	recv := newHookReceiver(t)
	var listens, metrics []string
	for i, order := range orders {
		listen := freePort(t)
		startBinary(t, bin, io.Discard, env, append([]string{"serve", "--listen", listen, "--metering-dir", filepath.Join(dir, "metering", strconv.Itoa(i)),
			"--webhook-secret-keys", testSecretKeys, "--lease-ttl", "3s", "--trusted-proxies", "127.0.0.1", "--read-refresh", "500ms",
			"--allow-private-egress"}, chFlags(order)...)...)
		listens, metrics = append(listens, listen), append(metrics, "http://"+listen+"/metrics")
	}
	for _, l := range listens {
		requireReady(t, l, 3*time.Minute)
	}
	fronts := map[int]string{1: freePort(t), 2: freePort(t)}
	haproxy(t, filepath.Join(dir, "one"), fronts[1], listens[0])
	haproxy(t, filepath.Join(dir, "two"), fronts[2], listens...)
	startBinary(t, bin, io.Discard, env, append([]string{"crawl", "--directory", "sim", "--sim-url", simURL, "--interval", "1s",
		"--allow-private-egress", "--fetch-host-rate", "0"}, chFlags(orders[0])...)...)
	pool, err := pgxpool.New(ctx, pgURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	conn := func(addr string) driver.Conn {
		c, err := analytics.Open(analytics.Options{Addr: addr, Database: db})
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}
	replicas := []driver.Conn{conn(addrs[0]), conn(addrs[1]), conn(addrs[2])}
	live := []int{0, 1, 2}
	d := &deployment{t: t, name: "bench", api: "http://" + fronts[2], pool: pool, sim: simURL, recv: recv,
		ch: func() driver.Conn { return replicas[live[0]] }}
	d.pin(ticks[0])
	d.committed(ticks[0], len(world.Regions), 5*time.Minute)
	wm := d.watermark()

	acct := d.account("enterprise")
	big := int64(1_000_000_000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, pool, acct.AccountID, &big))
	// Commit to delivery: watch the busiest companies, then four windows with every replica up
	// and four with the notifier's instance's first replica stopped.
	endpoint := d.call("POST", "/v1/webhooks", acct.Key, map[string]any{"url": recv.srv.URL + "/hook"})
	require.Equal(t, 201, endpoint.status, string(endpoint.body))
	var ep struct {
		ID int64 `json:"id"`
	}
	require.NoError(t, json.Unmarshal(endpoint.body, &ep))
	rows, err := d.ch().Query(ctx, `SELECT company_id FROM events FINAL GROUP BY company_id ORDER BY count() DESC, company_id LIMIT 100`)
	require.NoError(t, err)
	var watched []uint64
	for rows.Next() {
		var id uint64
		require.NoError(t, rows.Scan(&id))
		watched = append(watched, id)
	}
	rows.Close()
	for _, c := range watched {
		var w answer
		require.Eventually(t, func() bool { // each instance's read snapshot has the window a moment after its commit
			w = d.call("POST", "/v1/watches", acct.Key, map[string]any{"company_id": c, "webhook_endpoint_id": ep.ID, "max_fires_per_hour": 1000})
			return w.status == 201
		}, time.Minute, 250*time.Millisecond, "a watch of company %d (the read snapshot has it)", c)
	}
	d.notifierAt(wm, 2*time.Minute)

	committedAt := map[string]time.Time{} // "region/tick" → first seen on a live replica
	phase := func(ticks []int) {
		for _, tick := range ticks {
			d.pin(tick)
			deadline := time.Now().Add(5 * time.Minute)
			for len(seenOf(committedAt, tick)) < len(world.Regions) {
				require.True(t, time.Now().Before(deadline), "window %d committed", tick)
				for _, i := range live {
					rows, err := replicas[i].Query(ctx, "SELECT region FROM cycles WHERE tick = ?", uint32(tick))
					if err != nil {
						continue
					}
					for rows.Next() {
						var region string
						if rows.Scan(&region) == nil {
							k := fmt.Sprintf("%s/%d", region, tick)
							if _, ok := committedAt[k]; !ok {
								committedAt[k] = time.Now()
							}
						}
					}
					rows.Close()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		d.notifierAt(d.watermark(), 3*time.Minute)
		require.Eventually(t, func() bool {
			var open int
			err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'retrying')`).Scan(&open)
			return err == nil && open == 0
		}, 3*time.Minute, 100*time.Millisecond)
	}
	phase(ticks[1:5])
	holder := notifierHolder(t, metrics)
	down := slices.Index(addrs, orders[holder][0])
	require.NoError(t, cl.ReplicaDown(ctx, down+1))
	live = slices.DeleteFunc(live, func(i int) bool { return i == down })
	t.Logf("replica %s stopped: the first replica of serve %d, which holds the notifier lease", devstack.ReplicaName(down+1), holder+1)
	phase(ticks[5:])

	where := map[int64]string{} // event_seq → region/tick
	rows, err = d.ch().Query(ctx, `SELECT event_seq, region, tick FROM events FINAL`)
	require.NoError(t, err)
	for rows.Next() {
		var seq uint64
		var region string
		var tick uint32
		require.NoError(t, rows.Scan(&seq, &region, &tick))
		where[int64(seq)] = fmt.Sprintf("%s/%d", region, tick)
	}
	rows.Close()
	lat := map[string][]time.Duration{}
	for _, g := range recv.deliveries() {
		k := where[g.Seq]
		at, ok := committedAt[k]
		if !ok {
			continue
		}
		tick, _ := strconv.Atoi(k[strings.Index(k, "/")+1:])
		p := "every replica up"
		if tick >= ticks[5] {
			p = "one of three replicas stopped (the notifier's instance's first)"
		}
		lat[p] = append(lat[p], g.At.Sub(at))
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n| replicas | windows | deliveries | commit → delivery p50 | p95 | max |\n|---|---:|---:|---:|---:|---:|\n")
	for _, p := range []string{"every replica up", "one of three replicas stopped (the notifier's instance's first)"} {
		l := lat[p]
		slices.Sort(l)
		require.NotEmpty(t, l, p)
		q := func(f float64) time.Duration { return l[min(len(l)-1, int(float64(len(l))*f))].Round(time.Millisecond) }
		fmt.Fprintf(&table, "| %s | 4 | %d | %s | %s | %s |\n", p, len(l), q(0.5), q(0.95), l[len(l)-1].Round(time.Millisecond))
	}
	t.Log(table.String())

	// Throughput through haproxy, one instance and two, every replica up, on the latest window:
	// every company it read is fresh (an older one would answer 202 and enqueue a crawl).
	require.NoError(t, cl.ReplicaUp(ctx, down+1))
	live = []int{0, 1, 2}
	wm = d.watermark()
	var hiring, search []string
	// is-hiring of every company the window read (a company never read would answer 202 and
	// enqueue an on-demand crawl), each answering 200 before the load.
	crows, err := d.ch().Query(ctx, `SELECT DISTINCT company_id FROM events ORDER BY company_id`)
	require.NoError(t, err)
	for crows.Next() {
		var id uint64
		require.NoError(t, crows.Scan(&id))
		hiring = append(hiring, fmt.Sprintf("/v1/companies/%d/is-hiring", id))
	}
	crows.Close()
	for _, p := range hiring {
		a := d.call("GET", p, acct.Key, nil)
		require.Equal(t, 200, a.status, "%s: %s", p, a.body)
	}
	for _, q := range []string{"q=engineer", "q=senior+software+engineer", "q=sales", "q=product+manager&geo=United+States", "q=data", "",
		"q=engineers&geo=Germany&geo=France", "q=manager&exclude_agencies=true&headcount_band=51-200", "q=account+executive&source_type=board",
		"q=nurse", "industry_terms=soft&q=developer", "q=marketing&limit=50"} {
		search = append(search, "/v1/reqs/search?"+q)
	}
	for _, front := range fronts { // every instance serves the window: search answers 200, the feed reaches it
		dd := *d
		dd.api = "http://" + front
		dd.servesThrough(acct.Key, wm)
	}
	headers := map[string]string{"X-API-Key": acct.Key}
	var results []loadgen.Result
	for r := 0; r < rounds; r++ {
		for _, target := range []struct {
			name  string
			paths []string
		}{{"is-hiring", hiring}, {"reqs/search", search}} {
			for _, n := range []int{1, 2} {
				res := loadgen.Run(loadgen.Spec{Name: fmt.Sprintf("%s/%d", target.name, n), Base: "http://" + fronts[n], Paths: target.paths,
					Headers: headers, Conns: conns, Dur: dur, MaxReq: 1 << 40})
				t.Logf("round %d %s through haproxy, %d instance(s): %.0f req/s, p95 %s, %d errors", r+1, target.name, n, res.RPS(), res.Pct(0.95), res.Errors)
				results = append(results, res)
			}
		}
	}
	table.Reset()
	fmt.Fprintf(&table, "\n| target | instances behind haproxy | connections | req/s | p50 | p95 | p99 | errors | ratio to one instance |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, name := range []string{"is-hiring", "reqs/search"} {
		one := loadgen.Merge(results, name+"/1")
		for _, n := range []int{1, 2} {
			m := loadgen.Merge(results, fmt.Sprintf("%s/%d", name, n))
			fmt.Fprintf(&table, "| %s | %d | %d | %.0f | %s | %s | %s | %d | %.2f |\n", name, n, conns, m.RPS(), m.Pct(0.5).Round(10*time.Microsecond),
				m.Pct(0.95).Round(10*time.Microsecond), m.Pct(0.99).Round(10*time.Microsecond), m.Errors, m.RPS()/one.RPS())
		}
	}
	t.Log(table.String())

}

// seenOf is the regions of tick in committedAt.
func seenOf(committedAt map[string]time.Time, tick int) []string {
	var out []string
	suffix := "/" + strconv.Itoa(tick)
	for k := range committedAt {
		if strings.HasSuffix(k, suffix) {
			out = append(out, k)
		}
	}
	return out
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	return n
}
