package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

type harness struct {
	t    *testing.T
	pool *pgxpool.Pool
	srv  *api.Server
	base string
}

type resp struct {
	status int
	header map[string]string
	body   []byte
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), string(r.body))
	return m
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newHarness starts a server on a fresh schema. setup runs before Start (Handle calls).
func newHarness(t *testing.T, setup func(*api.Config, *api.Server)) *harness {
	t.Helper()
	return startOn(t, storetest.Postgres(t, "api"), setup)
}

func startOn(t *testing.T, pool *pgxpool.Pool, setup func(*api.Config, *api.Server)) *harness {
	t.Helper()
	cfg := api.Config{Listen: "127.0.0.1:0", Log: quiet(), Pool: pool, MeteringDir: t.TempDir(), MeteringFlush: 50 * time.Millisecond, MeteringSyncEvery: 20 * time.Millisecond, DemoKey: api.PublicDemoKey}
	if setup != nil {
		setup(&cfg, nil)
	}
	srv := api.New(cfg)
	if setup != nil {
		setup(&cfg, srv)
	}
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Stop(ctx)
	})
	require.NoError(t, srv.StoresReady(context.Background()))
	require.Eventually(t, srv.AuthListening, 5*time.Second, 10*time.Millisecond)
	return &harness{t: t, pool: pool, srv: srv, base: "http://" + srv.Addr()}
}

func (h *harness) do(method, path, key, body string, headers ...string) resp {
	h.t.Helper()
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	res := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod(method)
	req.SetRequestURI(h.base + path)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if body != "" {
		req.Header.SetContentType("application/json")
		req.SetBodyString(body)
	}
	require.NoError(h.t, fasthttp.DoTimeout(req, res, 15*time.Second))
	out := resp{status: res.StatusCode(), header: map[string]string{}, body: append([]byte(nil), res.Body()...)}
	for _, k := range res.Header.PeekKeys() {
		out.header[string(k)] = string(res.Header.PeekBytes(k))
	}
	return out
}

func (h *harness) account(plan string) oltp.NewAccount {
	h.t.Helper()
	a, err := oltp.CreateAccount(context.Background(), h.pool, plan, plan+"@example.com")
	require.NoError(h.t, err)
	return a
}

// rows is a stand-in for the reads issue's handler: it serves n rows and reports them.
func rows(n int) api.HandlerFunc {
	return func(c *api.Call) (int, error) {
		out := make([]int, n)
		return n, c.JSON(200, map[string]any{"companies": out})
	}
}

func withSearch(n int) func(*api.Config, *api.Server) {
	return func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Handle("reqs.search", rows(n))
		}
	}
}
