package api_test

// Regression tests of attacks on the API framework: each failed before its fix, and each is
// named after the behaviour it holds.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// raw calls the server with headers set verbatim: Host goes out as given (the test client would
// otherwise send the URL's host).
func (h *harness) raw(method, path, key string, body []byte, headers ...string) resp {
	h.t.Helper()
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	res := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod(method)
	req.SetRequestURI(h.s.Base + path)
	req.UseHostHeader = true
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") {
			req.Header.SetHost(headers[i+1])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	require.NoError(h.t, fasthttp.DoTimeout(req, res, 30*time.Second))
	out := resp{status: res.StatusCode(), header: map[string]string{}, body: append([]byte(nil), res.Body()...)}
	for _, k := range res.Header.PeekKeys() {
		out.header[string(k)] = string(res.Header.PeekBytes(k))
	}
	return out
}

// A 402's links are never built from the client's Host header.
func TestQuotaLinksNeverComeFromTheHostHeader(t *testing.T) {
	t.Parallel()
	pulse := func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("companies.hiring_pulse", func(c *api.Call) (int, error) { return 0, c.JSON(200, map[string]any{}) }))
		}
	}
	h := newHarness(t, pulse)
	a := h.account("free") // hiring-pulse is not in the Free plan: 402
	r := h.raw("GET", "/v1/companies/1/hiring-pulse", a.Key, nil, "Host", "evil.example")
	require.Equal(t, 402, r.status, "%s", r.body)
	d := r.json(t)["detail"].(map[string]any)
	for _, f := range []string{"upgrade_url", "purchase_url"} {
		require.NotContains(t, d[f], "evil.example", f)
		require.True(t, strings.HasPrefix(d[f].(string), "/v1/pricing#"), "without --base-url links are relative: %v", d[f])
	}
	// The pricing document's own link, too.
	p := h.raw("GET", "/v1/pricing", "", nil, "Host", "evil.example")
	require.Equal(t, 200, p.status)
	require.NotContains(t, string(p.body), "evil.example")

	// With --base-url, links are absolute on it, whatever Host says.
	h2 := newHarness(t, func(cfg *api.Config, s *api.Server) {
		cfg.BaseURL = "https://api.hiringsignal.example"
		pulse(cfg, s)
	})
	b := h2.account("free")
	r = h2.raw("GET", "/v1/companies/1/hiring-pulse", b.Key, nil, "Host", "evil.example")
	require.Equal(t, 402, r.status)
	require.Equal(t, "https://api.hiringsignal.example/v1/pricing#upgrade", r.json(t)["detail"].(map[string]any)["upgrade_url"])
}

// An Idempotency-Key is printable ASCII: a non-ASCII one reached Postgres' text column and
// answered 503.
func TestIdempotencyKeyMustBePrintableASCII(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSearch(1))
	a := h.account("growth")
	for _, k := range []string{"\xff\xfebad", "tab\there", "caf\u00e9", strings.Repeat("k", 256)} {
		r := h.raw("GET", "/v1/reqs/search", a.Key, nil, "Idempotency-Key", k)
		require.Equal(t, 422, r.status, "%q: %s", k, r.body)
		var v apitest.Invalid
		require.NoError(t, json.Unmarshal(r.body, &v))
		require.Equal(t, []string{"header.Idempotency-Key"}, v.Locs(), "%q", k)
		require.Contains(t, []string{"string_pattern_mismatch", "string_too_long"}, v.Detail[0].Type)
	}
	// Control characters are refused by the HTTP parser (400), whose answer quotes nothing of the
	// request.
	for _, k := range []string{"nul\x00x", "del\x7f", "bell\x07"} {
		r := h.raw("GET", "/v1/reqs/search", a.Key, nil, "Idempotency-Key", k)
		require.Equal(t, 400, r.status, "%q", k)
		require.NotContains(t, string(r.body), a.Key)
		require.NotContains(t, string(r.body), k)
	}
	for _, k := range []string{"a", "order 42 / retry: ~!", strings.Repeat("k", 255)} {
		r := h.raw("GET", "/v1/reqs/search", a.Key, nil, "Idempotency-Key", k)
		require.Equal(t, 200, r.status, "%q: %s", k, r.body)
	}
}

