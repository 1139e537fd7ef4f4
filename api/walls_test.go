package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	feed "github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/onboarding"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/dispatch"
	"github.com/planehq/hiringsignal/push/notifier"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// walls is a small world for the walls' end-to-end tests: a ledger the test commits cycles to,
// its read snapshot, the API (account, push, change feed and onboarding routes), a notifier and a
// dispatcher, and a receiver that accepts what verifies against the endpoints' secrets.
type walls struct {
	t     *testing.T
	ch    driver.Conn
	snaps *snapshot.Service
	srv   *apitest.Server
	n     *notifier.Notifier
	next  uint64
	tick  uint32
	at    time.Time

	recv     *httptest.Server
	mu       sync.Mutex
	secrets  []string
	received []payload.Body
}

// devEgress lets deliveries reach the loopback receiver (dev's policy).
var devEgress = egress.Policy{AllowHTTP: true, AllowPrivate: true}

func newWalls(t *testing.T) *walls {
	t.Helper()
	ch, _ := storetest.ClickHouse(t, "api_walls")
	w := &walls{t: t, ch: ch, next: 1, at: time.Now().UTC().Truncate(time.Hour).Add(-24 * time.Hour),
		snaps: snapshot.New(snapshot.Config{ClickHouse: ch, Poll: time.Hour, Log: apitest.Quiet()})}
	w.commit(1, 2) // the companies exist before anything watches them
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	w.srv = apitest.StartServer(t, apitest.Options{DB: "api_walls", Push: &apitest.Push{Box: box, Egress: devEgress, Snapshots: w.snaps},
		Register: func(s *api.Server, pool *pgxpool.Pool) {
			feed.Register(s, feed.Deps{Snapshots: w.snaps, ClickHouse: ch, Log: apitest.Quiet()})
			onboarding.Register(s, onboarding.Deps{Pool: pool, Log: apitest.Quiet(), Box: box, Egress: devEgress, Snapshots: w.snaps})
		}})
	w.recv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, s := range w.secrets {
			if signing.VerifyPlane(s, r.Header.Get("X-Plane-Signature"), body) {
				var b payload.Body
				if json.Unmarshal(body, &b) == nil {
					w.received = append(w.received, b)
				}
				rw.WriteHeader(204)
				return
			}
		}
		rw.WriteHeader(401)
	}))
	t.Cleanup(w.recv.Close)
	w.n = notifier.New(notifier.Config{Pool: w.srv.Pool, ClickHouse: ch, Snapshots: w.snaps, Poll: 20 * time.Millisecond, Log: apitest.Quiet()})
	require.NoError(t, w.n.Start(context.Background()))
	t.Cleanup(func() { _ = w.n.Stop(context.Background()) })
	d, err := dispatch.New(dispatch.Config{Pool: w.srv.Pool, Listener: w.srv.Listener, Box: box, Egress: devEgress, Log: apitest.Quiet(), Poll: 50 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, d.Start(context.Background()))
	t.Cleanup(func() { _ = d.Stop(context.Background()) })
	return w
}

// commit commits the next cycle with one opening of each of companies, rebuilds the snapshot and
// waits until the notifier (once started) has matched it.
func (w *walls) commit(companies ...uint64) {
	w.t.Helper()
	at := w.at.Add(time.Duration(w.tick) * time.Minute)
	var rows []analytics.Event
	var cos []analytics.Company
	seen := map[uint64]bool{}
	for _, id := range companies {
		s := w.next
		w.next++
		rows = append(rows, analytics.Event{Seq: s, Type: "opened", ReqKey: fmt.Sprintf("req-%d", s), CompanyID: id, Region: "test", Tick: w.tick,
			OccurredAt: at, ObservedAt: at, FirstSeen: at, RawTitle: fmt.Sprintf("Backend Engineer %d", s), Function: "fn_7k2q", Country: "Germany",
			Location: "Berlin, Germany", SourceType: "board", Board: "greenhouse", Boards: []string{"greenhouse"}, URL: fmt.Sprintf("https://boards.example.com/%d", s)})
		if !seen[id] {
			seen[id] = true
			cos = append(cos, analytics.Company{CompanyID: id, Name: fmt.Sprintf("Company %d", id), Region: "test", UpdatedAt: at})
		}
	}
	c := analytics.Cycle{Region: "test", Tick: w.tick, CycleTime: at, StartedAt: at, Events: uint64(len(rows)), SeqFrom: w.next - uint64(len(rows)), SeqTo: w.next - 1}
	require.NoError(w.t, analytics.WriteCycle(context.Background(), w.ch, &analytics.CycleWrite{Events: rows, Companies: cos, Cycle: c}, 1000))
	w.tick++
	_, err := w.snaps.Refresh(context.Background(), false)
	require.NoError(w.t, err)
	if w.n != nil {
		wm := w.snaps.Current().Watermark
		w.n.Wake()
		require.Eventually(w.t, func() bool { return w.n.Position() == wm }, time.Minute, 10*time.Millisecond, "the notifier reaches %d", wm)
	}
}

