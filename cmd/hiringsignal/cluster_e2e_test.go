package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
)

// The cluster end to end, on loopback (make test-cluster-e2e; skipped without HS_CLUSTER_E2E):
// ZooKeeper and two ClickHouse replicas (devstack.Cluster), a Postgres primary and its streaming
// standby (devstack.PostgresPair), the simulator on the vendors' real hostnames (--host-mode),
// the registry crawl (two worker processes and a committer), two `serve` behind haproxy (round
// robin) and a webhook receiver. The world's sources are imported into the registry as an
// operator would (`simulate --export-registry`, `sources import`); the crawl processes run on
// the simulator's clock (--clock=sim), so pinning a tick opens its window, the workers claim and
// read its sources through their leases, and the committer commits the window before. It crawls
// five windows of one world, pinned one after another, and along the way kills a worker while it
// holds claims (their leases lapse and the other worker reads them), kills the instance holding
// the notifier lease, stops a ClickHouse replica (the commit waits for it), kills the committer
// during that commit and starts another, brings the replica back, and stops the Postgres primary
// and promotes the standby. Then it runs the same windows of the same world on one ClickHouse,
// one Postgres, one crawl process (worker and committer) and one serve, and requires the same
// ledger, the same answers to a fixed list of calls, and the same deliveries, each (watch, event)
// delivered under one idempotency key, each accepted delivery billed one delivered_change unit.
// Before the windows, a Free key gets exactly its 20 calls of a minute across the round robin,
// and another exactly its 100 calls of the day; after them, with the killed instance's metering
// log replayed (`metering replay`), each of the two is billed exactly the calls it was answered
// 200.
//
// The simulator's clock, not the wall clock's short windows (--window-length): on the wall clock
// a window's tick and cycle time are those of the minutes it ran, so two runs of one world would
// never agree; on the simulator's, every run reads and dates the world's windows alike.

const (
	e2eSeed      = 5
	e2eCompanies = 60
	e2eWatches   = 8
	e2eTicks     = 5
)

var plainBuild builtBinary

// plainBinary builds the binary without the race detector: nine processes of it share 2 cores.
func plainBinary(t *testing.T) string {
	t.Helper()
	return plainBuild.get(t, "hiringsignal-e2e-bin-")
}

func freePortNum(t *testing.T) int {
	t.Helper()
	_, p, err := net.SplitHostPort(freePort(t))
	require.NoError(t, err)
	n, err := strconv.Atoi(p)
	require.NoError(t, err)
	return n
}

// e2eDir is a directory the postgres user can reach (the Postgres pair runs as postgres).
func e2eDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "hs-e2e-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// delivery is one webhook the receiver accepted, and when.
type delivery struct {
	Watch, Seq int64
	Key        string
	At         time.Time
}