// Stored idempotent answers are bounded per body and per customer.
func TestIdempotencyStoreBoundsStoredBytes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20+1) // one byte over the default per-body bound
	n := 0
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				n++
				if string(c.Ctx.QueryArgs().Peek("q")) == "big" {
					return 1, c.JSON(200, map[string]any{"pad": big, "n": n})
				}
				return 1, c.JSON(200, map[string]any{"n": n})
			}))
		}
	})
	a := h.account("growth")
	r1 := h.do("GET", "/v1/reqs/search?q=big", a.Key, "", "Idempotency-Key", "k1")
	require.Equal(t, 200, r1.status)
	require.Greater(t, len(r1.body), 1<<20)
	// The answer was served and metered once, but not kept: a replay says so and is not metered.
	r2 := h.do("GET", "/v1/reqs/search?q=big", a.Key, "", "Idempotency-Key", "k1")
	require.Equal(t, 409, r2.status, "%.200s", r2.body)
	require.Contains(t, r2.json(t)["detail"], "not kept")
	require.Equal(t, 1, n, "the handler ran once")
	var stored int
	require.NoError(t, h.pool.QueryRow(context.Background(), "SELECT coalesce(sum(octet_length(body)), 0) FROM idempotency_keys").Scan(&stored))
	require.Zero(t, stored)
	// A small answer is kept and replayed.
	s1 := h.do("GET", "/v1/reqs/search", a.Key, "", "Idempotency-Key", "k2")
	s2 := h.do("GET", "/v1/reqs/search", a.Key, "", "Idempotency-Key", "k2")
	require.Equal(t, 200, s2.status)
	require.Equal(t, string(s1.body), string(s2.body))
	require.Equal(t, "true", s2.header["Idempotent-Replayed"])
}

// The per-customer bound of stored answers, and a duplicate's wait bounded by the call's deadline.
func TestIdempotencyStoreBoundsBytesPerCustomerAndTheWait(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	h := newHarness(t, func(cfg *api.Config, s *api.Server) {
		cfg.IdempotencyCustomerBytes = 300
		cfg.StoreTimeout = time.Second
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				if string(c.Ctx.QueryArgs().Peek("q")) == "block" {
					entered <- struct{}{}
					<-release
				}
				return 1, c.JSON(200, map[string]any{"pad": strings.Repeat("y", 100), "q": string(c.Ctx.QueryArgs().Peek("q"))})
			}))
		}
	})
	a, b := h.account("growth"), h.account("growth")
	for i := 0; i < 4; i++ { // about 120 bytes each: two fit in 300, the rest are served but not kept
		require.Equal(t, 200, h.do("GET", "/v1/reqs/search?q="+itoa(int64(i)), a.Key, "", "Idempotency-Key", "a"+itoa(int64(i))).status)
	}
	kept := 0
	for i := 0; i < 4; i++ {
		r := h.do("GET", "/v1/reqs/search?q="+itoa(int64(i)), a.Key, "", "Idempotency-Key", "a"+itoa(int64(i)))
		if r.status == 200 {
			kept++
		} else {
			require.Equal(t, 409, r.status)
		}
	}
	require.Equal(t, 2, kept)
	var used int64
	require.NoError(t, h.pool.QueryRow(context.Background(), "SELECT coalesce(sum(octet_length(body)), 0) FROM idempotency_keys WHERE customer_id = $1", a.CustomerID).Scan(&used))
	require.LessOrEqual(t, used, int64(300))
	// Another customer has a budget of its own.
	require.Equal(t, 200, h.do("GET", "/v1/reqs/search", b.Key, "", "Idempotency-Key", "b").status)
	require.Equal(t, "true", h.do("GET", "/v1/reqs/search", b.Key, "", "Idempotency-Key", "b").header["Idempotent-Replayed"])

	// A duplicate of a call in flight waits at most the call's store deadline, then 409.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.do("GET", "/v1/reqs/search?q=block", b.Key, "", "Idempotency-Key", "slow") }()
	<-entered
	start := time.Now()
	r := h.do("GET", "/v1/reqs/search?q=block", b.Key, "", "Idempotency-Key", "slow")
	took := time.Since(start)
	close(release)
	wg.Wait()
	require.Equal(t, 409, r.status, "%s", r.body)
	require.Less(t, took, 3*time.Second)
}

