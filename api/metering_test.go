package api_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

func TestParallelMeteringLosesAndDoublesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, withSearch(3))
	a := h.account("growth")
	const n = 300
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	var mu sync.Mutex
	ok := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if h.do("GET", "/v1/reqs/search", a.Key, "").status == 200 {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Equal(t, n, ok)
	// Non-billable calls and failed calls are never metered.
	h.do("GET", "/v1/whoami", a.Key, "")
	h.do("GET", "/v1/reqs/search?limit=0", a.Key, "")
	u := h.do("GET", "/v1/usage", a.Key, "").json(t)
	require.EqualValues(t, n, u["calls"])
	require.EqualValues(t, 3*n, u["source_rows"])
	// The ledger holds rollups (per key, route, function and second): they sum to the calls.
	var calls, units, rowsN int
	require.NoError(t, h.pool.QueryRow(ctx, "SELECT sum(calls), sum(units), count(*) FROM usage_events").Scan(&calls, &units, &rowsN))
	require.Equal(t, n, calls)
	require.Equal(t, 3*n, units)
	require.LessOrEqual(t, rowsN, n)
	var monthUnits int64
	require.NoError(t, h.pool.QueryRow(ctx, "SELECT units FROM usage_monthly WHERE account_id = $1", a.AccountID).Scan(&monthUnits))
	require.EqualValues(t, 3*n, monthUnits)
}

func TestUsageTotalsEqualTheSumOverKeys(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", rows(2)), events(func(c *api.Call) (int, error) { return 4, c.JSON(200, map[string]any{"events": []int{1, 2, 3, 4}}) }),
				stub("companies.is_hiring", func(c *api.Call) (int, error) { c.SetFunction("fn_eng"); return 0, c.JSON(200, map[string]any{}) }))
		}
	})
	a := h.account("growth")
	k2 := h.do("POST", "/v1/keys", a.Key, `{}`).json(t)["key"].(string)
	_ = h.do("POST", "/v1/keys", a.Key, `{}`) // a third key, never used
	h.do("GET", "/v1/reqs/search", a.Key, "")
	h.do("GET", "/v1/events", k2, "")
	h.do("GET", "/v1/events", k2, "")
	h.do("GET", "/v1/companies/5/is-hiring", k2, "")
	other := h.account("growth")
	h.do("GET", "/v1/reqs/search", other.Key, "")

	u := h.do("GET", "/v1/usage?window=1", a.Key, "").json(t)
	keys := u["keys"].([]any)
	require.Len(t, keys, 2, "only keys with metered events")
	prev := 0.0
	for _, name := range []string{"calls", "source_rows", "changes", "watches", "delivered_changes"} {
		sum := 0.0
		for _, k := range keys {
			sum += k.(map[string]any)[name].(float64)
		}
		require.Equal(t, u[name], sum, name)
	}
	for _, k := range keys {
		id := k.(map[string]any)["key_id"].(float64)
		require.Greater(t, id, prev, "ascending by key_id")
		prev = id
	}
	require.EqualValues(t, 4, u["calls"])
	require.EqualValues(t, 2, u["source_rows"])
	require.EqualValues(t, 8, u["changes"])
	require.EqualValues(t, 1, u["by_function"].(map[string]any)["fn_eng"], "by_function counts metered calls")
	// last_used_at comes from the ledger.
	for _, it := range h.do("GET", "/v1/keys", a.Key, "").json(t)["keys"].([]any) {
		m := it.(map[string]any)
		if m["key_id"].(float64) == keys[0].(map[string]any)["key_id"].(float64) {
			require.NotNil(t, m["last_used_at"])
		}
	}
	r := h.do("GET", "/v1/usage?window=0", a.Key, "")
	require.Equal(t, 422, r.status)
}

