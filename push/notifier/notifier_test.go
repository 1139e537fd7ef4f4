package notifier_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/notifier"
	"github.com/planehq/hiringsignal/read/snapshot"
)

var quiet = slog.New(slog.DiscardHandler)

// env is a test's own Postgres schema and ClickHouse database, a ledger it commits cycles to,
// and a read snapshot of it.
type env struct {
	t     *testing.T
	pool  *pgxpool.Pool
	ch    driver.Conn
	snaps *snapshot.Service
	box   *secretbox.Box
	tick  uint32
	next  uint64 // the next event_seq
	at    time.Time
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ch, _ := storetest.ClickHouse(t, "notifier")
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	return &env{t: t, pool: storetest.Postgres(t, "notifier"), ch: ch, box: box, next: 1,
		snaps: snapshot.New(snapshot.Config{ClickHouse: ch, Poll: time.Hour, Log: quiet}), at: time.Now().UTC().Truncate(time.Hour).Add(-24 * time.Hour)}
}

// ev is an event to commit: its company, type and country (its req is its own).
type ev struct {
	company uint64
	typ     string
	country string
}

// commit commits the next cycle with evs and rebuilds the snapshot; it returns their event_seqs.
func (e *env) commit(evs ...ev) []uint64 {
	e.t.Helper()
	seqs := e.write(evs...)
	_, err := e.snaps.Refresh(context.Background(), false)
	require.NoError(e.t, err)
	return seqs
}

// write commits the next cycle with evs (the snapshot is not told).
func (e *env) write(evs ...ev) []uint64 {
	e.t.Helper()
	w, seqs := e.cycle(evs...)
	require.NoError(e.t, analytics.WriteCycle(context.Background(), e.ch, w, 1000))
	return seqs
}

// cycle is the next cycle with evs, not written (the ledger's tick and event_seq move past it).
func (e *env) cycle(evs ...ev) (*analytics.CycleWrite, []uint64) {
	e.t.Helper()
	at := e.at.Add(time.Duration(e.tick) * time.Minute)
	var rows []analytics.Event
	var seqs []uint64
	cos := map[uint64]bool{}
	for _, x := range evs {
		s := e.next
		e.next++
		seqs = append(seqs, s)
		rows = append(rows, analytics.Event{Seq: s, Type: x.typ, ReqKey: fmt.Sprintf("req-%d", s), CompanyID: x.company, Region: "test",
			Tick: e.tick, OccurredAt: at, ObservedAt: at, FirstSeen: at, RawTitle: fmt.Sprintf("Backend Engineer %d", s), Function: "fn_7k2q",
			Country: x.country, Location: "Somewhere, " + x.country, SourceType: "board", Board: "greenhouse", Boards: []string{"greenhouse"},
			URL: fmt.Sprintf("https://boards.example.com/%d", s)})
		cos[x.company] = true
	}
	var companies []analytics.Company
	for id := range cos {
		companies = append(companies, analytics.Company{CompanyID: id, Name: fmt.Sprintf("Company %d", id), Region: "test", UpdatedAt: at})
	}
	c := analytics.Cycle{Region: "test", Tick: e.tick, CycleTime: at, StartedAt: at, Events: uint64(len(rows)), SeqFrom: e.next - uint64(len(rows)), SeqTo: e.next - 1}
	e.tick++
	return &analytics.CycleWrite{Events: rows, Companies: companies, Cycle: c}, seqs
}

func (e *env) watermark() uint64 { return e.snaps.Current().Watermark }

// account creates an account on plan with an endpoint.
func (e *env) account(plan string) (oltp.NewAccount, int64) {
	e.t.Helper()
	ctx := context.Background()
	a, err := oltp.CreateAccount(ctx, e.pool, plan, plan+"-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@example.com")
	require.NoError(e.t, err)
	ep, _, err := oltp.RegisterEndpoint(ctx, e.pool, e.box, a.CustomerID, "https://hooks.example.com/"+a.CustomerID, oltp.EndpointSecret{Secret: "whsec_test"})
	require.NoError(e.t, err)
	return a, ep.ID
}