// Behind a trusted proxy (here: loopback, where the test calls from), the rightmost
// X-Forwarded-For entry is the client, never the leftmost (client-written) one, and IPv6 clients
// are limited per /64, not per /128.
func TestForwardedForTakesTheRightmostEntryAndLimitsIPv6Per64(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(cfg *api.Config, s *api.Server) {
		cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
		withSearch(1)(cfg, s)
	})
	waitForFreshWindow()
	// The client writes any leftmost entry it likes; the proxy appends the address it saw.
	var last resp
	for i := 0; i < 61; i++ {
		last = h.raw("GET", "/v1/reqs/search", api.PublicDemoKey, nil, "X-Forwarded-For", fmt.Sprintf("10.0.%d.%d, 203.0.113.7", i/250, i%250))
	}
	require.Equal(t, 429, last.status, "the demo key's per-IP limit holds whatever the client writes first")
	// A client header and the proxy's own header line: the proxy's (last) line counts.
	r := h.raw("GET", "/v1/reqs/search", api.PublicDemoKey, nil, "X-Forwarded-For", "198.51.100.1, 198.51.100.9")
	require.Equal(t, 200, r.status)

	// IPv6: every address of one /64 shares the limit.
	for i := 0; i < 61; i++ {
		last = h.raw("GET", "/v1/reqs/search", api.PublicDemoKey, nil, "X-Forwarded-For", fmt.Sprintf("2001:db8:1:2::%x", i+1))
	}
	require.Equal(t, 429, last.status, "one /64 is one client")
	r = h.raw("GET", "/v1/reqs/search", api.PublicDemoKey, nil, "X-Forwarded-For", "2001:db8:1:3::1")
	require.Equal(t, 200, r.status, "another /64 is another client")
}

// A peer that is not a trusted proxy is the client whatever X-Forwarded-For it sends: two
// demo-key calls from loopback claiming two different addresses spend one per-address window
// (RateLimit-Remaining goes down by one between them), while behind a trusted proxy each address
// has a window of its own.
func TestASpoofedForwardedForFromAnUntrustedPeerIsIgnored(t *testing.T) {
	t.Parallel()
	remaining := func(h *harness, addr string) int {
		t.Helper()
		r := h.raw("GET", "/v1/reqs/search", api.PublicDemoKey, nil, "X-Forwarded-For", addr)
		require.Equal(t, 200, r.status, "%s", r.body)
		n, err := strconv.Atoi(r.header["Ratelimit-Remaining"])
		require.NoError(t, err, "%v", r.header)
		return n
	}
	elsewhere := newHarness(t, func(cfg *api.Config, s *api.Server) {
		cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")} // not loopback
		withSearch(1)(cfg, s)
	})
	same := false
	for i := 0; i < 5 && !same; i++ { // two calls within one minute's window (a pair across its end is tried again)
		first := remaining(elsewhere, fmt.Sprintf("203.0.113.%d", 2*i))
		same = remaining(elsewhere, fmt.Sprintf("203.0.113.%d", 2*i+1)) == first-1
	}
	require.True(t, same, "an untrusted peer's X-Forwarded-For picks its window")

	behind := newHarness(t, func(cfg *api.Config, s *api.Server) {
		cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		withSearch(1)(cfg, s)
	})
	require.Equal(t, remaining(behind, "203.0.113.1"), remaining(behind, "203.0.113.2"), "a trusted proxy's clients have a window each")
}

// waitForFreshWindow waits until at least 40 s of the current 60-second window remain.
func waitForFreshWindow() {
	if s := time.Now().Second(); s > 20 {
		time.Sleep(time.Duration(60-s) * time.Second)
	}
}

// A declared Content-Length is not allocated before the body arrives, nor before authentication
// (fasthttp allocates it up front by default).
func TestSlowBodiesHoldNoDeclaredLengthBeforeAuthentication(t *testing.T) {
	// Not parallel: it counts the process's allocations, which tests running beside it would add to.
	h := newHarness(t, nil)
	addr := strings.TrimPrefix(h.s.Base, "http://")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const conns = 40
	var cs []net.Conn
	for i := 0; i < conns; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		cs = append(cs, c)
		_, err = fmt.Fprintf(c, "POST /v1/keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"scopes\":")
		require.NoError(t, err)
	}
	time.Sleep(500 * time.Millisecond) // the server read every header
	runtime.ReadMemStats(&after)
	for _, c := range cs {
		c.Close()
	}
	grew := after.TotalAlloc - before.TotalAlloc
	require.Less(t, grew, uint64(8<<20), "%d connections declaring 1 MB each made the server allocate %d bytes", conns, grew)
}

