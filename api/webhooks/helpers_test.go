package webhooks_test

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

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/webhooks"
	"github.com/planehq/hiringsignal/egress"
	"github.com/planehq/hiringsignal/internal/apitest"
	"github.com/planehq/hiringsignal/secretbox"
)

// logBuffer is a server log kept in memory, every level, safe for the server's goroutines.
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

// fakeDNS answers the test's names without a resolver.
func fakeDNS(ctx context.Context, _, host string) ([]netip.Addr, error) {
	m := map[string]string{"hooks.example.com": "93.184.216.34", "other.example.com": "93.184.216.35", "internal.example.com": "10.1.2.3",
		"mapped.example.com": "::ffff:127.0.0.1", "localhost": "127.0.0.1"}
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

// start serves the webhook routes under the production URL policy (dev: the dev policy), with
// the server's log kept at debug level.
func start(t *testing.T, dev bool) *harness {
	t.Helper()
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	lb := &logBuffer{}
	log := slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
	policy := egress.Policy{LookupNetIP: fakeDNS}
	if dev {
		policy.AllowHTTP, policy.AllowPrivate = true, true
	}
	srv := apitest.StartServer(t, apitest.Options{DB: "webhooks", Config: func(c *api.Config) { c.Log = log },
		Register: func(srv *api.Server, pool *pgxpool.Pool) {
			webhooks.Register(srv, webhooks.Deps{Pool: pool, Log: log, Box: box, Egress: policy})
		}})
	return &harness{Server: srv, box: box, log: lb}
}

func object(t *testing.T, r apitest.Response) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), string(r.Body))
	return m
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func idOf(t *testing.T, m map[string]any) int64 {
	t.Helper()
	return int64(m["id"].(float64))
}