// watch creates a watch of a on endpoint: a company watch when company is set, else criteria.
func (e *env) watch(a oltp.NewAccount, endpoint int64, company int64, criteria string, types []string, maxFires int) int64 {
	e.t.Helper()
	nw := oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID, Allowance: 100, EndpointID: endpoint,
		EventTypes: types, MaxFiresPerHour: maxFires}
	if company != 0 {
		nw.CompanyID = &company
	} else {
		nw.Criteria = json.RawMessage(criteria)
	}
	w, _, _, err := oltp.CreateWatch(context.Background(), e.pool, e.box, nw)
	require.NoError(e.t, err)
	return w.ID
}

// start starts a notifier (stopped at the test's end).
func (e *env) start(batch int) *notifier.Notifier {
	e.t.Helper()
	n := notifier.New(notifier.Config{Pool: e.pool, ClickHouse: e.ch, Snapshots: e.snaps, BatchEvents: batch, Poll: 20 * time.Millisecond})
	require.NoError(e.t, n.Start(context.Background()))
	e.t.Cleanup(func() { _ = n.Stop(context.Background()) })
	require.Eventually(e.t, func() bool { _, err := oltp.NotifierPosition(context.Background(), e.pool); return err == nil }, time.Minute,
		10*time.Millisecond, "the notifier reads (or sets) its position")
	return n
}

// caughtUp waits until n has written everything up to the snapshot's watermark.
func (e *env) caughtUp(n *notifier.Notifier) {
	e.t.Helper()
	wm := e.watermark()
	n.Wake()
	require.Eventually(e.t, func() bool { return n.Position() == wm }, time.Minute, 10*time.Millisecond, "the notifier reaches watermark %d", wm)
}

type row struct {
	ID       int64
	Key      string
	WatchID  int64
	Seq      uint64
	Type     string
	Status   string
	Due      bool
	Body     []byte
	Customer string
	Account  int64
	KeyID    *int64
}