// Bodies in flight share a byte budget, connections per IP are capped and a header
// must arrive within the header timeout.
func TestConnectionAndBodyLimits(t *testing.T) {
	// Not parallel: it times the header timeout (300 ms, under 2 s), which a busy process would stretch.
	h := newHarness(t, func(cfg *api.Config, _ *api.Server) {
		cfg.MaxBodyBytes = 64 << 10
		cfg.BodyBytesInFlight = 128 << 10
		cfg.MaxConnsPerIP = 8
		cfg.ReadHeaderTimeout = 300 * time.Millisecond
		cfg.ReadBodyTimeout = 2 * time.Second
	})
	a := h.account("growth")
	addr := strings.TrimPrefix(h.s.Base, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}
	status := func(c net.Conn) int {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var code int
		_, err := fmt.Fscanf(c, "HTTP/1.1 %d", &code)
		require.NoError(t, err)
		return code
	}
	// Two authenticated calls each hold a 64 KiB body budget while their bodies trickle in.
	head := fmt.Sprintf("POST /v1/keys HTTP/1.1\r\nHost: x\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", a.Key, 60<<10)
	prefix := append([]byte(`{"scopes":["read"],"pad":"`), bytes.Repeat([]byte("p"), 9000)...)
	slow := []net.Conn{dial(), dial()}
	for _, c := range slow {
		_, err := io.WriteString(c, head)
		require.NoError(t, err)
		_, err = c.Write(prefix)
		require.NoError(t, err)
	}
	// Both are reading their bodies once they hold the budget (not a fixed pause: a loaded
	// machine may take longer to get there).
	require.Eventually(t, func() bool {
		return h.metric("hs_http_request_body_bytes_in_flight") == float64(2*(60<<10))
	}, 10*time.Second, 10*time.Millisecond)
	// A third is refused at once: 503 in the spec's shape, not queued behind them.
	r := h.raw("POST", "/v1/keys", a.Key, []byte(`{"scopes":["read"],"p":"`+strings.Repeat("q", 20000)+`"}`))
	require.Equal(t, 503, r.status, "%s", r.body)
	require.Contains(t, r.json(t)["detail"], "retry")
	// The slow bodies time out (408) and free the budget.
	for _, c := range slow {
		require.Equal(t, 408, status(c))
	}
	require.Equal(t, 201, h.raw("POST", "/v1/keys", a.Key, []byte(`{"scopes":["read"]}`)).status)
	// Larger than MaxBodyBytes: 413, before the body is read.
	r = h.raw("POST", "/v1/keys", a.Key, bytes.Repeat([]byte(" "), 65<<10))
	require.Equal(t, 413, r.status)

	// A header that never completes is dropped after the header timeout.
	c := dial()
	_, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
	require.NoError(t, err)
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	start := time.Now()
	_, err = io.ReadAll(c)
	require.NoError(t, err)
	require.Less(t, time.Since(start), 2*time.Second)

	// More than MaxConnsPerIP connections from one address: the extra ones are refused. The
	// connections of the steps above are released as the server closes them, possibly while
	// these are accepted, so the test holds 12 open keep-alive connections and requires that
	// no more than 8 were served and the rest refused with 429.
	served, refused := 0, 0
	for i := 0; i < 12; i++ {
		c := dial()
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		switch code := status(c); code {
		case 200:
			served++ // kept open (keep-alive): it keeps counting
		case 429:
			refused++
			// A concurrency bound: key_throttled, without RateLimit-* or Retry-After (spec 5).
			rest, _ := io.ReadAll(c)
			require.Contains(t, string(rest), `"reason":"key_throttled"`)
			require.NotContains(t, string(rest), "Retry-After")
			require.NotContains(t, string(rest), "RateLimit")
		default:
			t.Fatalf("connection %d answered %d", i, code)
		}
	}
	require.LessOrEqual(t, served, 8)
	require.Equal(t, 12, served+refused)
	require.GreaterOrEqual(t, refused, 4)
}

