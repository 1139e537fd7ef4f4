package chaostest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/internal/testkit/proctest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/dispatch"
	"github.com/planehq/hiringsignal/push/notifier"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// The crash proof of push delivery. A cycle of a few thousand events is committed to ClickHouse; a
// child process (this test binary run again as TestPushCrashHelperProcess) runs the notifier and
// the dispatcher on the test's Postgres schema and ClickHouse database and POSTs to a loopback
// receiver run by the test, which answers 500 to the first POST of about one delivery in seven.
// The child is SIGKILLed at random moments after it started (seeded, logged), restarted each
// time, and finally left to finish. Then: every (watch, matching event) pair has exactly one
// delivery row, every delivery is delivered, usage_events holds exactly one delivered_change
// unit per delivery whatever the receiver saw twice, and notifier_position is the cycle's last
// event_seq.
//
// A killed dispatcher leaves the rows it had claimed under a lease of Timeout + 1 minute; the
// test ends the leases of the dead process once it has been reaped (as if that minute had
// passed), so the run takes seconds. The receiver deduplicates on X-Plane-Idempotency-Key, as
// receivers are told to; the duplicates it saw are logged.

const (
	crashChildEnv    = "HS_PUSH_CRASH_CHILD"
	crashPostgresEnv = "HS_PUSH_CRASH_POSTGRES"
	crashCHAddrEnv   = "HS_PUSH_CRASH_CH_ADDR"
	crashCHDBEnv     = "HS_PUSH_CRASH_CH_DB"
	crashBoxEnv      = "HS_PUSH_CRASH_BOX_KEY"
	crashSeedEnv     = "HS_PUSH_CRASH_SEED" // replays a run's kill schedule

	crashEvents   = 4000
	crashDeadline = 2 * time.Minute // for everything to be delivered after the last restart
	crashReady    = "push-crash-child-started"
)

var crashTypes = []string{"opened", "reobserved", "reposted", "closed"}

// crashEvent is a committed event as the test sees it, to compute the expected deliveries.
type crashEvent struct {
	seq     uint64
	company uint64
	typ     string
	country string
}

// crashWatch is a watch and which events it must match, decided here independently of package
// criteria and the notifier's index.
type crashWatch struct {
	id      int64
	matches func(crashEvent) bool
}

// crashReceiver counts the POSTs of every idempotency key and fails the first POST of about one
// key in seven with a 500, so the retries are exercised under the kills too.
type crashReceiver struct {
	secret string
	mu     sync.Mutex
	posts  map[string]int
	fails  int
	bad    int // POSTs whose X-Plane-Signature did not verify
}