// deliveries reads every watch delivery row, by watch and event_seq (account events have none).
func (e *env) deliveries() []row {
	e.t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT delivery_id, idempotency_key, watch_id, event_seq, event_type, status,
		next_attempt_at IS NOT NULL, body, customer_id, account_id, key_id FROM webhook_deliveries WHERE watch_id IS NOT NULL ORDER BY watch_id, event_seq`)
	require.NoError(e.t, err)
	defer rows.Close()
	var out []row
	for rows.Next() {
		var r row
		var seq int64
		require.NoError(e.t, rows.Scan(&r.ID, &r.Key, &r.WatchID, &seq, &r.Type, &r.Status, &r.Due, &r.Body, &r.Customer, &r.Account, &r.KeyID))
		r.Seq = uint64(seq)
		out = append(out, r)
	}
	require.NoError(e.t, rows.Err())
	return out
}

// seqsOf is the event_seqs delivered to watch id (with status, when given).
func seqsOf(rows []row, id int64, status string) []uint64 {
	var out []uint64
	for _, r := range rows {
		if r.WatchID == id && (status == "" || r.Status == status) {
			out = append(out, r.Seq)
		}
	}
	return out
}

func (e *env) fires(id int64) int64 {
	e.t.Helper()
	var n int64
	require.NoError(e.t, e.pool.QueryRow(context.Background(), "SELECT count(*) FROM watch_fires WHERE watch_id = $1", id).Scan(&n))
	return n
}

func (e *env) position() uint64 {
	e.t.Helper()
	p, err := oltp.NotifierPosition(context.Background(), e.pool)
	require.NoError(e.t, err)
	return p
}

var types = []string{"opened", "reobserved", "reposted", "closed"}

func TestCompanyAndCriteriaWatchesGetExactlyTheirEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, ep := e.account("growth")
	company := e.watch(a, ep, 7, "", []string{"opened", "closed"}, 1000)
	france := e.watch(a, ep, 0, `{"req":{"country":"France"}}`, types, 1000)
	reposted := e.watch(a, ep, 0, `{"company":{"company_id":[8]},"event":{"event_type":"reposted"}}`, types, 1000)
	n := e.start(0) // on an empty ledger: the position starts at 0

	var evs []ev
	for i := range 40 {
		evs = append(evs, ev{company: uint64(7 + (i/2)%2), typ: types[i%4], country: []string{"Germany", "France", "Spain"}[i%3]})
	}
	seqs := e.commit(evs...)
	e.caughtUp(n)
	var wantCompany, wantFrance, wantReposted []uint64
	for i, x := range evs {
		if x.company == 7 && (x.typ == "opened" || x.typ == "closed") {
			wantCompany = append(wantCompany, seqs[i])
		}
		if x.country == "France" {
			wantFrance = append(wantFrance, seqs[i])
		}
		if x.company == 8 && x.typ == "reposted" {
			wantReposted = append(wantReposted, seqs[i])
		}
	}
	got := e.deliveries()
	require.Equal(t, wantCompany, seqsOf(got, company, oltp.DeliveryPending))
	require.Equal(t, wantFrance, seqsOf(got, france, oltp.DeliveryPending))
	require.Equal(t, wantReposted, seqsOf(got, reposted, oltp.DeliveryPending))
	require.Len(t, got, len(wantCompany)+len(wantFrance)+len(wantReposted), "nothing else")
	require.NotEmpty(t, wantReposted)
	for _, id := range []int64{company, france, reposted} {
		require.EqualValues(t, len(seqsOf(got, id, "")), e.fires(id), "one fire per admitted delivery")
	}

	// Each row: due now, the watch's customer, account and key, and the body the dispatcher sends.
	for _, r := range got {
		require.True(t, r.Due)
		require.Equal(t, a.CustomerID, r.Customer)
		require.Equal(t, a.AccountID, r.Account)
		require.Equal(t, a.KeyID, *r.KeyID)
		require.Equal(t, payload.EventKey(r.WatchID, r.Seq), r.Key)
		var b payload.Body
		require.NoError(t, json.Unmarshal(r.Body, &b))
		x := evs[slices.Index(seqs, r.Seq)]
		require.Equal(t, r.Type, b.Event)
		require.Equal(t, x.typ, b.Event)
		require.Equal(t, fmt.Sprintf("Company %d", x.company), b.Company)
		require.Equal(t, fmt.Sprintf("Backend Engineer %d", r.Seq), b.RawTitle)
		require.Equal(t, "Somewhere, "+x.country, b.Location)
		require.Equal(t, "greenhouse", b.DetectedOn)
		require.Equal(t, fmt.Sprintf("https://boards.example.com/%d", r.Seq), b.URL)
		require.Equal(t, r.Seq, *b.EventSeq)
		require.Equal(t, fmt.Sprintf("req-%d", r.Seq), *b.ReqKey)
		require.Equal(t, x.company, *b.CompanyID)
		require.Equal(t, r.WatchID, *b.WatchID)
		require.Equal(t, ep, b.WebhookID)
		require.Equal(t, r.ID, b.DeliveryID, "the body carries the row's own id")
		require.Equal(t, r.Key, b.IdempotencyKey)
		require.Equal(t, x.country, *b.Country)
		require.NotNil(t, b.FunctionName)
	}
	require.Equal(t, e.watermark(), e.position())

	// A watch created later fires on later events only; a canceled one on none.
	require.NoError(t, oltp.CancelWatch(context.Background(), e.pool, a.CustomerID, company))
	late := e.watch(a, ep, 8, "", types, 1000)
	more := e.commit(ev{7, "opened", "Germany"}, ev{8, "closed", "Italy"})
	e.caughtUp(n)
	got = e.deliveries()
	require.Equal(t, wantCompany, seqsOf(got, company, ""), "the canceled watch fires no more")
	require.Equal(t, more[1:], seqsOf(got, late, ""))
}

func TestTheChecksRateLimitWallAndCapInTheSpecsOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	growth, gep := e.account("growth")
	limited := e.watch(growth, gep, 1, "", types, 3)
	free, fep := e.account("free")
	walled := e.watch(free, fep, 2, "", types, 1000)
	starter, sep := e.account("starter")
	hard := int64(5)
	require.NoError(t, oltp.SetCaps(ctx, e.pool, starter.AccountID, nil, &hard))
	capped := e.watch(starter, sep, 3, "", types, 1000)
	n := e.start(0)

	var evs []ev
	for range 10 {
		evs = append(evs, ev{1, "opened", "Germany"})
	}
	for range 60 {
		evs = append(evs, ev{2, "reobserved", "Germany"})
	}
	for range 8 {
		evs = append(evs, ev{3, "closed", "Germany"})
	}
	e.commit(evs...)
	e.caughtUp(n)
	got := e.deliveries()
	count := func(id int64, status string) int { return len(seqsOf(got, id, status)) }

	require.Equal(t, 3, count(limited, oltp.DeliveryPending), "max_fires_per_hour 3")
	require.Equal(t, 7, count(limited, oltp.DeliveryRateLimited))
	require.Equal(t, 50, count(walled, oltp.DeliveryPending), "the Free plan's 50 delivered changes a month")
	require.Equal(t, 10, count(walled, oltp.DeliveryWallBlocked))
	require.Equal(t, 5, count(capped, oltp.DeliveryPending), "the hard cap of 5 units")
	require.Equal(t, 3, count(capped, oltp.DeliveryCapBlocked))
	for _, r := range got {
		require.Equal(t, r.Status == oltp.DeliveryPending, r.Due, "a blocked delivery is never due")
	}
	require.EqualValues(t, 3, e.fires(limited), "rate-limited deliveries are not fires")
	require.EqualValues(t, 50, e.fires(walled))
	require.EqualValues(t, 5, e.fires(capped))

	// The fire limit outranks the wall: the limited watch's next events are rate_limited again.
	e.commit(ev{1, "closed", "Germany"}, ev{2, "closed", "Germany"})
	e.caughtUp(n)
	got = e.deliveries()
	require.Equal(t, 8, count(limited, oltp.DeliveryRateLimited))
	require.Equal(t, 11, count(walled, oltp.DeliveryWallBlocked))

	// A failed delivery does not count against the allowance: its slot is admitted again.
	_, err := e.pool.Exec(ctx, "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE delivery_id = (SELECT min(delivery_id) FROM webhook_deliveries WHERE watch_id = $1)", walled)
	require.NoError(t, err)
	e.commit(ev{2, "opened", "Germany"})
	e.caughtUp(n)
	got = e.deliveries()
	require.Equal(t, 50, count(walled, oltp.DeliveryPending))
	require.Equal(t, 1, count(walled, "failed"))

	allowance, limitedPlan := plans.DeliveredChangeAllowance("tier_1")
	require.True(t, limitedPlan)
	require.EqualValues(t, plans.TrialDeliveredChanges, allowance)
	_, limitedPlan = plans.DeliveredChangeAllowance("enterprise")
	require.False(t, limitedPlan, "Enterprise has no wall, only its spend cap")
}

func TestANewInstallStartsAtTheWatermarkAndARestartResumesFromThePosition(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, ep := e.account("growth")
	w := e.watch(a, ep, 5, "", types, 1000)
	e.commit(ev{5, "opened", "Germany"}, ev{5, "closed", "Germany"}) // history before the first start

	n := e.start(0)
	e.caughtUp(n)
	require.Empty(t, e.deliveries(), "a new install does not deliver the history")
	require.Equal(t, e.watermark(), e.position())

	first := e.commit(ev{5, "opened", "France"})
	e.caughtUp(n)
	require.NoError(t, n.Stop(context.Background()))
	second := e.commit(ev{5, "reposted", "France"}, ev{6, "opened", "France"}, ev{5, "closed", "France"})

	n2 := e.start(0)
	e.caughtUp(n2)
	require.Equal(t, append(first, second[0], second[2]), seqsOf(e.deliveries(), w, oltp.DeliveryPending))
	require.Equal(t, e.watermark(), e.position())
}

// The notifier is stopped at random points over and over (a stop cancels the batch in flight:
// its transaction rolls back, or it had committed) and restarted, in batches of 20 events cut at
// 1 to 9 deliveries; then its position is rewound to
// the start as if it had been lost. Every matched event is delivered exactly once per watch, and
// every admitted delivery has exactly one fire.
func TestCrashesAndRewindsNeitherLoseNorDoubleADelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, ep := e.account("growth")
	co := e.watch(a, ep, 11, "", types, 1000)
	crit := e.watch(a, ep, 0, `{"req":{"country":"Spain"}}`, types, 1000)
	require.NoError(t, e.start(0).Stop(context.Background())) // the position starts at 0

	var evs []ev
	for i := range 300 {
		evs = append(evs, ev{uint64(11 + i%3), types[i%4], []string{"Spain", "France"}[i%2]})
	}
	seqs := e.commit(evs[:150]...)
	seqs = append(seqs, e.commit(evs[150:]...)...)
	var wantCo, wantCrit []uint64
	for i, x := range evs {
		if x.company == 11 {
			wantCo = append(wantCo, seqs[i])
		}
		if x.country == "Spain" {
			wantCrit = append(wantCrit, seqs[i])
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	restarts := 0
	for e.position() < e.watermark() {
		n := notifier.New(notifier.Config{Pool: e.pool, ClickHouse: e.ch, Snapshots: e.snaps, BatchEvents: 20, BatchDeliveries: 1 + restarts%9,
			Poll: time.Millisecond})
		require.NoError(t, n.Start(context.Background()))
		time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
		require.NoError(t, n.Stop(context.Background()))
		restarts++
		require.Less(t, restarts, 1000)
	}
	check := func() {
		got := e.deliveries()
		require.Equal(t, wantCo, seqsOf(got, co, oltp.DeliveryPending))
		require.Equal(t, wantCrit, seqsOf(got, crit, oltp.DeliveryPending))
		require.Len(t, got, len(wantCo)+len(wantCrit))
		require.EqualValues(t, len(wantCo), e.fires(co))
		require.EqualValues(t, len(wantCrit), e.fires(crit))
	}
	check()
	t.Logf("%d restarts", restarts)

	require.NoError(t, oltp.SetNotifierPosition(context.Background(), e.pool, 0))
	n := e.start(50)
	e.caughtUp(n)
	require.Equal(t, e.watermark(), e.position())
	check()
}

// Two notifiers on one database (two serve instances) share the work: the position row decides
// which one writes each batch, and the other moves on; every delivery is written once.
func TestTwoInstancesWriteEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, ep := e.account("growth")
	w := e.watch(a, ep, 0, `{"req":{"country":["Spain","France"]}}`, types, 1000)
	first := e.start(0)
	second := notifier.New(notifier.Config{Pool: e.pool, ClickHouse: e.ch, Snapshots: e.snaps, BatchEvents: 10, Poll: time.Millisecond})
	require.NoError(t, second.Start(context.Background()))
	t.Cleanup(func() { _ = second.Stop(context.Background()) })

	var want []uint64
	for c := range 4 {
		var evs []ev
		for i := range 50 {
			evs = append(evs, ev{uint64(20 + i%5), types[(i+c)%4], []string{"Spain", "Germany", "France"}[i%3]})
		}
		for i, s := range e.commit(evs...) {
			if evs[i].country != "Germany" {
				want = append(want, s)
			}
		}
		first.Wake()
		second.Wake()
	}
	e.caughtUp(first)
	e.caughtUp(second)
	require.Equal(t, want, seqsOf(e.deliveries(), w, oltp.DeliveryPending))
	require.EqualValues(t, len(want), e.fires(w))
}

// A cycle committed by another process: the notifier sees the committed watermark pass the
// snapshot's and nudges the snapshot, whose own poll is an hour here, and then delivers.
func TestACommitElsewhereNudgesTheSnapshotAndIsDelivered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, ep := e.account("growth")
	w := e.watch(a, ep, 9, "", types, 1000)
	require.NoError(t, e.snaps.Start(context.Background()))
	t.Cleanup(func() { _ = e.snaps.Stop(context.Background()) })
	n := notifier.New(notifier.Config{Pool: e.pool, ClickHouse: e.ch, Snapshots: e.snaps, Nudge: e.snaps.Nudge, CommitPoll: 20 * time.Millisecond})
	require.NoError(t, n.Start(context.Background()))
	t.Cleanup(func() { _ = n.Stop(context.Background()) })
	require.Eventually(t, func() bool { _, err := oltp.NotifierPosition(context.Background(), e.pool); return err == nil }, time.Minute, 10*time.Millisecond)

	seqs := e.write(ev{9, "opened", "Germany"}, ev{10, "opened", "Germany"}, ev{9, "closed", "Germany"})
	require.Eventually(t, func() bool { return len(e.deliveries()) == 2 }, time.Minute, 20*time.Millisecond)
	require.Equal(t, []uint64{seqs[0], seqs[2]}, seqsOf(e.deliveries(), w, oltp.DeliveryPending))
}

// A blocked delivery (rate_limited, wall_blocked, cap_blocked) is written without its body: what
// it would have said is never stored, so no read can give it away unbilled. A delivery to a
// disabled endpoint is written failed and unsent (never due, not a fire, not admitted: it takes
// no slot of the allowance), its body kept for a replay once the endpoint is registered again but
// not served before one admits it. Before, both were written with their bodies, the second
// pending and failed by the dispatcher a moment later, and GET /v1/webhook-deliveries/{id} served
// every one of them.
func TestBlockedDeliveriesKeepNoBodyAndADisabledEndpointsAreFailedUnsent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	free, fep := e.account("free")
	walled := e.watch(free, fep, 2, "", types, 1000)
	growth, gep := e.account("growth")
	limited := e.watch(growth, gep, 1, "", types, 2)
	starter, sep := e.account("starter")
	hard := int64(1)
	require.NoError(t, oltp.SetCaps(ctx, e.pool, starter.AccountID, nil, &hard))
	capped := e.watch(starter, sep, 4, "", types, 1000)
	off, oep := e.account("free")
	gone := e.watch(off, oep, 3, "", types, 1000)
	_, err := e.pool.Exec(ctx, "UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'gone' WHERE endpoint_id = $1", oep)
	require.NoError(t, err)
	n := e.start(0)

	var evs []ev
	for range 55 {
		evs = append(evs, ev{2, "opened", "Germany"})
	}
	for range 4 {
		evs = append(evs, ev{1, "opened", "Germany"})
	}
	for range 3 {
		evs = append(evs, ev{4, "opened", "Germany"})
	}
	for range 60 { // more than the Free allowance: none of it is admitted
		evs = append(evs, ev{3, "opened", "Germany"})
	}
	e.commit(evs...)
	e.caughtUp(n)
	got := e.deliveries()
	count := func(id int64, status string) int { return len(seqsOf(got, id, status)) }
	require.Equal(t, 50, count(walled, oltp.DeliveryPending))
	require.Equal(t, 5, count(walled, oltp.DeliveryWallBlocked))
	require.Equal(t, 2, count(limited, oltp.DeliveryRateLimited))
	require.Equal(t, 2, count(capped, oltp.DeliveryCapBlocked))
	require.Equal(t, 60, count(gone, oltp.DeliveryFailed), "a disabled endpoint's deliveries are failed unsent, none admitted or walled")
	require.Zero(t, e.fires(gone), "nothing was sent: no fire")
	for _, r := range got {
		if oltp.Blocked(r.Status) {
			require.Nil(t, r.Body, "a %s delivery keeps no body", r.Status)
		} else {
			require.True(t, json.Valid(r.Body), r.Status)
		}
		require.Equal(t, r.Status == oltp.DeliveryPending, r.Due)
		d, err := oltp.GetDelivery(ctx, e.pool, r.Customer, r.ID)
		require.NoError(t, err)
		require.Equal(t, r.Status == oltp.DeliveryPending, d.Body != nil, "%s: served only once admitted or sent", r.Status)
	}

	// Registered again, the endpoint's next deliveries are admitted as usual.
	_, _, err = oltp.RegisterEndpoint(ctx, e.pool, e.box, off.CustomerID, "https://hooks.example.com/"+off.CustomerID, oltp.EndpointSecret{Secret: "whsec_test"})
	require.NoError(t, err)
	seqs := e.commit(ev{3, "closed", "Germany"})
	e.caughtUp(n)
	require.Equal(t, seqs, seqsOf(e.deliveries(), gone, oltp.DeliveryPending))
	require.EqualValues(t, 1, e.fires(gone))
}
