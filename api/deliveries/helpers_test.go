package deliveries_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

type harness struct{ *apitest.Server }

// start serves the account, webhook, watch and delivery routes on a fresh schema.
func start(t *testing.T) *harness {
	t.Helper()
	return &harness{apitest.StartServer(t, apitest.Options{DB: "deliveries", Push: &apitest.Push{Egress: egress.Policy{LookupNetIP: apitest.FakeDNS}}})}
}

// endpoint registers https://hooks.example.com/<name> for key and returns its id.
func (h *harness) endpoint(t *testing.T, key, name string) int64 {
	t.Helper()
	return h.Endpoint(t, key, "https://hooks.example.com/"+name)
}

// watch creates a criteria watch of key delivering to endpoint ep and returns its id.
func (h *harness) watch(t *testing.T, key string, ep int64) int64 {
	t.Helper()
	r := h.Post(t, "/v1/watches", key, map[string]any{"q": "engineer", "webhook_endpoint_id": ep})
	require.Equal(t, 201, r.Status, string(r.Body))
	return int64(apitest.Object(t, r)["watch_id"].(float64))
}

// row is a delivery written straight into webhook_deliveries, as the notifier or the dispatcher
// would leave it.
type row struct {
	watch       int64 // 0: a test delivery (no watch, no event)
	endpoint    int64
	seq         int64
	status      string
	age         time.Duration // created this long ago
	attempts    int
	respStatus  *int
	respMS      *int
	deliveredAt bool
	billed      bool
}

// insert writes r for a and returns its delivery_id; the body is a ledger-event body.
func (h *harness) insert(t *testing.T, a oltp.NewAccount, r row) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id'))").Scan(&id))
	if r.seq == 0 {
		r.seq = id // unique per watch
	}
	var watch, seq any
	key, event := payload.TestKey(id), payload.EventTest
	if r.watch != 0 {
		watch, seq, key, event = r.watch, r.seq, payload.EventKey(r.watch, uint64(r.seq)), "opened"
	}
	b := payload.Body{Event: event, Company: "Acme", RawTitle: "Staff Engineer", Location: "Berlin", DetectedOn: "greenhouse",
		URL: "https://boards.example.com/1", OccurredAt: "2026-11-01T00:00:00Z", WebhookID: r.endpoint, DeliveryID: id, IdempotencyKey: key}
	if r.watch != 0 {
		s, w := uint64(r.seq), r.watch
		b.EventSeq, b.WatchID = &s, &w
	}
	var next any
	if r.status == oltp.DeliveryPending || r.status == oltp.DeliveryRetrying {
		next = time.Now().Add(time.Hour)
	}
	body := b.Marshal()
	if oltp.Blocked(r.status) {
		body = nil // as the notifier writes it: a blocked delivery keeps no body
	}
	_, err := h.Pool.Exec(ctx, `INSERT INTO webhook_deliveries (delivery_id, idempotency_key, customer_id, account_id, key_id, endpoint_id, watch_id, event_seq,
		event_type, body, status, attempt_count, response_status, response_ms, next_attempt_at, delivered_at, billed_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
			CASE WHEN $16 THEN now() - make_interval(secs => $18) + interval '1 second' END,
			CASE WHEN $17 THEN now() - make_interval(secs => $18) + interval '1 second' END,
			now() - make_interval(secs => $18))`,
		id, key, a.CustomerID, a.AccountID, a.KeyID, r.endpoint, watch, seq, event, body, r.status, r.attempts, r.respStatus, r.respMS, next,
		r.deliveredAt, r.billed, r.age.Seconds())
	require.NoError(t, err)
	return id
}

// attempt records attempt n of delivery id.
func (h *harness) attempt(t *testing.T, id int64, n int, status *int, ms int, errText *string) {
	t.Helper()
	_, err := h.Pool.Exec(context.Background(), `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, response_status, response_ms, error)
		VALUES ($1, $2, now() - make_interval(secs => $3), $4, $5, $6)`, id, n, 100-n, status, ms, errText)
	require.NoError(t, err)
}

// state is what a delivery row holds beyond what the routes answer.
type state struct {
	Status        string
	NextAttemptAt *time.Time
	ReplayedAt    *time.Time
	ReplayCount   int
	BilledAt      *time.Time
	DeliveredAt   *time.Time
	AttemptCount  int
}

func (h *harness) state(t *testing.T, id int64) state {
	t.Helper()
	var s state
	require.NoError(t, h.Pool.QueryRow(context.Background(), `SELECT status, next_attempt_at, replayed_at, replay_count, billed_at, delivered_at, attempt_count
		FROM webhook_deliveries WHERE delivery_id = $1`, id).Scan(&s.Status, &s.NextAttemptAt, &s.ReplayedAt, &s.ReplayCount, &s.BilledAt, &s.DeliveredAt, &s.AttemptCount))
	return s
}

// delivery is a delivery as answered: the handler's own type.
type delivery = oltp.Delivery

type page struct {
	Deliveries []delivery `json:"deliveries"`
	NextCursor *int64     `json:"next_cursor"`
	HasMore    bool       `json:"has_more"`
}

// list is one page of GET /v1/webhook-deliveries, checked against the document.
func (h *harness) list(t *testing.T, key string, q url.Values) page {
	t.Helper()
	r := h.Get(t, "/v1/webhook-deliveries", key, q)
	require.Equal(t, 200, r.Status, string(r.Body))
	h.Conforms(t, "GET", "/v1/webhook-deliveries", r)
	var p page
	require.NoError(t, json.Unmarshal(r.Body, &p))
	return p
}

// all pages through GET /v1/webhook-deliveries with q and limit, returning every id in order.
func (h *harness) all(t *testing.T, key string, q url.Values, limit int) []int64 {
	t.Helper()
	q2 := url.Values{}
	for k, v := range q {
		q2[k] = v
	}
	q2.Set("limit", strconv.Itoa(limit))
	var out []int64
	for i := 0; ; i++ {
		require.Less(t, i, 1000, "paging does not end")
		p := h.list(t, key, q2)
		require.LessOrEqual(t, len(p.Deliveries), limit)
		for _, d := range p.Deliveries {
			out = append(out, d.ID)
		}
		if !p.HasMore {
			require.Nil(t, p.NextCursor)
			return out
		}
		require.Len(t, p.Deliveries, limit, "a page before the last is full")
		require.NotNil(t, p.NextCursor)
		require.Equal(t, p.Deliveries[len(p.Deliveries)-1].ID, *p.NextCursor)
		q2.Set("cursor", strconv.FormatInt(*p.NextCursor, 10))
	}
}

func ids(ds []delivery) []int64 {
	out := make([]int64, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func ptr[T any](v T) *T { return &v }

// postAtOnce POSTs (no body) to every path at once with key and counts the statuses answered.
func (h *harness) postAtOnce(t *testing.T, key string, paths ...string) map[int]int {
	t.Helper()
	statuses := make(chan int, len(paths))
	var wg sync.WaitGroup
	for _, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- h.Post(t, p, key, nil).Status
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	return count
}
