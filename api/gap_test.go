package api_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	feed "github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// The gap world: a world of 150 companies whose largest crawl region (na, about 50 of them) is
// crawled every 3-hour window from Monday 2026-03-02 00:00 (tick 448): all of that week (A),
// Monday 00:00 to 09:00 of the next (B), then no window for a day (ticks 508..515: the service
// was down), then the rest of week B and the first two windows of week C. Week A is observed
// whole, week B has the gap and has ended, week C is the current one. One region, not seven:
// each region's cycle is a few ClickHouse inserts, and week A alone is 56 cycles of each.
const (
	gapWeekA     = 448           // Monday 2026-03-02 00:00
	gapLastAhead = gapWeekA + 59 // Monday 2026-03-09 09:00: the last cycle before the gap
	gapFirstBack = gapWeekA + 68 // Tuesday 2026-03-10 12:00: the first cycle after it
	gapLast      = gapWeekA + 113
)

// The crawl stops for a day of windows, and the gap shows everywhere a customer looks, through
// the real path (a simulated world crawled tick by tick, the read snapshot over its ledger, the
// handlers): the change feed's rows of the first cycle after the gap carry after_gap with its
// bounds and no row before it does; a company's momentum week with the gap is partial while a
// whole week before it is not; so is role demand's; every /v1 answer says the history is
// incomplete and names the gap, and conforms to the served document. Before the gap the same
// world, served by the same server, reads complete: the instance holds all it was started with
// (api.History.Complete, as the binary's serve sets it) and no gap, so X-History-Complete is true
// and X-History-Gap absent.
func TestAGapInTheCrawlShowsEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 13, Companies: 150, First: gapWeekA, Last: gapLastAhead, Step: 1,
		Regions: []string{"na"}})
	snaps := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(ctx, true)
	require.NoError(t, err)
	srv := apitest.StartServer(t, apitest.Options{DB: "api_gap",
		Config: func(cfg *api.Config) {
			cfg.History = func() api.History { // as cmd/hiringsignal's serve: complete unless a gap
				cur := snaps.Current()
				h := api.History{Complete: true, From: cur.Model.Since, Through: cur.AsOf}
				if g, ok := cur.LatestGap(); ok {
					h.GapFrom, h.GapTo = g.From, g.To
				}
				return h
			}
		},
		Register: func(s *api.Server, pool *pgxpool.Pool) {
			q := apitest.Quiet()
			companies.Register(s, companies.Deps{Snapshots: snaps, Pool: pool, Log: q, ColdAfter: -1})
			search.Register(s, search.Deps{Snapshots: snaps, Log: q, QueueWait: time.Minute})
			feed.Register(s, feed.Deps{Snapshots: snaps, ClickHouse: w.CH, Log: q})
		}})
	key := srv.RoomyAccount(t, "growth").Key

	at := func(tick int) string { return w.Sim.CycleTime(tick).UTC().Format(time.RFC3339) }
	weekA, weekB, weekC := at(gapWeekA), at(gapWeekA+56), at(gapWeekA+112)
	from, to := at(gapLastAhead), at(gapFirstBack)
	gapped, through := false, at(gapLastAhead)
	// call calls GET path?q, the operation op of the document, and requires the status want, a
	// body conforming to the document (decoded into v) and the history headers of the moment.
	call := func(op, path string, q url.Values, want int, v any) {
		t.Helper()
		r := srv.Get(t, path, key, q)
		r.Decode(t, want, v)
		srv.Conforms(t, "GET", op, r)
		if gapped {
			require.Equal(t, "false", r.Header[api.HeaderHistoryComplete], "%s: a gap lies in the served history", path)
			require.Equal(t, from+"/"+to, r.Header[api.HeaderHistoryGap], "%s names the gap", path)
		} else {
			require.Equal(t, "true", r.Header[api.HeaderHistoryComplete], "%s: all committed, no gap", path)
			require.NotContains(t, r.Header, api.HeaderHistoryGap, path)
		}
		require.Equal(t, weekA, r.Header[api.HeaderHistoryFrom], path)
		require.Equal(t, through, r.Header[api.HeaderHistoryThrough], path)
	}
	get := func(op, path string, q url.Values, v any) {
		t.Helper()
		call(op, path, q, 200, v)
	}
	// events is the whole change feed, page by page.
	events := func() []feed.Event {
		t.Helper()
		var out []feed.Event
		since := uint64(0)
		for i := 0; ; i++ {
			require.Less(t, i, 1000, "the feed does not end")
			var p feed.Page
			get("/v1/events", "/v1/events", url.Values{"since": {strconv.FormatUint(since, 10)}, "limit": {strconv.Itoa(feed.PageMax)}}, &p)
			out = append(out, p.Events...)
			since = p.NextCursor
			if !p.HasMore {
				return out
			}
		}
	}
	momentum := func(id uint64) map[string]bool {
		t.Helper()
		var p readmodel.Pulse
		get("/v1/companies/{company_id}/hiring-pulse", fmt.Sprintf("/v1/companies/%d/hiring-pulse", id), nil, &p)
		out := map[string]bool{}
		for _, mw := range p.Momentum {
			out[mw.BucketStart.UTC().Format(time.RFC3339)] = mw.Partial
		}
		return out
	}
	demand := func(role string) map[string]bool {
		t.Helper()
		var d struct {
			Series []struct {
				BucketStart string `json:"bucket_start"`
				Partial     bool   `json:"partial"`
			} `json:"series"`
		}
		get("/v1/markets/role-demand", "/v1/markets/role-demand", url.Values{"role": {role}}, &d)
		out := map[string]bool{}
		for _, wk := range d.Series {
			if wk.BucketStart < weekA { // the week before observation began (an opening of the first cycle posted before it)
				require.True(t, wk.Partial, "week %s began before observation", wk.BucketStart)
				continue
			}
			out[wk.BucketStart] = wk.Partial
		}
		return out
	}

	// Before the gap: week A is whole, week B current; no event follows a gap.
	before := events()
	require.NotEmpty(t, before)
	for _, e := range before {
		require.Nil(t, e.AfterGap, "event %d: no gap yet", e.EventSeq)
	}
	require.Empty(t, snaps.Current().Gaps)

	// A company whose coverage began with the crawl, which published in week A, and which the
	// simulator's truth gives a req at the first window after the gap that the crawl never saw.
	first := w.Sim.CycleTime(gapWeekA)
	inWeekA := map[uint64]string{} // company → the function of an opening in week A
	for _, e := range before {
		if e.EventType == analytics.EventOpened && e.ObservedAt > weekA && e.ObservedAt < weekB && e.Function != nil {
			inWeekA[e.CompanyID] = *e.Function
		}
	}
	idOf := map[string]uint64{}
	for id, c := range w.Companies {
		idOf[c.Domain] = id
	}
	var co uint64
	for _, r := range w.Sim.Truth(gapFirstBack).Reqs {
		id, crawled := idOf[r.CompanyDomain]
		c := snaps.Current().Model.Company(id)
		if _, seen := w.FirstSeen[id][readmodeltest.TruthKey(r)]; !crawled || seen || inWeekA[id] == "" || c == nil || !c.ObservedFrom().Equal(first) {
			continue
		}
		if co == 0 || id < co {
			co = id
		}
	}
	require.NotZero(t, co, "a company that published in week A and has a new req after the gap")
	role := inWeekA[co]
	require.Equal(t, map[string]bool{weekA: false, weekB: true}, momentum(co), "week A observed whole, week B current")
	require.Equal(t, map[string]bool{weekA: false, weekB: true}, demand(role))

	// The day the crawl stood still, and what came after.
	for tick := gapFirstBack; tick <= gapLast; tick++ {
		w.CrawlAt(t, tick)
	}
	_, err = snaps.Refresh(ctx, true)
	require.NoError(t, err)
	require.Equal(t, []analytics.Gap{{Region: "na", From: w.Sim.CycleTime(gapLastAhead).UTC(), To: w.Sim.CycleTime(gapFirstBack).UTC(),
		FromTick: gapLastAhead, ToTick: gapFirstBack}}, snaps.Current().Gaps, "the one region crawled missed a day of windows")
	gapped, through = true, at(gapLast)

	// The change feed: the changes the first cycle after the gap observed happened inside
	// (from, to] and say so; no other event does.
	all := events()
	require.Greater(t, len(all), len(before))
	require.Equal(t, before, all[:len(before)], "the history before the gap is unchanged")
	byType := map[string]int{}
	opened := map[uint64]bool{} // companies with an opening first seen after the gap
	for _, e := range all {
		if e.ObservedAt == to && e.EventType != analytics.EventReobserved {
			require.NotNil(t, e.AfterGap, "event %d (%s) of the first cycle after the gap", e.EventSeq, e.EventType)
			require.Equal(t, from, e.AfterGap.From, "event %d", e.EventSeq)
			require.Equal(t, to, e.AfterGap.To, "event %d", e.EventSeq)
			require.LessOrEqual(t, e.OccurredAt, to, "event %d", e.EventSeq)
			require.Greater(t, e.OccurredAt, from, "event %d happened inside the gap", e.EventSeq)
			byType[e.EventType]++
			opened[e.CompanyID] = opened[e.CompanyID] || e.EventType == analytics.EventOpened
			continue
		}
		require.Nil(t, e.AfterGap, "event %d (%s) observed at %s is no change after the gap", e.EventSeq, e.EventType, e.ObservedAt)
	}
	t.Logf("the first cycle after the gap: %v", byType)
	require.Positive(t, byType[analytics.EventOpened], "openings after the gap")
	require.Positive(t, byType[analytics.EventClosed], "closes after the gap")
	require.True(t, opened[co], "company %d opened a req after the gap", co)

	// Momentum and role demand: week B has the gap (and has ended), A was observed whole, C is
	// current.
	require.Equal(t, map[string]bool{weekA: false, weekB: true, weekC: true}, momentum(co))
	require.Equal(t, map[string]bool{weekA: false, weekB: true, weekC: true}, demand(role))

	// Any other /v1 answer, an error too, names the gap.
	var v map[string]any
	get("/v1/whoami", "/v1/whoami", nil, &v)
	call("/v1/companies/{company_id}/hiring-pulse", "/v1/companies/999999/hiring-pulse", nil, 404, &v)
}
