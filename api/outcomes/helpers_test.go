package outcomes_test

import (
	"context"
	"encoding/json"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/outcomes"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// The world: 80 companies crawled every 6 days for 60 days, so every pulse window is observed.
var worldConfig = readmodeltest.Config{Seed: 21, Companies: 80, First: 300, Last: 300 + 48*10, Step: 48}

type fixture struct {
	w         *readmodeltest.World
	snaps     *snapshot.Service
	scorable  []uint64 // companies whose coverage reaches the minimum, ascending
	uncovered uint64   // a company without ATS or board signal
}

var world = apitest.NewShared("outcomes", func(tb testing.TB) *fixture {
	w := readmodeltest.Crawl(tb, worldConfig)
	snaps := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(tb, err)
	f := &fixture{w: w, snaps: snaps}
	m := snaps.Current().Model
	for id := range w.Companies {
		c := m.Company(id)
		require.NotNil(tb, c)
		if !c.Covered() && f.uncovered == 0 {
			f.uncovered = id
		}
		if p := m.PulseOf(c, false); p.Direction != nil && p.OpenReqCount != nil {
			f.scorable = append(f.scorable, id)
		}
	}
	slices.Sort(f.scorable)
	require.NotZero(tb, f.uncovered)
	require.Greater(tb, len(f.scorable), 40)
	return f
})

func fakeDNS(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "hooks.example.com" {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

type harness struct {
	*apitest.Server
	f *fixture
}

// start serves the outcome routes (and the push routes, to make endpoints and watches) over the
// crawled world on a fresh schema of its own: the intent score reads every customer's labels, so
// tests must not share one. The model is refitted on every call.
func start(t *testing.T) *harness { t.Helper(); return startRefit(t, time.Nanosecond) }

// startRefit is start with the model kept for refit.
func startRefit(t *testing.T, refit time.Duration) *harness {
	t.Helper()
	f := world.Get(t)
	srv := apitest.StartServer(t, apitest.Options{DB: "outcomes", Push: &apitest.Push{Egress: egress.Policy{LookupNetIP: fakeDNS}, Snapshots: f.snaps},
		Register: func(s *api.Server, pool *pgxpool.Pool) {
			outcomes.Register(s, outcomes.Deps{Pool: pool, Log: apitest.Quiet(), Snapshots: f.snaps, RefitEvery: refit})
		}})
	return &harness{Server: srv, f: f}
}

// account is a new account on plan whose minute limit does not get in the way.
func (h *harness) account(t *testing.T, plan string) oltp.NewAccount {
	t.Helper()
	a := h.Account(t, plan)
	big := int64(100000)
	require.NoError(t, oltp.SetCallsPerMinute(context.Background(), h.Pool, a.AccountID, &big))
	return a
}

func outcomesPath(id uint64) string { return "/v1/companies/" + itoa(int64(id)) + "/outcomes" }

func intentPath(id uint64) string { return "/v1/companies/" + itoa(int64(id)) + "/intent" }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// label is a label as the routes answer it.
type label struct {
	OutcomeID     int64     `json:"outcome_id"`
	CompanyID     int64     `json:"company_id"`
	Outcome       string    `json:"outcome"`
	Polarity      string    `json:"polarity"`
	OccurredAt    time.Time `json:"occurred_at"`
	ExternalID    *string   `json:"external_id"`
	Note          *string   `json:"note"`
	CreatedAt     time.Time `json:"created_at"`
	RetainedUntil time.Time `json:"retained_until"`
	Replayed      bool      `json:"replayed"`
}

// post sends a label and checks the answer against the document.
func (h *harness) post(t *testing.T, key string, company uint64, body map[string]any) apitest.Response {
	t.Helper()
	r := h.Post(t, outcomesPath(company), key, body)
	h.Conforms(t, "POST", "/v1/companies/{company_id}/outcomes", r)
	return r
}

// endpoint registers https://hooks.example.com/<name> for key and returns its id.
func (h *harness) endpoint(t *testing.T, key, name string) int64 {
	t.Helper()
	r := h.Post(t, "/v1/webhooks", key, map[string]any{"url": "https://hooks.example.com/" + name})
	require.Contains(t, []int{200, 201}, r.Status, string(r.Body))
	var out struct{ ID int64 }
	require.NoError(t, json.Unmarshal(r.Body, &out))
	return out.ID
}

// watch watches company for key, delivering to endpoint ep, and returns the watch id.
func (h *harness) watch(t *testing.T, key string, company uint64, ep int64) int64 {
	t.Helper()
	r := h.Post(t, "/v1/watches", key, map[string]any{"company_id": company, "webhook_endpoint_id": ep})
	require.Equal(t, 201, r.Status, string(r.Body))
	var out struct {
		WatchID int64 `json:"watch_id"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &out))
	return out.WatchID
}

// deliver writes a delivery of watch (of a's endpoint ep) about company, as the notifier and the
// dispatcher leave it: accepted at deliveredAt, or failed (never accepted) when deliveredAt is zero.
// The row names no company: the migration's trigger takes it from the body.
func (h *harness) deliver(t *testing.T, a oltp.NewAccount, ep, watch int64, company uint64, deliveredAt time.Time) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id'))").Scan(&id))
	seq, w := uint64(id), watch
	b := payload.Body{Event: "opened", Company: "Acme", RawTitle: "Staff Engineer", Location: "Berlin", DetectedOn: "greenhouse",
		URL: "https://boards.example.com/1", OccurredAt: "2026-11-01T00:00:00Z", WebhookID: ep, DeliveryID: id, IdempotencyKey: payload.EventKey(watch, seq),
		EventSeq: &seq, WatchID: &w, CompanyID: &company}
	status, at := oltp.DeliveryDelivered, any(deliveredAt)
	if deliveredAt.IsZero() {
		status, at = oltp.DeliveryFailed, nil
	}
	_, err := h.Pool.Exec(ctx, `INSERT INTO webhook_deliveries (delivery_id, idempotency_key, customer_id, account_id, key_id, endpoint_id, watch_id, event_seq,
		event_type, body, status, attempt_count, delivered_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'opened', $9, $10, 1, $11, now() - interval '40 days')`,
		id, b.IdempotencyKey, a.CustomerID, a.AccountID, a.KeyID, ep, watch, int64(seq), b.Marshal(), status, at)
	require.NoError(t, err)
	return id
}
