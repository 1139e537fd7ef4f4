package analytics_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// After every crawled cycle, the reqs touched by its events (and by the events of the last three
// cycles) read with StreamTouchedLedgerReqs are exactly the rows the full StreamLedgerReqs gives
// for them at the same watermark, and CompaniesOf gives CompaniesAt's rows of the companies asked.
func TestTouchedReqsAndCompaniesAreTheFullReadsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	world := sim.New(sim.Config{Seed: 5, Companies: 60, BaseURL: base, NoGzip: true}) // a fixture: no gzip under -race
	srv := &http.Server{Handler: world.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	defer srv.Close()

	ch, _ := storetest.ClickHouse(t, "analytics_touched")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler), Fetch: pipeline.FetchConfig{AllowPrivate: true}}) // the simulator on loopback, at full speed (HostRate 0)
	require.NoError(t, err)
	var marks []uint64
	checked := 0
	for tick := 100; tick < 112; tick++ {
		world.Pin(tick)
		_, err := c.RunTick(ctx, base, tick)
		require.NoError(t, err)
		wm, at, err := analytics.Watermark(ctx, ch)
		require.NoError(t, err)
		g := analytics.AtWatermark(wm, at)
		marks = append(marks, wm)
		full := map[string]analytics.LedgerReq{}
		require.NoError(t, analytics.StreamLedgerReqs(ctx, ch, g, func(r *analytics.LedgerReq) error {
			full[r.ReqKey] = *r
			return nil
		}))
		for _, after := range []uint64{marks[max(len(marks)-2, 0)], marks[max(len(marks)-4, 0)]} {
			if after >= wm {
				continue
			}
			page, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: after, Upper: wm, Limit: int(wm - after)})
			require.NoError(t, err)
			want := map[string]analytics.LedgerReq{}
			for _, e := range page.Events {
				want[e.ReqKey] = full[e.ReqKey]
			}
			got := map[string]analytics.LedgerReq{}
			require.NoError(t, analytics.StreamTouchedLedgerReqs(ctx, ch, g, after, wm, func(r *analytics.LedgerReq) error {
				got[r.ReqKey] = *r
				return nil
			}))
			require.NotEmpty(t, want)
			require.Equal(t, want, got, "reqs touched in (%d, %d]", after, wm)
			checked += len(got)
		}
		all, err := analytics.CompaniesAt(ctx, ch, g)
		require.NoError(t, err)
		var ids []uint64
		var wantCos []analytics.Company
		for i := 0; i < len(all); i += 3 {
			ids = append(ids, all[i].CompanyID)
			wantCos = append(wantCos, all[i])
		}
		gotCos, err := analytics.CompaniesOf(ctx, ch, g, append(ids, 1<<40)) // an id the directory does not list
		require.NoError(t, err)
		require.Equal(t, wantCos, gotCos)
	}
	require.Greater(t, checked, 100)
}
