package dispatch

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// receiver is a real HTTP receiver on loopback that verifies both signatures of every request
// under secrets and answers with answer (200 when nil).
type receiver struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	secrets []string
	keys    []string // X-Plane-Idempotency-Key of every request, in order
	bad     []string // signature failures
	answer  func(n int, w http.ResponseWriter, r *http.Request)
}

func newReceiver(t *testing.T, secrets ...string) *receiver {
	rc := &receiver{t: t, secrets: secrets}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	n := len(rc.keys)
	rc.keys = append(rc.keys, r.Header.Get(HeaderIdempotencyKey))
	if r.Header.Get(signing.HeaderID) != r.Header.Get(HeaderIdempotencyKey) {
		rc.bad = append(rc.bad, "webhook-id differs from the idempotency key")
	}
	if r.Header.Get("Content-Type") != "application/json" {
		rc.bad = append(rc.bad, "content type "+r.Header.Get("Content-Type"))
	}
	for _, s := range rc.secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil || wh.Verify(body, r.Header) != nil {
			rc.bad = append(rc.bad, "webhook-signature")
		}
		if !signing.VerifyPlane(s, r.Header.Get(signing.HeaderPlaneSignature), body) {
			rc.bad = append(rc.bad, "X-Plane-Signature")
		}
	}
	answer := rc.answer
	rc.mu.Unlock()
	if answer == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	answer(n, w, r)
}

func (rc *receiver) setAnswer(f func(n int, w http.ResponseWriter, r *http.Request)) {
	rc.mu.Lock()
	rc.answer = f
	rc.mu.Unlock()
}

func (rc *receiver) seen() (keys, bad []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.keys...), append([]string(nil), rc.bad...)
}

type fixture struct {
	t        *testing.T
	ctx      context.Context
	pool     *pgxpool.Pool
	box      *secretbox.Box
	acct     oltp.NewAccount
	endpoint int64
	watch    int64
	secret   string
	rc       *receiver
	seq      int64
}

func newFixture(t *testing.T) *fixture {
	ctx := context.Background()
	pool := storetest.Postgres(t, "dispatch")
	ownDeliveryIDs(t, pool)
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	f := &fixture{t: t, ctx: ctx, pool: pool, box: box, secret: signing.NewSecret()}
	f.acct = f.account()
	f.rc = newReceiver(t, f.secret)
	f.endpoint, f.watch = f.endpointAndWatch(f.acct, f.rc.srv.URL+"/hooks", f.secret)
	return f
}

// ownDeliveryIDs starts the schema's delivery ids at a random multiple of 2^32: a lease is an
// advisory lock keyed by delivery id, and advisory locks are the database's, shared by every
// test schema in it (the package's parallel tests, and any other run of them), so ids counted
// from 1 in each schema would lock one another's deliveries.
func ownDeliveryIDs(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	start := (rand.Int64N(1<<20) + 1) << 32 // below 2^53: ids stay exact as JSON numbers
	_, err := pool.Exec(context.Background(), "SELECT setval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id'), $1, false)", start)
	require.NoError(t, err)
}

func (f *fixture) account() oltp.NewAccount {
	a, err := oltp.CreateAccount(f.ctx, f.pool, "growth", "d-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@example.com")
	require.NoError(f.t, err)
	return a
}

func (f *fixture) endpointAndWatch(a oltp.NewAccount, url, secret string) (int64, int64) {
	e, _, err := oltp.RegisterEndpoint(f.ctx, f.pool, f.box, a.CustomerID, url, oltp.EndpointSecret{Secret: secret})
	require.NoError(f.t, err)
	company := int64(42)
	w, _, _, err := oltp.CreateWatch(f.ctx, f.pool, f.box, oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID,
		Allowance: 100, EndpointID: e.ID, CompanyID: &company, EventTypes: []string{"opened"}, MaxFiresPerHour: 20})
	require.NoError(f.t, err)
	return e.ID, w.ID
}