func (rc *crashReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	signed := signing.VerifyPlane(rc.secret, r.Header.Get(signing.HeaderPlaneSignature), body)
	key := r.Header.Get(dispatch.HeaderIdempotencyKey)
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	rc.mu.Lock()
	rc.posts[key]++
	if !signed {
		rc.bad++
	}
	fail := rc.posts[key] == 1 && h.Sum32()%7 == 0
	if fail {
		rc.fails++
	}
	rc.mu.Unlock()
	if fail {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (rc *crashReceiver) counts() (keys, posts, duplicates, fails, bad int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, n := range rc.posts {
		keys++
		posts += n
	}
	return keys, posts, posts - keys - rc.fails, rc.fails, rc.bad
}

func TestKilledNotifierAndDispatcherNeitherLoseNorDoubleNorBillTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the notifier and the dispatcher in a child process it kills over and over")
	}
	ctx := context.Background()
	pgURL := storetest.PostgresURL(t, "chaostest")
	pool, err := oltp.Open(ctx, pgURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	require.NoError(t, oltp.Migrate(ctx, pool, nil))
	ch, chOpts := storetest.ClickHouse(t, "chaostest")
	boxKey := secretbox.GenerateKey()
	box, err := secretbox.New(boxKey)
	require.NoError(t, err)

	rc := &crashReceiver{posts: map[string]int{}, secret: signing.NewSecret()}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)

	// An Enterprise account (no wall, no hard cap) with one endpoint and five watches.
	acct, err := oltp.CreateAccount(ctx, pool, "enterprise", "crash-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@example.com")
	require.NoError(t, err)
	ep, _, err := oltp.RegisterEndpoint(ctx, pool, box, acct.CustomerID, srv.URL+"/hooks", oltp.EndpointSecret{Secret: rc.secret})
	require.NoError(t, err)
	watch := func(company int64, criteria string, types []string) int64 {
		nw := oltp.NewWatch{CustomerID: acct.CustomerID, AccountID: acct.AccountID, KeyID: acct.KeyID, Allowance: 100, EndpointID: ep.ID,
			EventTypes: types, MaxFiresPerHour: 1000} // the most a watch may have; no watch matches more
		if company != 0 {
			nw.CompanyID = &company
		} else {
			nw.Criteria = json.RawMessage(criteria)
		}
		w, _, _, err := oltp.CreateWatch(ctx, pool, box, nw)
		require.NoError(t, err)
		return w.ID
	}
	watches := []crashWatch{
		{watch(101, "", []string{"opened", "closed"}), func(e crashEvent) bool { return e.company == 101 && (e.typ == "opened" || e.typ == "closed") }},
		{watch(102, "", crashTypes), func(e crashEvent) bool { return e.company == 102 }},
		{watch(0, `{"req":{"country":"France"}}`, []string{"opened", "closed"}),
			func(e crashEvent) bool { return e.country == "France" && (e.typ == "opened" || e.typ == "closed") }},
		{watch(0, `{"req":{"country":"Spain"}}`, []string{"reobserved"}), func(e crashEvent) bool { return e.country == "Spain" && e.typ == "reobserved" }},
		{watch(0, `{"company":{"company_id":[103,104]},"event":{"event_type":"reposted"}}`, crashTypes),
			func(e crashEvent) bool { return (e.company == 103 || e.company == 104) && e.typ == "reposted" }},
	}

	// One committed cycle of crashEvents events over ten companies, written as the crawl does.
	at := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour)
	var events []crashEvent
	var rows []analytics.Event
	var companies []analytics.Company
	for i := range crashEvents {
		e := crashEvent{seq: uint64(i + 1), company: uint64(101 + i%10), typ: crashTypes[i%4], country: []string{"Germany", "France", "Spain"}[i%3]}
		events = append(events, e)
		rows = append(rows, analytics.Event{Seq: e.seq, Type: e.typ, ReqKey: fmt.Sprintf("req-%d", e.seq), CompanyID: e.company, Region: "test",
			OccurredAt: at, ObservedAt: at, FirstSeen: at, RawTitle: fmt.Sprintf("Backend Engineer %d", e.seq), Function: "fn_7k2q",
			Country: e.country, Location: "Somewhere, " + e.country, SourceType: "board", Board: "greenhouse", Boards: []string{"greenhouse"},
			URL: fmt.Sprintf("https://boards.example.com/%d", e.seq)})
	}
	for c := uint64(101); c <= 110; c++ {
		companies = append(companies, analytics.Company{CompanyID: c, Name: fmt.Sprintf("Company %d", c), Region: "test", UpdatedAt: at})
	}
	last := events[len(events)-1].seq
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Events: rows, Companies: companies, Cycle: analytics.Cycle{
		Region: "test", CycleTime: at, StartedAt: at, Events: uint64(len(rows)), SeqFrom: 1, SeqTo: last}}, 1000))
	// The notifier starts before the cycle: a new install would start at the watermark.
	require.NoError(t, oltp.SetNotifierPosition(ctx, pool, 0))

	want := map[string]bool{} // idempotency keys of the expected deliveries
	for _, w := range watches {
		for _, e := range events {
			if w.matches(e) {
				want[payload.EventKey(w.id, e.seq)] = true
			}
		}
	}

	env := append(os.Environ(), crashChildEnv+"=1", crashPostgresEnv+"="+pgURL, crashCHAddrEnv+"="+chOpts.Addr,
		crashCHDBEnv+"="+chOpts.Database, crashBoxEnv+"="+hex.EncodeToString(boxKey))
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(crashSeedEnv); s != "" {
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	rng := rand.New(rand.NewPCG(seed, 12))
	kills := 5 + rng.IntN(6)
	t.Logf("seed %d (%s=%d replays the kill schedule): %d kills, %d events, %d expected deliveries", seed, crashSeedEnv, seed, kills, len(events), len(want))

	for i := range kills {
		child := startCrashChild(t, env)
		pause := time.Duration(50+rng.IntN(451)) * time.Millisecond
		time.Sleep(pause)
		child.kill(t)
		written, delivered, pos := crashProgress(t, pool)
		t.Logf("kill %d, %v after the start: %d deliveries written, %d delivered, position %d/%d", i+1, pause, written, delivered, pos, last)
		// The dead process's claims: its leases would end Timeout + 1 minute after the claim.
		_, err := pool.Exec(ctx, "UPDATE webhook_deliveries SET claimed_until = NULL WHERE claimed_until IS NOT NULL AND status IN ('pending', 'retrying')")
		require.NoError(t, err)
	}

	child := startCrashChild(t, env)
	restarted := time.Now()
	deadline := restarted.Add(crashDeadline)
	for {
		written, delivered, pos := crashProgress(t, pool)
		var failed int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM webhook_deliveries WHERE status NOT IN ('pending', 'retrying', 'delivered')").Scan(&failed))
		if pos == last && written == len(want) && delivered == written {
			break
		}
		if exited := child.exited(); exited || failed > 0 || time.Now().After(deadline) {
			child.kill(t)
			require.FailNowf(t, "not everything delivered", "within %v of the last restart: %d of %d deliveries written, %d delivered, position %d of %d; the child exited by itself: %v\n%s\nchild stderr:\n%s",
				crashDeadline, written, len(want), delivered, pos, last, exited, crashDiagnosis(t, pool), child.stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	child.kill(t)
	t.Logf("everything delivered %v after the last restart", time.Since(restarted).Round(time.Millisecond))

	// Exactly one row per expected (watch, event), each delivered and billed.
	got := map[string]int{}
	q, err := pool.Query(ctx, "SELECT idempotency_key, status, billed_at IS NOT NULL, watch_id, event_seq FROM webhook_deliveries")
	require.NoError(t, err)
	for q.Next() {
		var key, status string
		var billed bool
		var watchID, seq int64
		require.NoError(t, q.Scan(&key, &status, &billed, &watchID, &seq))
		require.Equal(t, payload.EventKey(watchID, uint64(seq)), key)
		require.Equal(t, oltp.DeliveryDelivered, status, "delivery %s", key)
		require.True(t, billed, "delivery %s is delivered and billed", key)
		got[key]++
	}
	require.NoError(t, q.Err())
	var missing, extra []string
	for k := range want {
		if got[k] != 1 {
			missing = append(missing, fmt.Sprintf("%s (%d rows)", k, got[k]))
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	require.Empty(t, missing, "expected deliveries without exactly one row")
	require.Empty(t, extra, "deliveries no watch should have matched")

	// One delivered_change unit per delivery, and no other unit.
	units := map[string]int64{}
	q, err = pool.Query(ctx, "SELECT unit_id, units FROM usage_events WHERE meter_class = $1", oltp.MeterDeliveredChange)
	require.NoError(t, err)
	for q.Next() {
		var unit string
		var n int64
		require.NoError(t, q.Scan(&unit, &n))
		units[unit] += n
	}
	require.NoError(t, q.Err())
	require.Len(t, units, len(want), "one delivered_change usage event per delivery")
	for k := range want {
		require.EqualValues(t, 1, units[oltp.DeliveryUnitPrefix+k], "units billed for delivery %s", k)
	}
	var monthly int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT COALESCE(sum(units), 0) FROM usage_events WHERE account_id = $1", acct.AccountID).Scan(&monthly))
	require.EqualValues(t, len(want), monthly, "the account's usage is its deliveries, once each")

	pos, err := oltp.NotifierPosition(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, last, pos, "notifier_position ends at the cycle's last event_seq")

	keys, posts, dups, fails, bad := rc.counts()
	require.Equal(t, len(want), keys, "the receiver saw every delivery")
	require.Zero(t, bad, "POSTs whose X-Plane-Signature did not verify")
	t.Logf("receiver: %d POSTs of %d keys, %d answered 500, %d duplicates of an accepted key (deduplicated on the key, billed once)",
		posts, keys, fails, dups)
}

// crashDiagnosis is the deliveries by status and the last attempts' errors.
func crashDiagnosis(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	q, err := pool.Query(ctx, "SELECT status, count(*) FROM webhook_deliveries GROUP BY status ORDER BY status")
	require.NoError(t, err)
	for q.Next() {
		var status string
		var n int
		require.NoError(t, q.Scan(&status, &n))
		fmt.Fprintf(&b, "deliveries %s: %d\n", status, n)
	}
	require.NoError(t, q.Err())
	q, err = pool.Query(ctx, "SELECT delivery_id, attempt, response_status, COALESCE(error, '') FROM webhook_delivery_attempts ORDER BY started_at DESC LIMIT 5")
	require.NoError(t, err)
	for q.Next() {
		var id int64
		var attempt int
		var status *int
		var msg string
		require.NoError(t, q.Scan(&id, &attempt, &status, &msg))
		fmt.Fprintf(&b, "attempt %d of delivery %d: status %v %s\n", attempt, id, status, msg)
	}
	require.NoError(t, q.Err())
	return b.String()
}

// crashProgress reads the deliveries written and delivered and the notifier's position.
func crashProgress(t *testing.T, pool *pgxpool.Pool) (written, delivered int, pos uint64) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*), count(*) FILTER (WHERE status = 'delivered') FROM webhook_deliveries").Scan(&written, &delivered))
	pos, err := oltp.NotifierPosition(ctx, pool)
	require.NoError(t, err)
	return written, delivered, pos
}

// crashChild is a running TestPushCrashHelperProcess.
type crashChild struct {
	cmd  *exec.Cmd
	errs *lockedBuffer
	done chan struct{}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startCrashChild starts the child and returns once it says its parts started.
func startCrashChild(t *testing.T, env []string) *crashChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPushCrashHelperProcess$", "-test.timeout=0")
	cmd.Env = env
	proctest.DieWithParent(cmd)
	c := &crashChild{cmd: cmd, errs: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = c.errs
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		signaled := false
		for sc.Scan() {
			if !signaled && strings.Contains(sc.Text(), crashReady) {
				close(ready)
				signaled = true
			}
		}
		_ = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() { c.kill(t) })
	select {
	case <-ready:
	case <-c.done:
		require.FailNowf(t, "the child exited before starting", "stderr:\n%s", c.stderr())
	case <-time.After(time.Minute):
		c.kill(t)
		require.FailNowf(t, "the child did not start within a minute", "stderr:\n%s", c.stderr())
	}
	return c
}

// kill SIGKILLs the child and waits until it is reaped.
func (c *crashChild) kill(t *testing.T) {
	t.Helper()
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.done:
	case <-time.After(time.Minute):
		t.Errorf("the child was not reaped a minute after SIGKILL")
	}
}

func (c *crashChild) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *crashChild) stderr() string { return c.errs.String() }

// TestPushCrashHelperProcess is the child of the crash test: the notifier and the dispatcher on
// the parent's stores, run until killed. It does nothing in an ordinary run.
func TestPushCrashHelperProcess(t *testing.T) {
	if os.Getenv(crashChildEnv) != "1" {
		t.Skip("the child process of TestKilledNotifierAndDispatcherNeitherLoseNorDoubleNorBillTwice")
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	pool, err := oltp.Open(ctx, os.Getenv(crashPostgresEnv))
	require.NoError(t, err)
	ch, err := analytics.Open(analytics.Options{Addr: os.Getenv(crashCHAddrEnv), Database: os.Getenv(crashCHDBEnv)})
	require.NoError(t, err)
	key, err := hex.DecodeString(os.Getenv(crashBoxEnv))
	require.NoError(t, err)
	box, err := secretbox.New(key)
	require.NoError(t, err)

	snaps := snapshot.New(snapshot.Config{ClickHouse: ch, Poll: 100 * time.Millisecond, Log: log})
	_, err = snaps.Refresh(ctx, false)
	require.NoError(t, err)
	require.NoError(t, snaps.Start(ctx))
	listener := pglisten.New(pglisten.Config{ConnConfig: pool.Config().ConnConfig, Log: log})
	require.NoError(t, listener.Start(ctx))
	n := notifier.New(notifier.Config{Pool: pool, ClickHouse: ch, Snapshots: snaps, Nudge: snaps.Nudge, Log: log,
		Poll: 20 * time.Millisecond, CommitPoll: 100 * time.Millisecond, BatchEvents: 100, BatchDeliveries: 50})
	d, err := dispatch.New(dispatch.Config{Pool: pool, Listener: listener, Box: box, Log: log, Egress: egress.Policy{AllowHTTP: true, AllowPrivate: true},
		Workers: 8, Timeout: 5 * time.Second, Poll: 50 * time.Millisecond,
		Schedule: func(failures int) (time.Duration, bool) { return 10 * time.Millisecond, failures < 50 }})
	require.NoError(t, err)
	require.NoError(t, n.Start(ctx))
	require.NoError(t, d.Start(ctx))
	fmt.Println(crashReady)
	for { // until SIGKILL
		time.Sleep(time.Hour)
	}
}