func TestIdempotencyKeyReplaysAndMetersOnce(t *testing.T) {
	t.Parallel()
	n := 0
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				n++
				return 2, c.JSON(200, map[string]any{"n": n})
			}))
		}
	})
	a := h.account("growth")
	r1 := h.do("GET", "/v1/reqs/search?q=engineer", a.Key, "", "Idempotency-Key", "abc")
	r2 := h.do("GET", "/v1/reqs/search?q=engineer", a.Key, "", "Idempotency-Key", "abc")
	require.Equal(t, 200, r1.status)
	require.Equal(t, 200, r2.status)
	require.Equal(t, string(r1.body), string(r2.body))
	require.Equal(t, "true", r2.header["Idempotent-Replayed"])
	r3 := h.do("GET", "/v1/reqs/search?q=sales", a.Key, "", "Idempotency-Key", "abc")
	require.Equal(t, 422, r3.status)
	// Another customer's identical key is its own.
	b := h.account("growth")
	r4 := h.do("GET", "/v1/reqs/search?q=engineer", b.Key, "", "Idempotency-Key", "abc")
	require.NotEqual(t, string(r1.body), string(r4.body))
	u := h.do("GET", "/v1/usage", a.Key, "").json(t)
	require.EqualValues(t, 1, u["calls"])
	require.EqualValues(t, 2, u["source_rows"])
}

// events is GET /v1/events (spec 4.4, not built yet) served by h: a route metering change units.
func events(h api.HandlerFunc) *api.Route {
	return &api.Route{Name: "events", Method: "GET", Path: "/v1/events", Summary: "Ledger events after a cursor, ascending by event_seq", Tag: "events",
		Meter: api.MeterChange, Scope: api.ScopeRead, Gate: "/v1/events", Params: []api.Param{
			{Name: "since", In: "query", Type: "integer", Min: new(int64(0)), Default: int64(0)},
			{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(1000)), Default: int64(100)}},
		Statuses: []int{200}, Handler: h}
}

// Every answer of a billable route says what the call cost: X-Units-Charged (the units metered in
// the route's meter class) and X-Meter-Class; a per-call route charges 0 units, a replay of an
// Idempotency-Key answer and a call of the demo key too; a route that bills nothing carries
// neither, nor does a refused call.
func TestEveryBillableAnswerSaysTheUnitsItCharged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", rows(7)), events(func(c *api.Call) (int, error) { return 4, c.JSON(200, map[string]any{"events": []int{1, 2, 3, 4}}) }),
				stub("companies.is_hiring", func(c *api.Call) (int, error) { return 0, c.JSON(200, map[string]any{}) }))
		}
	})
	a := h.account("growth")
	charged := func(r resp) (string, string) { return r.header[api.UnitsChargedHeader], r.header[api.MeterClassHeader] }
	for _, c := range []struct {
		path, key, units, class string
		headers                 []string
	}{
		{path: "/v1/reqs/search", key: a.Key, units: "7", class: "source_row"},
		{path: "/v1/events", key: a.Key, units: "4", class: "change"},
		{path: "/v1/companies/5/is-hiring", key: a.Key, units: "0", class: "call"},
		{path: "/v1/reqs/search?q=x", key: a.Key, units: "7", class: "source_row", headers: []string{"Idempotency-Key", "k1"}},
		{path: "/v1/reqs/search?q=x", key: a.Key, units: "0", class: "source_row", headers: []string{"Idempotency-Key", "k1"}}, // replayed: metered once
		{path: "/v1/reqs/search", key: api.PublicDemoKey, units: "0", class: "source_row"},
	} {
		r := h.do("GET", c.path, c.key, "", c.headers...)
		require.Equal(t, 200, r.status, "%s %s", c.path, r.body)
		units, class := charged(r)
		require.Equal(t, c.units, units, c.path)
		require.Equal(t, c.class, class, c.path)
	}
	u := h.do("GET", "/v1/usage", a.Key, "").json(t)
	require.EqualValues(t, 14, u["source_rows"], "the header says what usage counts")
	require.EqualValues(t, 4, u["changes"])
	for _, r := range []resp{h.do("GET", "/v1/whoami", a.Key, ""), h.do("GET", "/v1/reqs/search?limit=0", a.Key, "")} {
		units, class := charged(r)
		require.Empty(t, units)
		require.Empty(t, class)
	}
}