func repeat(company uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = company
	}
	return out
}

// get calls path with key, requires 200 and an answer its document describes (as the operation
// at doc, when given, else at path), and decodes it.
func (w *walls) get(path, key string, out any, doc ...string) {
	w.t.Helper()
	r := w.srv.Get(w.t, path, key, nil)
	require.Equal(w.t, 200, r.Status, "%s: %s", path, r.Body)
	u, _ := url.Parse(path)
	op := u.Path
	if len(doc) > 0 {
		op = doc[0]
	}
	w.srv.Conforms(w.t, "GET", op, r)
	require.NoError(w.t, json.Unmarshal(r.Body, out))
}

// endpoint registers the receiver for key and remembers its secret.
func (w *walls) endpoint(key, path string) int64 {
	w.t.Helper()
	r := w.srv.Post(w.t, "/v1/webhooks", key, map[string]any{"url": w.recv.URL + path})
	require.Equal(w.t, 201, r.Status, string(r.Body))
	var ep struct {
		ID     int64  `json:"id"`
		Secret string `json:"secret"`
	}
	require.NoError(w.t, json.Unmarshal(r.Body, &ep))
	w.mu.Lock()
	w.secrets = append(w.secrets, ep.Secret)
	w.mu.Unlock()
	return ep.ID
}

func (w *walls) watch(key string, endpoint int64, company uint64) int64 {
	w.t.Helper()
	r := w.srv.Post(w.t, "/v1/watches", key, map[string]any{"company_id": company, "webhook_endpoint_id": endpoint, "max_fires_per_hour": 1000})
	require.Equal(w.t, 201, r.Status, string(r.Body))
	return int64(apitest.Object(w.t, r)["watch_id"].(float64))
}

// warningsReceived are the allowance warnings the receiver accepted for endpoint ep.
func (w *walls) warningsReceived(ep int64) []payload.AccountEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []payload.AccountEvent
	for _, b := range w.received {
		if b.Event == payload.EventAllowanceWarning && b.WebhookID == ep && b.AccountEvent != nil {
			out = append(out, *b.AccountEvent)
		}
	}
	return out
}

type watchList struct {
	Watches []struct {
		WatchID int64               `json:"watch_id"`
		Status  string              `json:"status"`
		Blocked *api.AllowanceBlock `json:"blocked"`
	} `json:"watches"`
}

