package watches_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/egress"
	"github.com/planehq/hiringsignal/internal/apitest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/readmodel"
	"github.com/planehq/hiringsignal/secretbox"
	"github.com/planehq/hiringsignal/snapshot"
)

// Companies of the test read snapshot.
const (
	acme  = 42
	beta  = 43
	nobod = 999999 // no company
)

// fixedSnapshot is a read snapshot whose model holds acme and beta, built without ClickHouse.
type fixedSnapshot struct{ s *snapshot.Snapshot }

func (f fixedSnapshot) Current() *snapshot.Snapshot { return f.s }

func newSnapshot() fixedSnapshot {
	m := readmodel.NewBuilder(1, time.Now(), nil, []analytics.Company{
		{CompanyID: acme, Domain: "acme.com", Name: "Acme"}, {CompanyID: beta, Domain: "beta.io", Name: "Beta"},
	}).Build(readmodel.Side{})
	return fixedSnapshot{&snapshot.Snapshot{Model: m}}
}

// logBuffer is a server log kept in memory, every level.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func fakeDNS(_ context.Context, _, host string) ([]netip.Addr, error) {
	m := map[string]string{"hooks.example.com": "93.184.216.34", "internal.example.com": "10.1.2.3"}
	a, ok := m[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

type harness struct {
	*apitest.Server
	box *secretbox.Box
	log *logBuffer
}

// start serves the webhook and watch routes (and the account routes) under the production URL
// policy, over the fixed snapshot, with the server's log kept at debug level.
func start(t *testing.T) *harness {
	t.Helper()
	lb := &logBuffer{}
	log := slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := apitest.StartServer(t, apitest.Options{DB: "watches", Config: func(c *api.Config) { c.Log = log },
		Push: &apitest.Push{Egress: egress.Policy{LookupNetIP: fakeDNS}, Snapshots: newSnapshot()}})
	return &harness{Server: srv, box: srv.Box, log: lb}
}

// account is a new account on plan whose minute limit does not get in the way.
func (h *harness) account(t *testing.T, plan string) oltp.NewAccount {
	t.Helper()
	a := h.Account(t, plan)
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(context.Background(), h.Pool, a.AccountID, &big))
	return a
}

// endpoint registers a webhook endpoint for key and returns its id.
func (h *harness) endpoint(t *testing.T, key, url string) int64 {
	t.Helper()
	r := h.Post(t, "/v1/webhooks", key, map[string]any{"url": url})
	require.Contains(t, []int{200, 201}, r.Status, string(r.Body))
	return int64(object(t, r)["id"].(float64))
}

// usage is key's customer's usage totals over the last 24 h, once everything metered reached
// Postgres.
func (h *harness) usage(t *testing.T, key string) map[string]any {
	t.Helper()
	require.NoError(t, h.API.FlushUsage(context.Background()))
	return object(t, h.Get(t, "/v1/usage", key, nil))
}

func object(t *testing.T, r apitest.Response) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), string(r.Body))
	return m
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func id(m map[string]any) string { return itoa(int64(m["watch_id"].(float64))) }
