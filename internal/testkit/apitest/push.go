package apitest

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

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/oltp"
)

// LogBuffer is a server log kept in memory, safe for the server's goroutines.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// DebugLog is a logger keeping every level in the returned buffer (Options.Config sets it as the
// server's log), for tests that check what is and is not logged.
func DebugLog() (*slog.Logger, *LogBuffer) {
	lb := &LogBuffer{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

// testHosts are the names FakeDNS answers: two public addresses, a private one, a mapped
// loopback and localhost.
var testHosts = map[string]string{"hooks.example.com": "93.184.216.34", "other.example.com": "93.184.216.35",
	"internal.example.com": "10.1.2.3", "mapped.example.com": "::ffff:127.0.0.1", "localhost": "127.0.0.1"}

// FakeDNS is an egress.Policy LookupNetIP answering the test names without a resolver; any other
// name does not exist.
func FakeDNS(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := testHosts[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// Object decodes r's body as a JSON object.
func Object(tb testing.TB, r Response) map[string]any {
	tb.Helper()
	var m map[string]any
	require.NoError(tb, json.Unmarshal(r.Body, &m), string(r.Body))
	return m
}

// RoomyAccount is a new account on plan whose per-minute limit (10,000) does not get in the way
// of a test's calls.
func (s *Server) RoomyAccount(tb testing.TB, plan string) oltp.NewAccount {
	tb.Helper()
	a := s.Account(tb, plan)
	big := int64(10_000)
	require.NoError(tb, oltp.SetCallsPerMinute(context.Background(), s.Pool, a.AccountID, &big))
	return a
}

// Endpoint registers the webhook endpoint url for key (POST /v1/webhooks) and returns its id.
func (s *Server) Endpoint(tb testing.TB, key, url string) int64 {
	tb.Helper()
	r := s.Post(tb, "/v1/webhooks", key, map[string]any{"url": url})
	require.Contains(tb, []int{200, 201}, r.Status, string(r.Body))
	return int64(Object(tb, r)["id"].(float64))
}

// RequireBudgetRefusal requires r, the answer of method path, to be a 409 refusing a daily
// budget: detail.reason reason, detail.budget budget, detail.limit limit, detail.retry_after
// between a second and a day and equal to the Retry-After header, as the document declares it.
func (s *Server) RequireBudgetRefusal(tb testing.TB, method, path string, r Response, reason, budget string, limit int) {
	tb.Helper()
	require.Equal(tb, 409, r.Status, string(r.Body))
	s.Conforms(tb, method, path, r)
	d := Object(tb, r)["detail"].(map[string]any)
	require.Equal(tb, reason, d["reason"])
	require.Equal(tb, budget, d["budget"])
	require.EqualValues(tb, limit, d["limit"])
	secs := int64(d["retry_after"].(float64))
	require.GreaterOrEqual(tb, secs, int64(1))
	require.LessOrEqual(tb, secs, int64(24*3600))
	require.Equal(tb, strconv.FormatInt(secs, 10), r.Header["Retry-After"])
}