// A watch crossing its plan's wall is warned at 80%, then at 100%, on the change feed and by a
// signed delivery to the customer's endpoint, and then reports blocked_by_allowance with the
// allowance, its period and its reset; the dashboard and onboarding say so with the upgrade path.
// Before, the watch said active, the dashboard ok and onboarding delivered while every change
// past the wall was dropped.
func TestAWatchCrossingItsWallIsWarnedThenReportsBlockedByAllowance(t *testing.T) {
	t.Parallel()
	w := newWalls(t)
	a := w.srv.RoomyAccount(t, "free")
	ep := w.endpoint(a.Key, "/free")
	wid := w.watch(a.Key, ep, 1)
	const wall = 50 // the Free plan's delivered changes a month

	var page struct {
		AccountEvents []payload.AccountEvent `json:"account_events"`
	}
	w.commit(repeat(1, 39)...)
	w.get("/v1/events?event_type=opened&limit=1", a.Key, &page)
	require.Empty(t, page.AccountEvents)

	w.commit(1)
	w.get("/v1/events?event_type=opened&limit=1", a.Key, &page)
	require.Len(t, page.AccountEvents, 1, "the 80%% warning, whatever the feed's filter")
	warn := page.AccountEvents[0]
	require.Equal(t, payload.EventAllowanceWarning, warn.EventType)
	require.Equal(t, plans.AllowanceDeliveredChanges, warn.Allowance)
	require.Equal(t, 80, warn.ThresholdPercent)
	require.EqualValues(t, wall, warn.Limit)
	require.Equal(t, plans.PeriodMonth, warn.Period)
	require.Equal(t, *api.RFC3339(plans.NextMonth(time.Now())), warn.ResetsAt)
	require.Eventually(t, func() bool { return len(w.warningsReceived(ep)) == 1 }, 20*time.Second, 20*time.Millisecond,
		"the warning is delivered to the endpoint, signed like every delivery")
	require.Equal(t, warn, w.warningsReceived(ep)[0], "the delivery carries the feed's account event")

	var list watchList
	w.get("/v1/watches", a.Key, &list)
	require.Equal(t, "active", list.Watches[0].Status, "80% still delivers")
	var dash struct {
		SpendCap struct {
			Status string `json:"status"`
		} `json:"spend_cap"`
		UpgradePrompt    *api.QuotaDetail    `json:"upgrade_prompt"`
		ExpansionNudge   bool                `json:"expansion_nudge_triggered"`
		PushBlock        *api.AllowanceBlock `json:"push_block"`
		DeliveredChanges struct {
			Status string `json:"status"`
		} `json:"delivered_changes"`
		BlockedDeliveries map[string]int64 `json:"blocked_deliveries"`
	}
	w.get("/v1/usage/dashboard", a.Key, &dash)
	require.True(t, dash.ExpansionNudge)
	require.Equal(t, "warning", dash.DeliveredChanges.Status)
	require.Nil(t, dash.UpgradePrompt)

	w.commit(repeat(1, 10)...)
	w.get("/v1/events", a.Key, &page)
	require.Len(t, page.AccountEvents, 2)
	require.Equal(t, 100, page.AccountEvents[0].ThresholdPercent, "newest first")
	require.Eventually(t, func() bool { return len(w.warningsReceived(ep)) == 2 }, 20*time.Second, 20*time.Millisecond)

	w.get("/v1/watches", a.Key, &list)
	require.Equal(t, wid, list.Watches[0].WatchID)
	require.Equal(t, "blocked_by_allowance", list.Watches[0].Status)
	b := list.Watches[0].Blocked
	require.NotNil(t, b)
	require.Equal(t, plans.AllowanceDeliveredChanges, b.Allowance)
	require.EqualValues(t, wall, b.Limit)
	require.EqualValues(t, wall, b.Used)
	require.Equal(t, plans.PeriodMonth, b.Period)
	require.Equal(t, warn.ResetsAt, b.ResetsAt)
	require.Equal(t, plans.OverflowStop, b.Overflow)
	require.NotEmpty(t, b.UpgradeURL)
	require.Contains(t, b.Message, "upgrade")

	w.get("/v1/usage/dashboard", a.Key, &dash)
	require.Equal(t, "allowance_reached", dash.SpendCap.Status)
	require.NotNil(t, dash.UpgradePrompt)
	require.Equal(t, api.ReasonQuotaExceeded, dash.UpgradePrompt.Reason)
	require.EqualValues(t, wall, dash.UpgradePrompt.Quota.Limit)
	require.Equal(t, warn.ResetsAt, *dash.UpgradePrompt.Quota.Reset)
	require.NotEmpty(t, dash.UpgradePrompt.UpgradeURL)
	require.Equal(t, "reached", dash.DeliveredChanges.Status)
	require.Equal(t, b, dash.PushBlock)

	var ob struct {
		Step      string              `json:"step"`
		Next      string              `json:"next"`
		PushBlock *api.AllowanceBlock `json:"push_block"`
	}
	w.get("/v1/onboarding?webhook_url="+url.QueryEscape(w.recv.URL+"/free"), a.Key, &ob)
	require.Equal(t, onboarding.StepBlockedByAllowance, ob.Step)
	require.Equal(t, b, ob.PushBlock)
	require.Contains(t, ob.Next, b.UpgradeURL)

	// Past the wall: wall_blocked, counted on the dashboard, no third warning; on Free (stop)
	// not replayable.
	w.commit(repeat(1, 3)...)
	w.get("/v1/usage/dashboard", a.Key, &dash)
	require.EqualValues(t, 3, dash.BlockedDeliveries["wall_blocked"])
	w.get("/v1/events", a.Key, &page)
	require.Len(t, page.AccountEvents, 2)
	var blocked struct {
		Deliveries []oltp.Delivery `json:"deliveries"`
	}
	w.get("/v1/webhook-deliveries?status=wall_blocked", a.Key, &blocked)
	require.Len(t, blocked.Deliveries, 3)
	require.False(t, blocked.Deliveries[0].Queued)
	r := w.srv.Post(t, fmt.Sprintf("/v1/webhook-deliveries/%d/replay", blocked.Deliveries[0].ID), a.Key, nil)
	require.Equal(t, 409, r.Status)
	require.Contains(t, string(r.Body), "not_replayable")
}

