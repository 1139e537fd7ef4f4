package api_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	feed "github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/outcomes"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// TestMain runs the shared fixtures' cleanups once every test is done (apitest.Shared).
func TestMain(m *testing.M) { apitest.Main(m) }

// harness is a server of internal/testkit/apitest (with the account routes) as these tests call it.
type harness struct {
	t    *testing.T
	s    *apitest.Server
	pool *pgxpool.Pool
	srv  *api.Server
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

// newHarness starts a server on a fresh schema. setup (may be nil) runs twice: with a nil
// server before New (to change cfg), then before Start (Register calls).
func newHarness(t *testing.T, setup func(*api.Config, *api.Server)) *harness {
	t.Helper()
	return startOn(t, storetest.Postgres(t, "api"), setup)
}

func startOn(t *testing.T, pool *pgxpool.Pool, setup func(*api.Config, *api.Server)) *harness {
	t.Helper()
	if setup == nil {
		setup = func(*api.Config, *api.Server) {}
	}
	var cfg *api.Config
	s := apitest.StartServer(t, apitest.Options{Pool: pool,
		Config:   func(c *api.Config) { cfg = c; setup(c, nil) },
		Register: func(srv *api.Server, _ *pgxpool.Pool) { setup(cfg, srv) }})
	return &harness{t: t, s: s, pool: pool, srv: s.API}
}

// do calls the server; body "" sends none; headers are name, value pairs.
func (h *harness) do(method, path, key, body string, headers ...string) resp {
	h.t.Helper()
	var b any
	if body != "" {
		b = body
	}
	r := h.s.Do(h.t, method, path, key, b, headers...)
	return resp{status: r.Status, header: r.Header, body: r.Body}
}

// metric is the value of the sample named name (with its labels) on the server's /metrics.
func (h *harness) metric(name string) float64 {
	h.t.Helper()
	r := h.do("GET", "/metrics", "", "")
	require.Equal(h.t, 200, r.status)
	for _, line := range strings.Split(string(r.body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(h.t, err, line)
			return f
		}
	}
	h.t.Fatalf("no sample %s on /metrics", name)
	return 0
}

func (h *harness) account(plan string) oltp.NewAccount {
	h.t.Helper()
	return h.s.Account(h.t, plan)
}

// declared are the routes api/search and api/companies declare, over zero Deps: the chain's tests
// need billable routes as declared, not the read side behind them, so they replace the handlers.
func declared() []*api.Route {
	return slices.Concat(search.Routes(search.Deps{}), companies.Routes(companies.Deps{}), feed.Routes(feed.Deps{}), outcomes.Routes(outcomes.Deps{}))
}

// stub is the declared route named name, served by h.
func stub(name string, h api.HandlerFunc) *api.Route {
	for _, rt := range declared() {
		if rt.Name == name {
			rt.Handler = h
			return rt
		}
	}
	panic("no route named " + name)
}

// rows is a stand-in for a search handler: it serves n rows and reports them.
func rows(n int) api.HandlerFunc {
	return func(c *api.Call) (int, error) {
		out := make([]int, n)
		return n, c.JSON(200, map[string]any{"companies": out})
	}
}

func withSearch(n int) func(*api.Config, *api.Server) {
	return func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", rows(n)))
		}
	}
}