// hookReceiver is the webhook receiver: it answers 200 to every delivery and keeps what it got.
type hookReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []delivery
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var p struct {
			Event          string `json:"event"`
			WatchID        *int64 `json:"watch_id"`
			EventSeq       *int64 `json:"event_seq"`
			IdempotencyKey string `json:"idempotency_key"`
		}
		if err := json.NewDecoder(req.Body).Decode(&p); err == nil && p.WatchID != nil && p.EventSeq != nil {
			r.mu.Lock()
			r.got = append(r.got, delivery{Watch: *p.WatchID, Seq: *p.EventSeq, Key: p.IdempotencyKey, At: time.Now()})
			r.mu.Unlock()
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// deployment is one run of the world: the API it is called through, its Postgres and a
// ClickHouse connection to read its ledger from, and the failures it goes through before each
// window (hooks[i] runs instead of pinning window i, which opens it and lets the committer commit
// window i-1; nil: pin).
type deployment struct {
	t      *testing.T
	name   string
	api    string
	pgURL  string
	pool   *pgxpool.Pool
	ch     func() driver.Conn
	sim    string
	recv   *hookReceiver
	hooks  map[int]func(pin func())
	onWarm func() // after the first window, before the others (the cluster's limit checks)
	// answered is the 200s each account the limit checks used got, by account id: what its
	// usage ledger must bill, no more and no less.
	answered map[int64]int
}

// outcome is what a run leaves: its ledger, its answers and its deliveries by company.
type outcome struct {
	ledger     []string
	answers    map[string]string
	deliveries map[string]int // "company/event_seq" → distinct idempotency keys
	receipts   int
}

func (d *deployment) pin(tick int) {
	d.t.Helper()
	require.NoError(d.t, pipeline.PinSimTick(context.Background(), http.DefaultClient, d.sim, tick))
}

// readsDone waits until the workers read every source of the registry due in window tick: none
// active or suspect (and not cooling down) is left without a read of it, a claim held by a dead
// worker included (its lease lapses and another worker reads it).
func (d *deployment) readsDone(tick int, within time.Duration) {
	d.t.Helper()
	require.Eventually(d.t, func() bool {
		var left, read int
		err := d.pool.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM crawl_sources s WHERE s.status IN ('active', 'suspect')
				AND (s.cooldown_until IS NULL OR s.cooldown_until <= now())
				AND NOT EXISTS (SELECT 1 FROM crawl_reads r WHERE r.tick = $1 AND r.source_key = s.source_key)),
			(SELECT count(*) FROM crawl_reads WHERE tick = $1)`, tick).Scan(&left, &read)
		return err == nil && left == 0 && read > 0
	}, within, 200*time.Millisecond, "%s: every source of window %d read", d.name, tick)
	d.t.Logf("%s: window %d read (%s)", d.name, tick, time.Now().Format(time.TimeOnly))
}

// committed waits until every region's cycle of tick is committed.
func (d *deployment) committed(tick int, regions int, within time.Duration) {
	d.t.Helper()
	require.Eventually(d.t, func() bool {
		var n uint64
		err := d.ch().QueryRow(context.Background(), "SELECT uniqExact(region) FROM cycles WHERE tick = ?", uint32(tick)).Scan(&n)
		return err == nil && n == uint64(regions)
	}, within, 200*time.Millisecond, "%s: window %d committed in every region", d.name, tick)
}

func (d *deployment) watermark() uint64 {
	d.t.Helper()
	var wm uint64
	require.Eventually(d.t, func() bool {
		return d.ch().QueryRow(context.Background(), "SELECT max(seq_to) FROM cycles").Scan(&wm) == nil
	}, time.Minute, 200*time.Millisecond)
	return wm
}

// notifierAt waits until the notifier's position reaches wm.
func (d *deployment) notifierAt(wm uint64, within time.Duration) {
	d.t.Helper()
	require.Eventually(d.t, func() bool {
		pos, err := oltp.NotifierPosition(context.Background(), d.pool)
		return err == nil && pos >= wm
	}, within, 200*time.Millisecond, "%s: the notifier reaches event %d", d.name, wm)
}

type answer struct {
	status int
	body   []byte
	header http.Header
}

// call sends method path with key through the deployment's API.
func (d *deployment) call(method, path, key string, body any) answer {
	d.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(d.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.api+path, rd)
	require.NoError(d.t, err)
	req.Header.Set("X-API-Key", key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(d.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(d.t, err)
	return answer{status: resp.StatusCode, body: b, header: resp.Header}
}

func (d *deployment) account(plan string) oltp.NewAccount {
	d.t.Helper()
	a, err := oltp.CreateAccount(context.Background(), d.pool, plan, fmt.Sprintf("%s-%s-%d@example.com", d.name, plan, time.Now().UnixNano()))
	require.NoError(d.t, err)
	return a
}

// watchedCompanies are the e2eWatches companies with the most events in the first window, ties
// by id: the same in every run of the world.
func (d *deployment) watchedCompanies() []uint64 {
	d.t.Helper()
	rows, err := d.ch().Query(context.Background(), `SELECT company_id FROM events FINAL GROUP BY company_id ORDER BY count() DESC, company_id LIMIT ?`, e2eWatches)
	require.NoError(d.t, err)
	defer rows.Close()
	var out []uint64
	for rows.Next() {
		var id uint64
		require.NoError(d.t, rows.Scan(&id))
		out = append(out, id)
	}
	require.Len(d.t, out, e2eWatches)
	return out
}

// step opens window i of ticks (hooks[i], or a pin), which lets the committer commit window i-1.
func (d *deployment) step(ticks []int, i int) {
	pin := func() { d.pin(ticks[i]) }
	if h := d.hooks[i]; h != nil {
		h(pin)
	} else {
		pin()
	}
}

// run crawls ticks, watching the busiest companies from the second window on, and collects the
// outcome once every delivery is settled. Each window is read whole before the next is pinned,
// and a window is committed once the next is: the last is closed by pinning the tick after it.
func (d *deployment) run(ticks []int, regions int) outcome {
	t := d.t
	d.pin(ticks[0])
	d.readsDone(ticks[0], 3*time.Minute)
	d.step(ticks, 1)
	d.committed(ticks[0], regions, 3*time.Minute)
	d.notifierAt(d.watermark(), 2*time.Minute)

	acct := d.account("growth")
	big := int64(100_000)
	require.NoError(t, oltp.SetCallsPerMinute(context.Background(), d.pool, acct.AccountID, &big))
	ep := d.call("POST", "/v1/webhooks", acct.Key, map[string]any{"url": d.recv.srv.URL + "/hook"})
	require.Equal(t, 201, ep.status, "%s: %s", d.name, ep.body)
	var endpoint struct {
		ID int64 `json:"id"`
	}
	require.NoError(t, json.Unmarshal(ep.body, &endpoint))
	companyOf := map[int64]uint64{}
	for _, c := range d.watchedCompanies() {
		var w answer
		require.Eventually(t, func() bool {
			w = d.call("POST", "/v1/watches", acct.Key, map[string]any{"company_id": c, "webhook_endpoint_id": endpoint.ID, "max_fires_per_hour": 1000})
			return w.status == 201
		}, time.Minute, 250*time.Millisecond, "%s: a watch of company %d (the read snapshot has it)", d.name, c)
		var wr struct {
			WatchID int64 `json:"watch_id"`
		}
		require.NoError(t, json.Unmarshal(w.body, &wr))
		companyOf[wr.WatchID] = c
	}
	t.Logf("%s: %d watches (%s)", d.name, len(companyOf), time.Now().Format(time.TimeOnly))
	if d.onWarm != nil {
		d.onWarm()
		t.Logf("%s: limits checked (%s)", d.name, time.Now().Format(time.TimeOnly))
	}

	d.readsDone(ticks[1], 3*time.Minute)
	for i := 2; i <= len(ticks); i++ {
		if i < len(ticks) {
			d.step(ticks, i)
		} else {
			d.pin(ticks[i-1] + 1)
		}
		d.committed(ticks[i-1], regions, 4*time.Minute)
		t.Logf("%s: window %d committed (%s)", d.name, ticks[i-1], time.Now().Format(time.TimeOnly))
		if i < len(ticks) {
			d.readsDone(ticks[i], 3*time.Minute)
		}
	}
	wm := d.watermark()
	d.notifierAt(wm, 2*time.Minute)
	t.Logf("%s: the notifier reached event %d (%s)", d.name, wm, time.Now().Format(time.TimeOnly))
	require.Eventually(t, func() bool {
		var open int
		err := d.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_deliveries WHERE watch_id IS NOT NULL AND status IN ('pending', 'retrying')`).Scan(&open)
		return err == nil && open == 0
	}, 3*time.Minute, 250*time.Millisecond, "%s: every delivery is settled", d.name)
	t.Logf("%s: every delivery settled (%s)", d.name, time.Now().Format(time.TimeOnly))

	var o outcome
	o.ledger = d.ledger(wm)
	o.answers = d.answers(acct.Key, wm)
	o.deliveries = map[string]int{}
	keys := map[string]map[string]bool{}
	got := d.recv.deliveries()
	o.receipts = len(got)
	for _, g := range got {
		c, ok := companyOf[g.Watch]
		require.True(t, ok, "%s: a delivery of watch %d, not ours", d.name, g.Watch)
		k := fmt.Sprintf("%d/%d", c, g.Seq)
		if keys[k] == nil {
			keys[k] = map[string]bool{}
		}
		keys[k][g.Key] = true
	}
	for k, ids := range keys {
		o.deliveries[k] = len(ids)
	}
	var rows int
	require.NoError(t, d.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_deliveries WHERE watch_id IS NOT NULL AND status = 'delivered'`).Scan(&rows))
	require.Equal(t, rows, len(o.deliveries), "%s: every delivered row reached the hookReceiver, and only those", d.name)
	var billed, units int64
	require.NoError(t, d.pool.QueryRow(context.Background(), `SELECT count(*), coalesce(sum(units), 0)::bigint FROM usage_events
		WHERE account_id = $1 AND meter_class = $2`, acct.AccountID, oltp.MeterDeliveredChange).Scan(&billed, &units))
	require.Equal(t, int64(rows), billed, "%s: one delivered_change row billed per accepted delivery", d.name)
	require.Equal(t, int64(rows), units, "%s: one delivered_change unit per accepted delivery", d.name)
	return o
}

// ledger is every committed event with its attributes, one line each.
func (d *deployment) ledger(wm uint64) []string {
	d.t.Helper()
	rows, err := d.ch().Query(context.Background(), `SELECT event_seq, event_type, req_key, region, tick, raw_title, country, location, board, url,
		ifNull(toString(salary_min_usd), '-'), ifNull(toString(salary_max_usd), '-'), salary_declared, repost_count, toString(occurred_at)
		FROM events FINAL WHERE event_seq <= ? ORDER BY event_seq`, wm)
	require.NoError(d.t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var seq uint64
		var typ, key, region, title, country, location, board, url, salMin, salMax, at string
		var tick, reposts uint32
		var declared uint8
		require.NoError(d.t, rows.Scan(&seq, &typ, &key, &region, &tick, &title, &country, &location, &board, &url, &salMin, &salMax, &declared, &reposts, &at))
		out = append(out, fmt.Sprintf("%d %s %s %s %d %q %s %q %s %s %s-%s/%d %d %s", seq, typ, key, region, tick, title, country, location, board, url,
			salMin, salMax, declared, reposts, at))
	}
	require.NoError(d.t, rows.Err())
	require.Len(d.t, out, int(wm), "%s: events 1..%d, each once", d.name, wm)
	return out
}

// e2eAnswers is the fixed list of calls whose answers both runs must agree on.
var e2eAnswers = []string{
	"/v1/events?limit=1000",
	"/v1/reqs/search?limit=50",
	"/v1/reqs/search?q=engineer&limit=20",
	"/v1/jobs/search?limit=50",
}

// servesThrough waits until every instance behind the API serves event wm on the feed.
func (d *deployment) servesThrough(key string, wm uint64) {
	d.t.Helper()
	require.Eventually(d.t, func() bool {
		for range 4 { // round robin: every instance
			a := d.call("GET", fmt.Sprintf("/v1/events?since=%d&limit=1", wm-1), key, nil)
			var page struct {
				Events []struct {
					Seq uint64 `json:"event_seq"`
				} `json:"events"`
			}
			if a.status != 200 || json.Unmarshal(a.body, &page) != nil || len(page.Events) != 1 || page.Events[0].Seq != wm {
				return false
			}
		}
		return true
	}, 2*time.Minute, 250*time.Millisecond, "%s: every instance serves event %d", d.name, wm)
}

// answers calls e2eAnswers once every instance serves the watermark wm, with volatile members
// (each event's write version) dropped.
func (d *deployment) answers(key string, wm uint64) map[string]string {
	d.t.Helper()
	d.servesThrough(key, wm)
	out := map[string]string{}
	for _, p := range e2eAnswers {
		a := d.call("GET", p, key, nil)
		require.Equal(d.t, 200, a.status, "%s %s: %s", d.name, p, a.body)
		var v any
		require.NoError(d.t, json.Unmarshal(a.body, &v))
		b, err := json.MarshalIndent(dropVolatile(v), "", " ")
		require.NoError(d.t, err)
		out[p] = string(b)
	}
	return out
}

// dropVolatile removes the members that differ between two runs of one world: when a row was
// written (version) and when the answer was made.
func dropVolatile(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k := range x {
			switch k {
			case "version", "generated_at", "request_id":
				delete(x, k)
			default:
				x[k] = dropVolatile(x[k])
			}
		}
	case []any:
		for i := range x {
			x[i] = dropVolatile(x[i])
		}
	}
	return v
}

// requireLimitsAcrossInstances: a Free key gets exactly its 20 calls of a minute through the
// round robin, and a Free key without a minute limit exactly its 100 calls of the day.
func (d *deployment) requireLimitsAcrossInstances() {
	t := d.t
	for time.Now().Second() > 30 { // the whole burst in one 60-second window
		time.Sleep(time.Second)
	}
	minute := d.account("free")
	ok, last := 0, answer{}
	for range 30 {
		last = d.call("GET", "/v1/reqs/search?limit=1", minute.Key, nil)
		if last.status == 200 {
			ok++
		}
	}
	require.Equal(t, 20, ok, "a Free key's 20 calls a minute, whichever instance answers")
	require.Equal(t, 429, last.status, string(last.body))
	d.answered = map[int64]int{minute.AccountID: ok}

	day := d.account("free")
	big := int64(100_000)
	require.NoError(t, oltp.SetCallsPerMinute(context.Background(), d.pool, day.AccountID, &big))
	dayOf := time.Now().UTC().YearDay()
	ok = 0
	for range 110 {
		last = d.call("GET", "/v1/reqs/search?limit=1", day.Key, nil)
		if last.status == 200 {
			ok++
		}
	}
	if time.Now().UTC().YearDay() == dayOf {
		require.Equal(t, 100, ok, "a Free key's 100 calls a day, whichever instance answers")
	}
	d.answered[day.AccountID] = ok
	require.Equal(t, 402, last.status, string(last.body))
	require.Contains(t, string(last.body), "quota_exceeded")
}

// haproxy starts haproxy on listen in front of backends, round robin, checking /readyz.
func haproxy(t *testing.T, dir, listen string, backends ...string) {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("haproxy is not installed: make test-cluster-e2e installs it (Debian package haproxy)")
	}
	var servers strings.Builder
	for i, b := range backends {
		fmt.Fprintf(&servers, "  server s%d %s check\n", i+1, b)
	}
	cfg := `global
  maxconn 2000
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  option forwardfor
frontend api
  bind ` + listen + `
  default_backend serve
backend serve
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 500ms fall 2 rise 2
` + servers.String()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "haproxy.cfg")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	startBinary(t, bin, io.Discard, nil, "-db", "-f", path)
	require.Eventually(t, func() bool {
		r, err := http.Get("http://" + listen + "/readyz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	}, time.Minute, 100*time.Millisecond, "haproxy serves")
}

// notifierHolder is the index of the serve instance whose metrics say it holds the notifier lease.
func notifierHolder(t *testing.T, metrics []string) int {
	t.Helper()
	holder := -1
	require.Eventually(t, func() bool {
		for i, m := range metrics {
			if metricsHave(t, m, `hs_leader{role="notifier"} 1`) {
				holder = i
				return true
			}
		}
		return false
	}, time.Minute, 100*time.Millisecond, "an instance holds the notifier lease")
	return holder
}

func TestClusterEndToEnd(t *testing.T) {
	if os.Getenv("HS_CLUSTER_E2E") == "" {
		t.Skip("the cluster end to end runs with HS_CLUSTER_E2E=1: make test-cluster-e2e")
	}
	if _, err := os.Stat(devstack.ZooKeeperJar); err != nil {
		t.Fatal("Debian's zookeeper is not installed: make test-cluster-e2e installs it")
	}
	began := time.Now()
	ctx := context.Background()
	bin := plainBinary(t)
	dir := e2eDir(t)
	secrets := testSecretKeys

	hosts := simHosts(t, dir)
	simURL, ticks, world := simWorld(t, bin, e2eCompanies, e2eSeed, e2eTicks, hosts.args()...)
	hosts.wait(t)
	regions := len(world.Regions)
	// The first window is pinned before any crawl process starts: the simulator serves the wall
	// clock's tick until pinned, and a worker reading that window would set every source's next
	// read in the window after it, hours ahead of the world's.
	require.NoError(t, pipeline.PinSimTick(ctx, http.DefaultClient, simURL, ticks[0]))

	// The cluster's stores.
	cl := &devstack.Cluster{Dir: filepath.Join(dir, "clickhouse"), ZooKeeperPort: freePortNum(t), BasePort: freeClusterBase(t)}
	t.Cleanup(func() { _ = cl.Down(context.Background()) })
	pg := &devstack.PostgresPair{Dir: filepath.Join(dir, "postgres"), PrimaryPort: freePortNum(t), StandbyPort: freePortNum(t)}
	t.Cleanup(func() { _ = pg.Down(context.Background()) })
	require.NoError(t, pg.Up(ctx))
	require.NoError(t, cl.Up(ctx))
	t.Logf("stores up (%s)", time.Since(began).Round(time.Second))

	addrs := cl.Addrs()
	db := "hs_e2e"
	chFlags := func(order ...string) []string {
		return []string{"--clickhouse-cluster", devstack.ClusterName, "--clickhouse-addr", strings.Join(order, ","), "--clickhouse-database", db}
	}
	env := []string{"HS_POSTGRES_URL=" + pg.URL(), "HS_LOG_LEVEL=info"}
	migrate := exec.Command(bin, append([]string{"migrate"}, chFlags(addrs...)...)...)
	migrate.Env = append(os.Environ(), env...)
	out, err := migrate.CombinedOutput()
	require.NoError(t, err, "migrate: %s", out)
	importRegistry(t, bin, env, dir, ticks[0])

	recv := newHookReceiver(t)
	var serves []*proc
	var metrics, listens []string
	for i, order := range [][]string{addrs, {addrs[1], addrs[0]}} {
		listen := freePort(t)
		args := append([]string{"serve", "--listen", listen, "--metering-dir", filepath.Join(dir, "metering", strconv.Itoa(i)),
			"--webhook-secret-keys", secrets, "--lease-ttl", "3s", "--trusted-proxies", "127.0.0.1", "--read-refresh", "500ms",
			"--allow-private-egress"}, chFlags(order...)...)
		serves = append(serves, startBinary(t, bin, io.Discard, env, args...))
		listens = append(listens, listen)
		metrics = append(metrics, "http://"+listen+"/metrics")
	}
	for _, l := range listens {
		requireReady(t, l, 3*time.Minute)
	}
	front := freePort(t)
	haproxy(t, dir, front, listens...)
	var workers []*proc
	for range 2 {
		workers = append(workers, startBinary(t, bin, io.Discard, env, append(hosts.crawlArgs(simURL, "worker"), chFlags(addrs...)...)...))
	}
	committer := func() *proc {
		return startBinary(t, bin, io.Discard, env, append(hosts.crawlArgs(simURL, "committer"), chFlags(addrs...)...)...)
	}
	committers := []*proc{committer()}
	pool, err := pgxpool.New(ctx, pg.URL())
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	replica1 := func() driver.Conn {
		conn, err := analytics.Open(analytics.Options{Addr: addrs[0], Database: db})
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		return conn
	}()
	t.Logf("cluster up (%s)", time.Since(began).Round(time.Second))

	cluster := &deployment{t: t, name: "cluster", api: "http://" + front, pgURL: pg.URL(), pool: pool, ch: func() driver.Conn { return replica1 },
		sim: simURL, recv: recv}
	cluster.onWarm = cluster.requireLimitsAcrossInstances
	killed := -1 // the serve the notifier's holder was
	cluster.hooks = map[int]func(pin func()){
		1: func(pin func()) { // a worker dies in the middle of a window, holding claims
			pin()
			held := waitForClaims(t, pool, workers[0], 20*time.Second)
			require.NoError(t, workers[0].cmd.Process.Signal(syscall.SIGKILL))
			t.Logf("cluster: a worker killed holding %d claims", held)
		},
		2: func(pin func()) { // the instance holding the notifier lease dies
			h := notifierHolder(t, metrics)
			killed = h
			require.NoError(t, serves[h].cmd.Process.Signal(syscall.SIGKILL))
			t.Logf("cluster: serve %d, the notifier's holder, killed", h+1)
			pin()
			notifierHolder(t, slices.Delete(slices.Clone(metrics), h, h+1))
		},
		3: func(pin func()) { // a ClickHouse replica stops: the commit waits for it, and its committer dies waiting
			require.NoError(t, cl.ReplicaDown(ctx, 2))
			t.Log("cluster: replica r2 stopped")
			pin()
			var from, to int64
			require.Eventually(t, func() bool { // the write handed out, waiting for its quorum
				return pool.QueryRow(ctx, `SELECT pending_from, pending_to FROM crawl_ledger_heads WHERE pending_tick = $1`, ticks[2]).Scan(&from, &to) == nil
			}, time.Minute, 50*time.Millisecond, "the commit of window %d waits for the stopped replica", ticks[2])
			require.NoError(t, committers[0].cmd.Process.Signal(syscall.SIGKILL))
			committers = append(committers, committer())
			t.Logf("cluster: the committer killed while its write of events %d-%d waited for the replica, another started", from, to)
			time.Sleep(2 * time.Second)
			require.NoError(t, cl.ReplicaUp(ctx, 2))
			t.Log("cluster: replica r2 back")
		},
		4: func(pin func()) { // the Postgres primary stops and the standby is promoted
			require.NoError(t, pg.StopPrimary(ctx))
			require.NoError(t, pg.Promote(ctx))
			t.Log("cluster: Postgres primary stopped, standby promoted")
			pin()
		},
	}
	got := cluster.run(ticks, regions)
	// The killed instance's metering log is replayed as an operator would (its calls answered
	// and not yet in Postgres); then every account of the limit checks is billed exactly the
	// calls it was answered 200: none lost with the instance, none doubled by the replay, and
	// none for a 429 or 402.
	require.GreaterOrEqual(t, killed, 0)
	replay := exec.Command(bin, append([]string{"metering", "replay", "--metering-dir", filepath.Join(dir, "metering", strconv.Itoa(killed))}, chFlags(addrs...)...)...)
	replay.Env = append(os.Environ(), env...)
	out, err = replay.CombinedOutput()
	require.NoError(t, err, "metering replay: %s", out)
	for acct, n := range cluster.answered {
		var calls int64
		require.Eventually(t, func() bool {
			return pool.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::bigint FROM usage_events WHERE account_id = $1`, acct).Scan(&calls) == nil && calls == int64(n)
		}, time.Minute, 250*time.Millisecond, "account %d: billed %d calls, answered %d", acct, calls, n)
	}
	t.Logf("cluster run done (%s): %d events, %d deliveries, %d receipts", time.Since(began).Round(time.Second), len(got.ledger), len(got.deliveries), got.receipts)
	for _, p := range slices.Concat(workers, committers) { // they would read the simulator's windows again beside the single node's
		_ = p.cmd.Process.Kill()
	}

	// The same windows on one node of each.
	single := singleNode(t, bin, simURL, hosts, dir, ticks[0], secrets)
	want := single.run(ticks, regions)
	t.Logf("single-node run done (%s): %d events, %d deliveries, %d receipts", time.Since(began).Round(time.Second), len(want.ledger), len(want.deliveries), want.receipts)

	require.Equal(t, want.ledger, got.ledger, "the cluster's ledger is the single node's")
	for _, p := range e2eAnswers {
		require.Equal(t, want.answers[p], got.answers[p], "GET %s answers as on the single node", p)
	}
	require.NotEmpty(t, want.deliveries)
	require.Equal(t, sortedKeys(want.deliveries), sortedKeys(got.deliveries), "the cluster delivered what the single node delivered: nothing lost, nothing extra")
	for k, n := range got.deliveries {
		require.Equal(t, 1, n, "delivery %s under one idempotency key", k)
	}
	t.Logf("cluster end to end: %s", time.Since(began).Round(time.Second))
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// singleNode starts the single-node reference: one serve and one crawl process (worker and
// committer) on the shared test stores (a database of their own), the registry imported alike.
func singleNode(t *testing.T, bin, simURL string, hosts simTLS, dir string, first int, secrets string) *deployment {
	t.Helper()
	ctx := context.Background()
	pgURL := storetest.PostgresURL(t, "cmd_cluster_e2e")
	opts := storetest.ClickHouseOptions(t, "cmd_cluster_e2e")
	env := []string{"HS_POSTGRES_URL=" + pgURL, "HS_CLICKHOUSE_ADDR=" + opts.Addr, "HS_LOG_LEVEL=info"}
	listen := freePort(t)
	startBinary(t, bin, io.Discard, env, "serve", "--listen", listen, "--clickhouse-database", opts.Database, "--metering-dir", t.TempDir(),
		"--webhook-secret-keys", secrets, "--read-refresh", "500ms", "--allow-private-egress")
	requireReady(t, listen, 3*time.Minute)
	importRegistry(t, bin, env, dir, first)
	require.NoError(t, pipeline.PinSimTick(ctx, http.DefaultClient, simURL, first)) // before the crawl starts: see TestClusterEndToEnd
	startBinary(t, bin, io.Discard, env, append(hosts.crawlArgs(simURL, "all"), "--clickhouse-database", opts.Database)...)
	pool, err := pgxpool.New(ctx, pgURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	ch, err := analytics.Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { ch.Close() })
	return &deployment{t: t, name: "single", api: "http://" + listen, pgURL: pgURL, pool: pool, ch: func() driver.Conn { return ch },
		sim: simURL, recv: newHookReceiver(t)}
}

