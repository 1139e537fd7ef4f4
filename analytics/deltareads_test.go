package analytics_test

import (
	"context"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// After every commit (a region's window, or an on-demand crawl of one company), the companies
// TouchedCompanies names include every company with an event of the commit and the on-demand
// crawl's company; the company-filtered reads of those companies give exactly the full reads'
// rows of them, and so do the reads of the commit applied to the previous watermark's req
// positions (StreamCompanyLedgerReqsAbove); and the role demand and the momentum between two
// watermarks added to the earlier series are the later ones.
func TestCompanyReadsOfTheTouchedCompaniesAreTheFullReadsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	world := sim.New(sim.Config{Seed: 9, Companies: 30, BaseURL: base, NoGzip: true})
	srv := &http.Server{Handler: world.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	defer srv.Close()
	ch, _ := storetest.ClickHouse(t, "analytics_delta")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler), Fetch: pipeline.FetchConfig{AllowPrivate: true}})
	require.NoError(t, err)

	prev := analytics.AtWatermark(0, time.Unix(0, 0))
	checked := 0
	positions := map[uint64][]analytics.ReqAt{}    // every req's, by company, at prev
	weeksAt := map[[2]uint64]analytics.WeekCount{} // every company's momentum at prev, by company and week
	weekKey := func(w analytics.WeekCount) [2]uint64 { return [2]uint64{w.Key, uint64(w.BucketStart.Unix())} }
	check := func(onDemand uint64) {
		t.Helper()
		wm, at, err := analytics.Watermark(ctx, ch)
		require.NoError(t, err)
		g := analytics.AtWatermark(wm, at)
		touched, err := analytics.TouchedCompanies(ctx, ch, prev, g)
		require.NoError(t, err)
		require.True(t, slices.IsSorted(touched))
		want := map[uint64]bool{}
		if wm > prev.Watermark {
			page, err := analytics.ReadFeed(ctx, ch, analytics.FeedQuery{After: prev.Watermark, Upper: wm, Limit: int(wm - prev.Watermark)})
			require.NoError(t, err)
			for _, e := range page.Events {
				want[e.CompanyID] = true
			}
		}
		if onDemand != 0 {
			want[onDemand] = true
		}
		for id := range want {
			require.Contains(t, touched, id)
		}
		isTouched := map[uint64]bool{}
		for _, id := range touched {
			isTouched[id] = true
		}

		var fullReqs, gotReqs, aboveReqs []analytics.LedgerReq
		now := map[uint64][]analytics.ReqAt{}
		require.NoError(t, analytics.StreamLedgerReqs(ctx, ch, g, func(r *analytics.LedgerReq) error {
			if isTouched[r.CompanyID] {
				fullReqs = append(fullReqs, *r)
			}
			require.Positive(t, r.LastSeq)
			require.LessOrEqual(t, r.OpenSeq, r.LastSeq)
			now[r.CompanyID] = append(now[r.CompanyID], r.At())
			return nil
		}))
		var known []analytics.ReqAt
		for _, id := range touched {
			known = append(known, positions[id]...)
		}
		require.NoError(t, analytics.StreamCompanyLedgerReqsAbove(ctx, ch, g, touched, prev.Watermark, known, func(r *analytics.LedgerReq) error {
			aboveReqs = append(aboveReqs, *r)
			return nil
		}))
		require.Equal(t, fullReqs, aboveReqs, "the commit's events folded into the reqs at the previous positions")
		positions = now
		require.NoError(t, analytics.StreamCompanyLedgerReqs(ctx, ch, g, touched, func(r *analytics.LedgerReq) error {
			gotReqs = append(gotReqs, *r)
			return nil
		}))
		require.Equal(t, fullReqs, gotReqs)

		var fullWeeks, gotWeeks []analytics.WeekCount
		weeks := map[[2]uint64]analytics.WeekCount{}
		require.NoError(t, analytics.StreamMomentum(ctx, ch, wm, func(w analytics.WeekCount) error {
			if isTouched[w.Key] {
				fullWeeks = append(fullWeeks, w)
			}
			weeks[weekKey(w)] = w
			return nil
		}))
		// The momentum at prev plus the commit's weeks is the momentum now.
		added := maps.Clone(weeksAt)
		require.NoError(t, analytics.StreamMomentumBetween(ctx, ch, prev.Watermark, wm, wm, func(w analytics.WeekCount) error {
			v, ok := added[weekKey(w)]
			if !ok {
				v = w
			} else {
				v.Opened, v.Reposted, v.Closed = v.Opened+w.Opened, v.Reposted+w.Reposted, v.Closed+w.Closed
			}
			added[weekKey(w)] = v
			return nil
		}))
		if prev.Watermark > 0 { // the first commit moves every coverage start
			require.Equal(t, len(weeks), len(added))
			for k, w := range weeks {
				v := added[k]
				require.Equal(t, [3]uint64{w.Opened, w.Reposted, w.Closed}, [3]uint64{v.Opened, v.Reposted, v.Closed}, "company %d, week %d", k[0], k[1])
			}
		}
		weeksAt = weeks
		require.NoError(t, analytics.StreamCompanyMomentum(ctx, ch, wm, touched, func(w analytics.WeekCount) error {
			gotWeeks = append(gotWeeks, w)
			return nil
		}))
		require.Equal(t, fullWeeks, gotWeeks)

		allATS, err := analytics.ATSHistoryAt(ctx, ch, g)
		require.NoError(t, err)
		var fullATS []analytics.VendorSighting
		for _, v := range allATS {
			if isTouched[v.CompanyID] {
				fullATS = append(fullATS, v)
			}
		}
		gotATS, err := analytics.CompanyATSHistoryAt(ctx, ch, g, touched)
		require.NoError(t, err)
		require.Equal(t, fullATS, gotATS)

		var fullBoards, gotBoards []analytics.BoardSighting
		require.NoError(t, analytics.StreamCompanyBoards(ctx, ch, g, func(b *analytics.BoardSighting) error {
			if isTouched[b.CompanyID] {
				fullBoards = append(fullBoards, *b)
			}
			return nil
		}))
		require.NoError(t, analytics.StreamCompanyBoardsOf(ctx, ch, g, touched, func(b *analytics.BoardSighting) error {
			gotBoards = append(gotBoards, *b)
			return nil
		}))
		require.Equal(t, fullBoards, gotBoards)

		// Role demand: the previous series plus the commit's events is the new series.
		before, err := analytics.RoleDemand(ctx, ch, prev.Watermark)
		require.NoError(t, err)
		between, err := analytics.RoleDemandBetween(ctx, ch, prev.Watermark, wm, wm)
		require.NoError(t, err)
		after, err := analytics.RoleDemand(ctx, ch, wm)
		require.NoError(t, err)
		sum := map[[3]string][3]uint64{}
		for _, l := range [][]analytics.WeekCount{before, between} {
			for _, w := range l {
				k := [3]string{w.Function, w.Country, w.BucketStart.UTC().String()}
				v := sum[k]
				sum[k] = [3]uint64{v[0] + w.Opened, v[1] + w.Reposted, v[2] + w.Closed}
			}
		}
		want2 := map[[3]string][3]uint64{}
		for _, w := range after {
			want2[[3]string{w.Function, w.Country, w.BucketStart.UTC().String()}] = [3]uint64{w.Opened, w.Reposted, w.Closed}
		}
		if prev.Watermark > 0 { // the first commit moves every coverage start
			require.Equal(t, want2, sum)
		}
		checked += len(gotReqs)
		prev = g
	}
	for _, tick := range []int{200, 208, 216} {
		world.Pin(tick)
		dir, err := pipeline.FetchDirectory(ctx, http.DefaultClient, base, tick)
		require.NoError(t, err)
		regions := dir.Regions
		if tick > 200 {
			regions = regions[:2] // one commit per region from here
		}
		for _, r := range regions {
			_, err := c.RunRegions(ctx, dir, []string{r})
			require.NoError(t, err)
			if tick > 200 {
				check(0)
			}
		}
		if tick == 200 {
			check(0)
		}
		co := dir.Companies[tick%len(dir.Companies)]
		_, err = c.RunCompany(ctx, dir, co.Domain, world.CycleTime(tick).Add(time.Hour))
		require.NoError(t, err)
		check(pipeline.CompanyID(co.Domain))
	}
	require.Positive(t, checked)
}
