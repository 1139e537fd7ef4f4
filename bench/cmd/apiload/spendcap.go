package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/bench/benchapi"
	"github.com/planehq/hiringsignal/oltp"
)

// The spendcap target (--targets spendcap): --conns workers call GET /v1/reqs/search with
// limit=--spend-cap-page on a Starter account whose hard cap is --spend-cap-units, each until it
// is refused 402; then the units recorded are compared with the cap. Without a crawled world
// the route is a stub serving limit rows (the chain, admission and metering are the real ones).

// spendCapStub is reqs/search as api/search declares it, serving a full page of limit rows.
func spendCapStub() *api.Route {
	for _, rt := range search.Routes(search.Deps{}) {
		if rt.Name == "reqs.search" {
			rt.Handler = func(c *api.Call) (int, error) {
				n := c.Limit()
				rows := make([]map[string]any, n)
				for i := range rows {
					rows[i] = map[string]any{"company_id": i + 1, "matched_req_count": 1}
				}
				return n, c.JSON(200, map[string]any{"companies": rows})
			}
			return rt
		}
	}
	panic("api/search declares no reqs.search")
}

type spendCapResult struct {
	hard, page, units int64
	conns             int
	served, refused   int64
	other             int64
	elapsed           time.Duration
}

func runSpendCap(ctx context.Context, pool *pgxpool.Pool, srv *api.Server, base string, conns int, hard, page int64, dur time.Duration) (spendCapResult, error) {
	res := spendCapResult{hard: hard, page: page, conns: conns}
	acct, err := benchapi.Account(ctx, pool, "starter", "spendcap-bench@example.com")
	if err != nil {
		return res, err
	}
	if err := oltp.SetCaps(ctx, pool, acct.AccountID, nil, &hard); err != nil {
		return res, err
	}
	c := &fasthttp.HostClient{Addr: base[len("http://"):], MaxConns: conns, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, MaxResponseBodySize: 64 << 20}
	url := base + "/v1/reqs/search?limit=" + strconv.FormatInt(page, 10)
	var served, refused, other atomic.Int64
	deadline := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.Header.Set("X-API-Key", acct.Key)
			req.SetRequestURI(url)
			for time.Now().Before(deadline) {
				if err := c.Do(req, resp); err != nil {
					other.Add(1)
					continue
				}
				switch resp.StatusCode() {
				case 200:
					served.Add(1)
				case 402:
					refused.Add(1)
					return
				default:
					other.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.served, res.refused, res.other = served.Load(), refused.Load(), other.Load()
	if err := srv.FlushUsage(ctx); err != nil {
		return res, err
	}
	if res.units, _, err = oltp.MonthUnits(ctx, pool, acct.AccountID); err != nil {
		return res, err
	}
	return res, nil
}

func (r spendCapResult) print() {
	verdict := "OK: within one page"
	if r.units >= r.hard+r.page || r.units < r.hard {
		verdict = "NOT HELD"
	}
	fmt.Printf("\nspend cap: %d concurrent calls of %d-row pages, hard cap %d units: %d pages served, %d refused 402, %d other answers in %s; %d units recorded, overshoot %d (%s)\n",
		r.conns, r.page, r.hard, r.served, r.refused, r.other, r.elapsed.Round(time.Millisecond), r.units, r.units-r.hard, verdict)
}