// freeClusterBase is a base port whose cluster ports (base+1..2, +11..12, +21..22) are free.
func freeClusterBase(t *testing.T) int {
	t.Helper()
	for base := 40000; base < 60000; base += 100 {
		free := true
		for _, off := range []int{1, 2, 11, 12, 21, 22} {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+off))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free block of ports for the cluster")
	return 0
}

// simWorld starts `simulate` (bin) with companies companies of seed seed (and extra arguments)
// and waits until it answers; it returns its URL, the windows last ticks up to the wall clock's
// current one (the world's epoch is 2026-01-05, one tick every 3 hours) and the world's directory
// at the first.
func simWorld(t *testing.T, bin string, companies, seed, windows int, extra ...string) (simURL string, ticks []int, world *pipeline.Directory) {
	t.Helper()
	simListen := freePort(t)
	startBinary(t, bin, io.Discard, []string{"HS_LOG_LEVEL=warn"}, append([]string{"simulate", "--sim-listen", simListen,
		"--sim-companies", strconv.Itoa(companies), "--sim-seed", strconv.Itoa(seed)}, extra...)...)
	simURL = "http://" + simListen
	require.Eventually(t, func() bool {
		r, err := http.Get(simURL + "/_sim/healthz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	}, time.Minute, 100*time.Millisecond)
	epoch, _ := time.Parse(time.RFC3339, "2026-01-05T00:00:00Z")
	now := int(time.Since(epoch) / (3 * time.Hour))
	for i := range windows {
		ticks = append(ticks, now-windows+i)
	}
	world, err := pipeline.FetchDirectory(context.Background(), http.DefaultClient, simURL, ticks[0])
	require.NoError(t, err)
	return simURL, ticks, world
}

// simTLS is where the simulator serves the vendors' real hostnames (--host-mode): its TLS
// listener and the CA a crawl trusts.
type simTLS struct{ listen, dir string }

func simHosts(t *testing.T, dir string) simTLS {
	return simTLS{listen: freePort(t), dir: filepath.Join(dir, "sim-tls")}
}

func (h simTLS) args() []string {
	return []string{"--host-mode", "--tls-listen", h.listen, "--tls-dir", h.dir}
}

func (h simTLS) caFile() string { return filepath.Join(h.dir, "ca.pem") }

// wait waits until the TLS listener answers and its CA is written.
func (h simTLS) wait(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		if _, err := os.Stat(h.caFile()); err != nil {
			return false
		}
		c, err := net.Dial("tcp", h.listen)
		if err != nil {
			return false
		}
		c.Close()
		return true
	}, time.Minute, 100*time.Millisecond, "the simulator serves the vendors' hostnames")
}

// crawlArgs are a registry crawl process's arguments (role worker, committer or all) on the
// simulator's clock at simURL, reading the vendors' hostnames from h: claims renewed and lapsing
// within seconds, every window committed as soon as the next is pinned, no discovery.
func (h simTLS) crawlArgs(simURL, role string) []string {
	return []string{"crawl", "--directory", "registry", "--clock", "sim", "--sim-url", simURL, "--role", role,
		"--connect-to", ":443=" + h.listen, "--ca-file", h.caFile(), "--allow-private-egress", "--fetch-host-rate", "0",
		"--claim-every", "500ms", "--claim-lease", "5s", "--commit-grace", "0s", "--discovery-budget", "0"}
}

// importRegistry imports the world's registry at tick into the Postgres env names, as an operator
// would: `simulate --export-registry` (the world of the e2e's seed and size) and `sources import
// --apply`.
func importRegistry(t *testing.T, bin string, env []string, dir string, tick int) {
	t.Helper()
	file := filepath.Join(dir, fmt.Sprintf("registry-%d.csv", time.Now().UnixNano()))
	for _, args := range [][]string{
		{"simulate", "--export-registry", file, "--export-tick", strconv.Itoa(tick), "--sim-companies", strconv.Itoa(e2eCompanies), "--sim-seed", strconv.Itoa(e2eSeed)},
		{"sources", "import", file, "--apply", "--by", "e2e"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", strings.Join(args[:2], " "), out)
	}
}

// waitForClaims waits until worker holds a live claim (its lease, owner HOST:PID) and returns how
// many it holds; 0 when it held none within the time (its reads were all stored first).
func waitForClaims(t *testing.T, pool *pgxpool.Pool, worker *proc, within time.Duration) int {
	t.Helper()
	owner := fmt.Sprintf("%%:%d", worker.cmd.Process.Pid)
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		var n int
		err := pool.QueryRow(context.Background(), `SELECT count(*) FROM crawl_sources WHERE lease_owner LIKE $1 AND lease_until > now()`, owner).Scan(&n)
		if err == nil && n > 0 {
			return n
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0
}
