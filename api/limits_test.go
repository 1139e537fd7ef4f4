package api_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func TestPerKeyRateLimitHoldsAcrossInstances(t *testing.T) {
	t.Parallel()
	pool := storetest.Postgres(t, "api")
	a := startOn(t, pool, withSearch(1))
	b := startOn(t, pool, withSearch(1))
	acct := a.account("free") // 20 per 60 s
	ok := 0
	var last resp
	for i := 0; i < 30; i++ {
		h := a
		if i%2 == 1 {
			h = b
		}
		last = h.do("GET", "/v1/reqs/search", acct.Key, "")
		if last.status == 200 {
			ok++
			require.NotEmpty(t, last.header["Ratelimit-Limit"])
			require.Equal(t, "20", last.header["Ratelimit-Limit"])
			require.NotEmpty(t, last.header["Ratelimit-Remaining"])
			require.NotEmpty(t, last.header["Ratelimit-Reset"])
		}
	}
	if time.Now().Second() < 58 { // the window did not turn mid-test
		require.Equal(t, 20, ok)
	}
	require.Equal(t, 429, last.status)
	d := last.json(t)["detail"].(map[string]any)
	require.Equal(t, "rate_limited", d["reason"])
	require.Equal(t, "/v1/reqs/search", d["endpoint"])
	require.NotContains(t, d, "signup_url")
	ra, err := strconv.Atoi(last.header["Retry-After"])
	require.NoError(t, err)
	require.GreaterOrEqual(t, ra, 1)
}

func TestDemoKeyIsLimitedPerIPAndCarriesSignupURL(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSearch(20))
	w := h.do("GET", "/v1/whoami", api.PublicDemoKey, "").json(t)
	require.Equal(t, true, w["demo"])
	require.Equal(t, []any{"read"}, w["scopes"])
	// Tighter page: the default drops to DemoPageLimit, more is 422.
	r := h.do("GET", "/v1/reqs/search?limit=6", api.PublicDemoKey, "")
	require.Equal(t, 422, r.status)
	require.EqualValues(t, api.DemoPageLimit, r.json(t)["detail"].([]any)[0].(map[string]any)["ctx"].(map[string]any)["le"])
	var last resp
	n := 2
	for ; n < 70 && last.status != 429; n++ {
		last = h.do("GET", "/v1/reqs/search", api.PublicDemoKey, "")
	}
	require.Equal(t, 429, last.status)
	d := last.json(t)["detail"].(map[string]any)
	require.Equal(t, "rate_limited", d["reason"])
	require.NotEmpty(t, d["signup_url"])
	require.Equal(t, "60", last.header["Ratelimit-Limit"])
	// The demo key bills nothing.
	require.NoError(t, h.srv.FlushUsage(context.Background()))
	var cnt int
	require.NoError(t, h.pool.QueryRow(context.Background(), "SELECT count(*) FROM usage_events").Scan(&cnt))
	require.Zero(t, cnt)
}

func TestKeylessCallsReachOnlyPublicRoutesWithAPerIPLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSearch(1))
	require.Equal(t, 200, h.do("GET", "/v1/pricing", "", "").status)
	require.Equal(t, 200, h.do("GET", "/v1/compliance", "", "").status)
	require.Equal(t, 200, h.do("GET", "/openapi.json", "", "").status)
	require.Equal(t, 401, h.do("GET", "/v1/reqs/search", "", "").status)
	var last resp
	for i := 0; i < 70 && last.status != 429; i++ {
		last = h.do("GET", "/v1/changelog", "", "")
	}
	require.Equal(t, 429, last.status)
	require.NotContains(t, last.json(t)["detail"].(map[string]any), "signup_url")
}

func TestKeyThrottledHasNoRateLimitHeaders(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	h := newHarness(t, func(cfg *api.Config, s *api.Server) {
		cfg.KeyMaxInFlight = 1
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				entered <- struct{}{}
				<-release
				return 1, c.JSON(200, map[string]any{})
			}))
		}
	})
	a := h.account("growth")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.do("GET", "/v1/reqs/search", a.Key, "") }()
	<-entered
	r := h.do("GET", "/v1/reqs/search", a.Key, "")
	close(release)
	wg.Wait()
	require.Equal(t, 429, r.status)
	require.Equal(t, "key_throttled", r.json(t)["detail"].(map[string]any)["reason"])
	for _, hd := range []string{"Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset", "Retry-After"} {
		require.NotContains(t, r.header, hd)
	}
}

