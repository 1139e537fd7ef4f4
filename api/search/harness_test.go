package search_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/normalize"
	"github.com/planehq/hiringsignal/readmodel"
	"github.com/planehq/hiringsignal/searchindex"
	"github.com/planehq/hiringsignal/sim"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// world is a simulated world crawled into a fresh ClickHouse database.
type world struct {
	t       *testing.T
	sim     *sim.World
	base    string
	ch      driver.Conn
	crawler *pipeline.Crawler
	last    int
}

func newWorld(t *testing.T, companies, first, last int) *world {
	t.Helper()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	w := sim.New(sim.Config{Seed: 7, Companies: companies, BaseURL: base})
	srv := &http.Server{Handler: w.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	t.Cleanup(func() { srv.Close() })
	ch, _ := storetest.ClickHouse(t, "search")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: quiet()})
	require.NoError(t, err)
	wd := &world{t: t, sim: w, base: base, ch: ch, crawler: c, last: first - 1}
	wd.crawlTo(last)
	return wd
}

func (w *world) crawlTo(last int) {
	w.t.Helper()
	for tick := w.last + 1; tick <= last; tick++ {
		w.sim.Pin(tick)
		_, err := w.crawler.RunTick(context.Background(), w.base, tick)
		require.NoError(w.t, err)
	}
	w.last = last
}

// truthLive is the set of req_keys live in the simulator's truth at the last crawled tick.
func (w *world) truthLive() map[string]bool {
	out := map[string]bool{}
	for _, r := range w.sim.Truth(w.last).Reqs {
		country, _ := normalize.CountryName(r.Country)
		out[pipeline.ReqKey(pipeline.CompanyID(r.CompanyDomain), normalize.TitleKey(r.Title), country)] = true
	}
	return out
}

// currentReqs reads every req's state straight from the ledger (the brute-force reference).
func (w *world) currentReqs() []*analytics.Req {
	w.t.Helper()
	ctx := context.Background()
	wm, _, err := analytics.Watermark(ctx, w.ch)
	require.NoError(w.t, err)
	var out []*analytics.Req
	require.NoError(w.t, analytics.CurrentReqs(ctx, w.ch, wm, func(r *analytics.Req) error {
		out = append(out, r)
		return nil
	}))
	return out
}

// fakePulses serves a pulse for every company (the read model is wired in by main).
type fakePulses struct{}

func (fakePulses) Pulse(id uint64) (readmodel.Pulse, bool) {
	cov := "covered"
	return readmodel.Pulse{CompanyID: id, CoverageStatus: cov, Momentum: []readmodel.MomentumWeek{}}, true
}

type harness struct {
	t    *testing.T
	pool *pgxpool.Pool
	srv  *api.Server
	base string
	idx  *searchindex.Service
}

func newHarness(t *testing.T, ch driver.Conn, deps search.Deps) *harness {
	t.Helper()
	ctx := context.Background()
	pool := storetest.Postgres(t, "search")
	svc := searchindex.New(searchindex.Config{ClickHouse: ch, Log: quiet(), Poll: time.Hour})
	_, err := svc.Refresh(ctx)
	require.NoError(t, err)
	cfg := api.Config{Listen: "127.0.0.1:0", Log: quiet(), Pool: pool, MeteringDir: t.TempDir(), MeteringFlush: 50 * time.Millisecond, MeteringSyncEvery: 20 * time.Millisecond, DemoKey: api.PublicDemoKey}
	srv := api.New(cfg)
	if deps.Index == nil {
		deps.Index = svc
	}
	if deps.Pulses == nil {
		deps.Pulses = fakePulses{}
	}
	search.Register(srv, deps)
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Stop(ctx)
	})
	require.NoError(t, srv.StoresReady(ctx))
	require.Eventually(t, srv.AuthListening, 5*time.Second, 10*time.Millisecond)
	return &harness{t: t, pool: pool, srv: srv, base: "http://" + srv.Addr(), idx: svc}
}

type resp struct {
	status int
	header map[string]string
	body   []byte
}

func (r resp) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), string(r.body))
	return m
}

func (h *harness) do(method, path, key, body string) resp {
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
	if body != "" {
		req.Header.SetContentType("application/json")
		req.SetBodyString(body)
	}
	require.NoError(h.t, fasthttp.DoTimeout(req, res, 30*time.Second))
	out := resp{status: res.StatusCode(), header: map[string]string{}, body: append([]byte(nil), res.Body()...)}
	for _, k := range res.Header.PeekKeys() {
		out.header[string(k)] = string(res.Header.PeekBytes(k))
	}
	return out
}

func (h *harness) get(path, key string, q url.Values) resp {
	h.t.Helper()
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return h.do("GET", path, key, "")
}

func (h *harness) account(plan string) oltp.NewAccount {
	h.t.Helper()
	a, err := oltp.CreateAccount(context.Background(), h.pool, plan, plan+"-"+time.Now().Format("150405.000000")+"@example.com")
	require.NoError(h.t, err)
	return a
}

// sourceRows is the source_row units metered to the key's customer in the last 24 hours.
func (h *harness) sourceRows(key string) int {
	h.t.Helper()
	require.NoError(h.t, h.srv.FlushUsage(context.Background()))
	r := h.get("/v1/usage", key, nil)
	require.Equal(h.t, 200, r.status, string(r.body))
	return int(r.obj(h.t)["source_rows"].(float64))
}

// errLocs returns the loc of every 422 item.
func errLocs(t *testing.T, r resp) [][]any {
	t.Helper()
	require.Equal(t, 422, r.status, string(r.body))
	var body struct {
		Detail []api.FieldError `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(r.body, &body), string(r.body))
	var out [][]any
	for _, d := range body.Detail {
		out = append(out, d.Loc)
	}
	return out
}