// --demo-key "" revokes the previously installed demo key instead of leaving it active.
func TestDisablingTheDemoKeyRevokesTheInstalledOne(t *testing.T) {
	t.Parallel()
	pool := storetest.Postgres(t, "api")
	h := startOn(t, pool, nil)
	require.Equal(t, 200, h.do("GET", "/v1/whoami", api.PublicDemoKey, "").status)
	off := startOn(t, pool, func(cfg *api.Config, _ *api.Server) { cfg.DemoKey = "" })
	require.Equal(t, 403, off.do("GET", "/v1/whoami", api.PublicDemoKey, "").status)
	require.Equal(t, 403, h.do("GET", "/v1/whoami", api.PublicDemoKey, "").status, "every instance drops it")
	// Enabling it again reinstates it.
	on := startOn(t, pool, nil)
	require.Equal(t, 200, on.do("GET", "/v1/whoami", api.PublicDemoKey, "").status)
}

// Store calls have a deadline: a store that does not answer times the call out as 503 instead of
// hanging it.
func TestStoreCallsHaveADeadlineAndTimeOutAs503(t *testing.T) {
	t.Parallel()
	var pool *pgxpool.Pool
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				if _, err := pool.Exec(c.Context(), "SELECT pg_sleep(20)"); err != nil {
					return 0, api.Internal(fmt.Errorf("cannot sleep: %w", err))
				}
				return 1, c.JSON(200, map[string]any{})
			}))
		}
	})
	pool = h.pool
	a := h.account("growth")
	start := time.Now()
	r := h.do("GET", "/v1/reqs/search", a.Key, "")
	took := time.Since(start)
	require.Equal(t, 503, r.status, "%s", r.body)
	require.IsType(t, "", r.json(t)["detail"])
	require.Contains(t, r.json(t)["detail"], "retry")
	require.Less(t, took, 8*time.Second, "the default store timeout is 5 s")
}

// A per-IP cap of calls in flight, next to the per-key one.
func TestCallsInFlightAreCappedPerIP(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	h := newHarness(t, func(cfg *api.Config, s *api.Server) {
		cfg.IPMaxInFlight = 1
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				select {
				case entered <- struct{}{}:
				default:
				}
				select {
				case <-release:
				case <-time.After(3 * time.Second):
				}
				return 1, c.JSON(200, map[string]any{})
			}))
		}
	})
	a, b := h.account("growth"), h.account("growth")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.do("GET", "/v1/reqs/search", a.Key, "") }()
	<-entered
	r := h.do("GET", "/v1/reqs/search", b.Key, "") // another key, the same address
	close(release)
	wg.Wait()
	require.Equal(t, 429, r.status, "%s", r.body)
	require.Equal(t, "key_throttled", r.json(t)["detail"].(map[string]any)["reason"])
	require.Equal(t, 200, h.do("GET", "/v1/reqs/search", b.Key, "").status)
}

// /readyz names only the failing store and never echoes driver errors.
func TestReadyzNamesOnlyTheFailingStore(t *testing.T) {
	t.Parallel()
	secret := errors.New("failed to connect to `user=hs_admin database=prod`: 10.1.2.3:5432: password authentication failed")
	srv := api.New(api.Config{Listen: "127.0.0.1:0", Checks: []api.Check{
		{Name: "postgres", Ping: func(context.Context) error { return secret }},
		{Name: "clickhouse", Ping: func(context.Context) error { return nil }},
	}})
	require.NoError(t, srv.Start(context.Background()))
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	code, body, err := fasthttp.Get(nil, "http://"+srv.Addr()+"/readyz")
	require.NoError(t, err)
	require.Equal(t, 503, code)
	require.Contains(t, string(body), "postgres")
	require.NotContains(t, string(body), "clickhouse")
	for _, leak := range []string{"hs_admin", "10.1.2.3", "password", "prod"} {
		require.NotContains(t, string(body), leak)
	}
}