// deliver writes a due delivery of a and NOTIFYs, as the notifier does; watch 0 makes a test
// delivery (never billed).
func (f *fixture) deliver(a oltp.NewAccount, endpoint, watch int64) (id int64, key string) {
	f.seq++
	var watchID, seq *int64
	key = "test_" + strconv.FormatInt(time.Now().UnixNano(), 10)
	if watch != 0 {
		w, s := watch, f.seq
		watchID, seq = &w, &s
		key = "evt_" + strconv.FormatInt(watch, 10) + "_" + strconv.FormatInt(f.seq, 10)
	}
	body := []byte(`{"event":"opened","idempotency_key":"` + key + `"}`)
	require.NoError(f.t, f.pool.QueryRow(f.ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, key_id,
			endpoint_id, watch_id, event_seq, event_type, body, status, next_attempt_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 'opened', $8, 'pending', now()) RETURNING delivery_id`,
		key, a.CustomerID, a.AccountID, a.KeyID, endpoint, watchID, seq, body).Scan(&id))
	f.notify()
	return id, key
}

func (f *fixture) notify() {
	_, err := f.pool.Exec(f.ctx, "NOTIFY "+oltp.DeliveriesChannel)
	require.NoError(f.t, err)
}

// start runs a dispatcher with the dev policy (loopback allowed) and retries without delay.
func (f *fixture) start(cfg Config) *Dispatcher {
	cfg.Egress = egress.Policy{AllowHTTP: true, AllowPrivate: true}
	return f.startWith(cfg)
}

// listener starts a Postgres listener (a process's) on the fixture's server; it stops when the
// test ends, after the dispatchers started later.
func (f *fixture) listener() *pglisten.Listener {
	l := pglisten.New(pglisten.Config{ConnConfig: f.pool.Config().ConnConfig, Log: slog.New(slog.DiscardHandler),
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	require.NoError(f.t, l.Start(f.ctx))
	f.t.Cleanup(func() { require.NoError(f.t, l.Stop(context.Background())) })
	return l
}

// startWith starts a dispatcher of cfg, with a listener of its own unless cfg names one.
func (f *fixture) startWith(cfg Config) *Dispatcher {
	cfg.Pool, cfg.Box = f.pool, f.box
	if cfg.Listener == nil {
		cfg.Listener = f.listener()
	}
	if cfg.Schedule == nil {
		cfg.Schedule = func(n int) (time.Duration, bool) { return 0, n < 5 }
	}
	cfg.Log = slog.New(slog.DiscardHandler)
	d, err := New(cfg)
	require.NoError(f.t, err)
	require.NoError(f.t, d.Start(f.ctx))
	f.t.Cleanup(func() { require.NoError(f.t, d.Stop(context.Background())) })
	return d
}

type row struct {
	status            string
	attempts          int
	responseStatus    *int
	billed, delivered bool
	nextInSeconds     *float64
}

func (f *fixture) row(id int64) row {
	var r row
	require.NoError(f.t, f.pool.QueryRow(f.ctx, `SELECT status, attempt_count, response_status, billed_at IS NOT NULL, delivered_at IS NOT NULL,
			EXTRACT(EPOCH FROM next_attempt_at - now())::float8
		FROM webhook_deliveries WHERE delivery_id = $1`, id).Scan(&r.status, &r.attempts, &r.responseStatus, &r.billed, &r.delivered, &r.nextInSeconds))
	return r
}

// waitStatus waits until delivery id has status and at least attempts attempts.
func (f *fixture) waitStatus(id int64, status string, attempts int) row {
	f.t.Helper()
	var r row
	require.Eventually(f.t, func() bool {
		r = f.row(id)
		return r.status == status && r.attempts >= attempts
	}, 20*time.Second, 5*time.Millisecond, "delivery %d never reached %s after %d attempts", id, status, attempts)
	return r
}

type attemptRow struct {
	status *int
	err    *string
}

func (f *fixture) attempts(id int64) []attemptRow {
	rows, err := f.pool.Query(f.ctx, "SELECT response_status, error FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt", id)
	require.NoError(f.t, err)
	var out []attemptRow
	for rows.Next() {
		var a attemptRow
		require.NoError(f.t, rows.Scan(&a.status, &a.err))
		out = append(out, a)
	}
	require.NoError(f.t, rows.Err())
	return out
}

func (f *fixture) units(key string) (events, monthly int64) {
	require.NoError(f.t, f.pool.QueryRow(f.ctx, "SELECT count(*) FROM usage_events WHERE unit_id = $1", oltp.DeliveryUnitPrefix+key).Scan(&events))
	require.NoError(f.t, f.pool.QueryRow(f.ctx, "SELECT COALESCE(sum(units), 0) FROM usage_monthly WHERE account_id = $1", f.acct.AccountID).Scan(&monthly))
	return events, monthly
}

func intp(v int) *int { return &v }