func TestDailyQuotaAndSpendCapAnswer402(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, func(cfg *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", rows(3)),
				stub("companies.hiring_pulse", func(c *api.Call) (int, error) { return 0, c.JSON(200, map[string]any{}) }))
		}
	})
	a := h.account("free")
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, h.pool, a.AccountID, &big))
	// Bad keys never count against anything.
	for i := 0; i < 5; i++ {
		require.Equal(t, 403, h.do("GET", "/v1/reqs/search", "hsk_bad", "").status)
	}
	var last resp
	ok := 0
	for i := 0; i < 101; i++ {
		last = h.do("GET", "/v1/reqs/search", a.Key, "")
		if last.status == 200 {
			ok++
		}
	}
	require.Equal(t, 100, ok)
	require.Equal(t, 402, last.status)
	d := last.json(t)["detail"].(map[string]any)
	require.Equal(t, "quota_exceeded", d["reason"])
	require.Equal(t, "/v1/reqs/search", d["endpoint"])
	q := d["quota"].(map[string]any)
	require.EqualValues(t, 100, q["limit"])
	require.EqualValues(t, 100, q["used"])
	require.NotEmpty(t, q["reset"])
	require.NotEmpty(t, d["upgrade_url"])
	require.NotEmpty(t, d["purchase_url"])

	// Free plan does not list hiring-pulse: 402 with the upgrade path.
	r := h.do("GET", "/v1/companies/1/hiring-pulse", h.account("free").Key, "")
	require.Equal(t, 402, r.status)
	require.Equal(t, "quota_exceeded", r.json(t)["detail"].(map[string]any)["reason"])
	require.Equal(t, 200, h.do("GET", "/v1/companies/1/hiring-pulse", h.account("growth").Key, "").status)

	// Spend cap: 3 units per call, hard cap 5 units.
	s := h.account("starter")
	soft, hard := int64(4), int64(5)
	require.NoError(t, oltp.SetCaps(ctx, h.pool, s.AccountID, &soft, &hard))
	require.Equal(t, 200, h.do("GET", "/v1/reqs/search", s.Key, "").status)
	require.Equal(t, 200, h.do("GET", "/v1/reqs/search", s.Key, "").status)
	r = h.do("GET", "/v1/reqs/search", s.Key, "")
	require.Equal(t, 402, r.status)
	d = r.json(t)["detail"].(map[string]any)
	require.Equal(t, "spend_cap_exceeded", d["reason"])
	require.EqualValues(t, 5, d["quota"].(map[string]any)["limit"])
	require.EqualValues(t, 6, d["quota"].(map[string]any)["used"])
}

func TestPauseBlocksBillableRoutesOnly(t *testing.T) {
	t.Parallel()
	pool := storetest.Postgres(t, "api")
	a := startOn(t, pool, withSearch(1))
	b := startOn(t, pool, withSearch(1))
	acct := a.account("growth")
	require.Equal(t, 200, b.do("GET", "/v1/reqs/search", acct.Key, "").status)
	r := a.do("POST", "/v1/account/pause", acct.Key, "")
	require.Equal(t, 200, r.status)
	require.Equal(t, true, r.json(t)["paused"])
	r = b.do("GET", "/v1/reqs/search", acct.Key, "")
	require.Equal(t, 403, r.status)
	require.Equal(t, "account_paused", r.json(t)["detail"].(map[string]any)["reason"])
	require.Equal(t, 200, b.do("GET", "/v1/whoami", acct.Key, "").status)
	require.Equal(t, 200, b.do("GET", "/v1/usage", acct.Key, "").status)
	require.Equal(t, 200, b.do("POST", "/v1/account/resume", acct.Key, "").status)
	require.Equal(t, 200, a.do("GET", "/v1/reqs/search", acct.Key, "").status)
}

// A call that fails, or answers anything but a success, gives its daily quota call back: only
// metered calls count against the quota.
func TestCallsThatAreNotMeteredGiveTheirQuotaBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var n atomic.Int64
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				switch i := n.Add(1); {
				case i <= 5:
					return 0, errors.New("the handler failed")
				case i <= 10:
					return 0, api.NotFound("nothing here")
				}
				return 1, c.JSON(200, map[string]any{})
			}))
		}
	})
	a := h.account("free") // 100 calls a day
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, h.pool, a.AccountID, &big))
	ok := 0
	for i := 0; i < 110; i++ {
		if h.do("GET", "/v1/reqs/search", a.Key, "").status == 200 {
			ok++
		}
	}
	require.Equal(t, 100, ok)
	require.Equal(t, 402, h.do("GET", "/v1/reqs/search", a.Key, "").status)
}

// A 200 the handler marks NotBilled (an enrichment that found no company) gives its daily quota
// call back and meters no unit, yet is metered to the presented key: it is in the usage ledger
// (keys[], last_used_at) with no call and no unit, and the dashboard's calls today leave it out.
func TestANotBilledCallGivesItsQuotaBackAndMetersNoUnit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var n atomic.Int64
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				if n.Add(1) <= 20 {
					c.NotBilled()
					return 5, c.JSON(200, map[string]any{})
				}
				return 1, c.JSON(200, map[string]any{})
			}))
		}
	})
	a := h.account("free") // 100 calls a day
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, h.pool, a.AccountID, &big))
	for i := 0; i < 20; i++ {
		require.Equal(t, 200, h.do("GET", "/v1/reqs/search", a.Key, "").status)
	}
	u := h.do("GET", "/v1/usage", a.Key, "").json(t)
	require.EqualValues(t, 0, u["calls"])
	require.EqualValues(t, 0, u["source_rows"])
	keys := u["keys"].([]any)
	require.Len(t, keys, 1, "metered to the presented key")
	require.EqualValues(t, 0, keys[0].(map[string]any)["calls"])
	for _, it := range h.do("GET", "/v1/keys", a.Key, "").json(t)["keys"].([]any) {
		require.NotNil(t, it.(map[string]any)["last_used_at"], "the key's last use shows the free calls")
	}
	var units int64
	require.NoError(t, h.pool.QueryRow(ctx, "SELECT COALESCE(sum(units), 0) FROM usage_monthly WHERE account_id = $1", a.AccountID).Scan(&units))
	require.Zero(t, units, "nothing counts against the spend cap")

	ok := 0
	for i := 0; i < 110; i++ {
		if h.do("GET", "/v1/reqs/search", a.Key, "").status == 200 {
			ok++
		}
	}
	require.Equal(t, 100, ok, "the whole daily quota is left after the free calls")
	u = h.do("GET", "/v1/usage", a.Key, "").json(t)
	require.EqualValues(t, 100, u["calls"])
	require.EqualValues(t, 100, u["source_rows"])
}