// On a paid plan with overflow queue, a change blocked by the wall is kept and replayable once
// there is room: refused (409 changes_wall_reached, saying when) while the month's allowance is
// used, delivered after an upgrade, and after the month turns. Before, every change past the wall
// answered 409 not_replayable for ever.
func TestABlockedChangeIsReplayableAfterAnUpgradeOrTheReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWalls(t)
	a := w.srv.RoomyAccount(t, "starter")
	r := w.srv.Do(t, "PUT", "/v1/account/overflow", a.Key, map[string]any{"overflow": "queue"})
	require.Equal(t, 200, r.Status, string(r.Body))
	w.srv.Conforms(t, "PUT", "/v1/account/overflow", r)
	require.Equal(t, "queue", apitest.Object(t, r)["overflow"])
	ep := w.endpoint(a.Key, "/starter")
	w.watch(a.Key, ep, 2)
	const wall = 250 // the Starter plan's delivered changes a month

	w.commit(repeat(2, wall+2)...)
	var list watchList
	w.get("/v1/watches", a.Key, &list)
	require.Equal(t, "blocked_by_allowance", list.Watches[0].Status)
	require.Equal(t, plans.OverflowQueue, list.Watches[0].Blocked.Overflow)
	require.EqualValues(t, 2, list.Watches[0].Blocked.Queued)
	var blocked struct {
		Deliveries []oltp.Delivery `json:"deliveries"`
	}
	w.get("/v1/webhook-deliveries?status=wall_blocked", a.Key, &blocked)
	require.Len(t, blocked.Deliveries, 2)
	first, second := blocked.Deliveries[1], blocked.Deliveries[0]
	require.True(t, first.Queued)

	replay := func(id int64) apitest.Response {
		t.Helper()
		r := w.srv.Post(t, fmt.Sprintf("/v1/webhook-deliveries/%d/replay", id), a.Key, nil)
		w.srv.Conforms(t, "POST", "/v1/webhook-deliveries/{delivery_id}/replay", r)
		return r
	}
	r = replay(first.ID)
	require.Equal(t, 409, r.Status)
	require.Contains(t, string(r.Body), "changes_wall_reached")
	require.Contains(t, string(r.Body), *api.RFC3339(plans.NextMonth(time.Now())), "it says when there is room")

	// An upgrade makes room: the queued change is sent, signed, with its own body.
	_, err := w.srv.Pool.Exec(ctx, "UPDATE accounts SET tier = 'tier_3' WHERE account_id = $1", a.AccountID)
	require.NoError(t, err)
	r = replay(first.ID)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, oltp.DeliveryPending, apitest.Object(t, r)["status"])
	require.Equal(t, false, apitest.Object(t, r)["queued"])
	require.Eventually(t, func() bool {
		var d oltp.Delivery
		w.get(fmt.Sprintf("/v1/webhook-deliveries/%d", first.ID), a.Key, &d, "/v1/webhook-deliveries/{delivery_id}")
		return d.Status == oltp.DeliveryDelivered
	}, 20*time.Second, 50*time.Millisecond, "the replayed change is delivered and accepted")
	var detail struct {
		Body payload.Body `json:"body"`
	}
	w.get(fmt.Sprintf("/v1/webhook-deliveries/%d", first.ID), a.Key, &detail, "/v1/webhook-deliveries/{delivery_id}")
	require.Equal(t, "opened", detail.Body.Event)
	require.Equal(t, first.ID, detail.Body.DeliveryID)

	// Back on Starter the wall holds again (251 admitted this month) until the month turns: every
	// admitted delivery then belongs to the month before, and the second change is sent.
	_, err = w.srv.Pool.Exec(ctx, "UPDATE accounts SET tier = 'tier_2' WHERE account_id = $1", a.AccountID)
	require.NoError(t, err)
	require.Equal(t, 409, replay(second.ID).Status)
	_, err = w.srv.Pool.Exec(ctx, `UPDATE webhook_deliveries SET created_at = $2::timestamptz, readmitted_at = CASE WHEN readmitted_at IS NOT NULL THEN $2::timestamptz END
		WHERE account_id = $1 AND NOT queued`, a.AccountID, plans.MonthStart(time.Now()).Add(-time.Hour))
	require.NoError(t, err)
	r = replay(second.ID)
	require.Equal(t, 200, r.Status, string(r.Body))
	w.get("/v1/watches", a.Key, &list)
	require.Equal(t, "active", list.Watches[0].Status, "the month turned: the watch delivers again")
}