// A 422 lists at most MaxFieldErrors problems and the vocabulary once, not once per bad value.
func TestValidationErrorsAreCappedAndListTheVocabularyOnce(t *testing.T) {
	t.Parallel()
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("vocabulary_word_%02d", i)
	}
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(&api.Route{Name: "test.vocab", Method: "POST", Path: "/v1/test-vocab", Summary: "test", Tag: "test",
				Body:     &api.Body{Required: true, Fields: []api.Field{{Name: "vals", Type: "array", Items: "string", Enum: vocab, MaxItems: 1_000_000}}},
				Statuses: []int{200}, Handler: func(c *api.Call) (int, error) { return 0, c.JSON(200, map[string]any{}) }})
		}
	})
	a := h.account("growth")
	bad := make([]string, 100000)
	for i := range bad {
		bad[i] = "x"
	}
	body, err := json.Marshal(map[string]any{"vals": bad})
	require.NoError(t, err)
	require.Less(t, len(body), 1<<20)
	r := h.do("POST", "/v1/test-vocab", a.Key, string(body))
	require.Equal(t, 422, r.status)
	require.Less(t, len(r.body), 32<<10, "a bounded answer")
	var v apitest.Invalid
	require.NoError(t, json.Unmarshal(r.body, &v))
	require.Len(t, v.Detail, problem.MaxFieldErrors)
	last := v.Detail[len(v.Detail)-1]
	require.Equal(t, "too_many_errors", last.Type)
	require.EqualValues(t, 100000-(problem.MaxFieldErrors-1), last.Ctx["omitted"])
	require.Equal(t, 2, strings.Count(string(r.body), "vocabulary_word_39"), "listed once: in the first item's msg and ctx")
	require.Equal(t, "enum", v.Detail[1].Type)
	require.EqualValues(t, 0, v.Detail[1].Ctx["expected_in"])
}

// The request line and headers are bounded by MaxHeaderBytes (16 KiB by default): a query string
// of 100 values, the most a repeatable parameter takes, fits (it was 400 at fasthttp's 4 KiB), and
// a longer one is 431 in the spec's error shape, documented on every operation with the limit in
// x-bounds. The connection is closed after it (the rest of the header is still on it).
func TestHeaderSizeIsBoundedAndDocumented(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSearch(1))
	a := h.account("growth")
	values := func(n int) string {
		var b strings.Builder
		b.WriteString("/v1/reqs/search?q=engineer")
		for i := range n {
			fmt.Fprintf(&b, "&industry=%03d%s", i, strings.Repeat("x", 97))
		}
		return b.String()
	}
	r := h.do("GET", values(100), a.Key, "")
	require.Equal(t, 200, r.status, "%.300s", r.body)

	r = h.do("GET", values(200), a.Key, "")
	require.Equal(t, 431, r.status, "%.300s", r.body)
	require.Contains(t, r.json(t)["detail"], "the limit is 16384 bytes")
	require.Equal(t, "close", r.header["Connection"])
	require.Equal(t, 1.0, h.metric(`hs_http_refused_total{reason="header_too_large"}`), "counted for the operator")

	var doc struct {
		Paths   map[string]map[string]openapiOperation `json:"paths"`
		XBounds map[string]any                         `json:"x-bounds"`
	}
	require.NoError(t, json.Unmarshal(h.do("GET", "/openapi.json", "", "").body, &doc))
	require.EqualValues(t, api.DefaultMaxHeaderBytes, doc.XBounds["max_header_bytes"])
	for path, ops := range doc.Paths {
		for method, op := range ops {
			require.Contains(t, op.Responses, "431", "%s %s", method, path)
		}
	}
}

// A 503 says when to come back: while Postgres is down (a pool on a port nothing listens on),
// and without Postgres at all, the answer carries Retry-After as the document declares.
func TestA503WhileAStoreIsDownCarriesRetryAfter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	pool, err := pgxpool.New(ctx, "postgres://postgres@"+down+"/hiringsignal?sslmode=disable&connect_timeout=2")
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	key, err := apikey.New() // well formed: its lookup needs Postgres
	require.NoError(t, err)
	for name, cfg := range map[string]api.Config{"postgres down": {Pool: pool}, "no postgres": {}} {
		cfg.Listen, cfg.Log, cfg.MeteringDir = "127.0.0.1:0", slog.New(slog.DiscardHandler), t.TempDir()
		srv := api.New(cfg)
		srv.Register(stub("companies.is_hiring", func(c *api.Call) (int, error) { return 0, c.JSON(200, map[string]any{}) }))
		require.NoError(t, srv.Start(ctx), name)
		t.Cleanup(func() { _ = srv.Stop(context.Background()) })
		req, err := http.NewRequest("GET", "http://"+srv.Addr()+"/v1/companies/5/is-hiring", nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", key)
		r, err := http.DefaultClient.Do(req)
		require.NoError(t, err, name)
		r.Body.Close()
		require.Equal(t, 503, r.StatusCode, name)
		ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
		require.NoError(t, err, "%s: Retry-After %q", name, r.Header.Get("Retry-After"))
		require.GreaterOrEqual(t, ra, 1, name)
	}
}
