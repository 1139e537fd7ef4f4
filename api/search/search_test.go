package search_test

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/pipeline/normalize"
)

// The simulated world: 200 companies crawled for 4 days (32 cycles), so a 24-hour floor matters.
const (
	worldCompanies = 200
	firstTick      = 400
	lastTick       = 431
)

func TestSearchOnACrawledWorld(t *testing.T) {
	w := newWorld(t, worldCompanies, firstTick, lastTick)
	h := newHarness(t, w.ch, search.Deps{})
	growth := h.account("growth")
	free := h.account("free")
	x := h.idx.Current()
	require.NotNil(t, x)

	all := w.currentReqs()
	live := map[string]*analytics.Req{}
	for _, r := range all {
		if r.Live() {
			live[r.ReqKey] = r
		}
	}
	truth := w.truthLive()
	require.Len(t, live, len(truth))
	for k := range truth {
		require.Contains(t, live, k, "the ledger's live set is the world's")
	}
	require.Equal(t, len(live), x.Stats().LiveReqs)
	served := 0 // source_row units the growth key should have been metered

	// brute is the reference of reqs/search: companies → matching live reqs.
	brute := func(q string, keep func(*analytics.Req) bool) map[uint64]int {
		out := map[uint64]int{}
		qs := normalize.Stems(q)
		for _, r := range live {
			if normalize.MatchAll(qs, normalize.Stems(r.RawTitle)) && (keep == nil || keep(r)) {
				out[r.CompanyID]++
			}
		}
		return out
	}
	// pageAll pages reqs/search to the end and returns company → matched_req_count.
	pageAll := func(key string, q url.Values, limit int) map[uint64]int {
		t.Helper()
		got := map[uint64]int{}
		q.Set("limit", strconv.Itoa(limit))
		q.Del("cursor")
		prev := uint64(0)
		for page := 0; ; page++ {
			require.Less(t, page, 10000)
			r := h.get("/v1/reqs/search", key, q)
			require.Equal(t, 200, r.status, string(r.body))
			body := r.obj(t)
			cos := body["companies"].([]any)
			require.LessOrEqual(t, len(cos), limit)
			if key == growth.Key {
				served += len(cos)
			}
			for _, c := range cos {
				co := c.(map[string]any)
				id := uint64(co["company_id"].(float64))
				require.Greater(t, id, prev, "ascending company_id, every company once")
				prev = id
				_, dup := got[id]
				require.False(t, dup)
				got[id] = int(co["matched_req_count"].(float64))
				reqs := co["matched_reqs"].([]any)
				require.NotEmpty(t, reqs)
				require.NotNil(t, co["pulse"])
				for _, rr := range reqs {
					req := rr.(map[string]any)
					require.NotEmpty(t, req["raw_title"])
					require.NotEmpty(t, req["boards"])
					if fn, ok := req["function"].(string); ok {
						name, named := normalize.FunctionName(fn)
						if named {
							require.Equal(t, name, req["function_name"])
						} else {
							require.Nil(t, req["function_name"], "function_name is null outside the vocabulary")
						}
					}
					if c, ok := req["country"].(string); ok {
						require.Equal(t, normalize.CountryCode(c), req["country_code"])
					}
				}
			}
			nc, more := body["next_cursor"]
			if !more {
				break
			}
			require.Equal(t, float64(prev), nc, "next_cursor is the highest company_id of the page")
			q.Set("cursor", strconv.FormatUint(prev, 10))
		}
		return got
	}

	t.Run("inflections and word order", func(t *testing.T) {
		want := brute("Engineer", nil)
		require.NotEmpty(t, want)
		require.Equal(t, want, pageAll(growth.Key, url.Values{"q": {"engineers"}}, 7))
		require.Equal(t, brute("senior engineer", nil), pageAll(growth.Key, url.Values{"q": {"ENGINEERS senior"}}, 13))
		// role is q's deprecated alias.
		r := h.get("/v1/reqs/search", growth.Key, url.Values{"role": {"engineers"}, "limit": {"100"}})
		require.Equal(t, 200, r.status)
		require.Equal(t, "true", r.header["Deprecation"])
		require.NotEmpty(t, r.header["Sunset"])
		served += len(r.obj(t)["companies"].([]any))
		// A title matching nothing is an empty page.
		r = h.get("/v1/reqs/search", growth.Key, url.Values{"q": {"zzyzx-nothing"}})
		require.Equal(t, 200, r.status)
		require.Empty(t, r.obj(t)["companies"])
		require.NotContains(t, r.obj(t), "next_cursor")
	})

	t.Run("no q covers every company with a live req exactly once", func(t *testing.T) {
		require.Equal(t, brute("", nil), pageAll(growth.Key, url.Values{}, 100))
	})

	t.Run("filters", func(t *testing.T) {
		countries := map[string]int{}
		for _, r := range live {
			countries[r.Country]++
		}
		var names []string
		for c := range countries {
			if c != "" {
				names = append(names, c)
			}
		}
		sort.Slice(names, func(i, j int) bool { return countries[names[i]] > countries[names[j]] })
		two := names[:2]
		want := brute("", func(r *analytics.Req) bool { return r.Country == two[0] || r.Country == two[1] })
		require.Equal(t, want, pageAll(growth.Key, url.Values{"geo": {two[0], strings.ToLower(two[1])}}, 50))

		want = brute("", func(r *analytics.Req) bool { return r.SourceType == "board" })
		require.Equal(t, want, pageAll(growth.Key, url.Values{"source_type": {"board"}}, 100))

		since := time.Unix(x.CycleTime.Unix(), 0).Add(-36 * time.Hour).UTC()
		want = brute("", func(r *analytics.Req) bool { return !r.FirstSeen.Before(since) })
		require.Equal(t, want, pageAll(growth.Key, url.Values{"since": {since.Format(time.RFC3339)}}, 100))

		// Company facts: unknown never matches; agencies dropped only when classified.
		cos, err := analytics.Companies(t.Context(), w.ch)
		require.NoError(t, err)
		facts := map[uint64]analytics.Company{}
		industries := map[string]int{}
		for _, c := range cos {
			facts[c.CompanyID] = c
			industries[c.Industry]++
		}
		var ind string
		for k, n := range industries {
			if k != "" && (ind == "" || n > industries[ind]) {
				ind = k
			}
		}
		want = brute("", func(r *analytics.Req) bool { return strings.EqualFold(facts[r.CompanyID].Industry, ind) })
		require.NotEmpty(t, want)
		require.Equal(t, want, pageAll(growth.Key, url.Values{"industry": {strings.ToUpper(ind)}}, 100))
		term := strings.ToLower(ind[1:4])
		want = brute("", func(r *analytics.Req) bool {
			return facts[r.CompanyID].Industry != "" && strings.Contains(strings.ToLower(facts[r.CompanyID].Industry), term)
		})
		require.Equal(t, want, pageAll(growth.Key, url.Values{"industry_terms": {term}}, 100))
		want = brute("", func(r *analytics.Req) bool {
			b := facts[r.CompanyID].HeadcountBand
			return b == "11-50" || b == "5001+"
		})
		require.Equal(t, want, pageAll(growth.Key, url.Values{"headcount_band": {"11-50", "5001+"}}, 100))
		want = brute("", func(r *analytics.Req) bool {
			switch facts[r.CompanyID].AgencyKind {
			case "staffing_agency", "job_board", "aggregator", "subcontractor_network":
				return false
			}
			return true
		})
		require.Equal(t, want, pageAll(growth.Key, url.Values{"exclude_agencies": {"true"}}, 100))
	})

	t.Run("free plan freshness floor", func(t *testing.T) {
		floor := x.CycleTime.Add(-24 * time.Hour)
		want := brute("", func(r *analytics.Req) bool { return !r.FirstSeen.After(floor) })
		total := func(m map[uint64]int) (n int) {
			for _, v := range m {
				n += v
			}
			return n
		}
		require.Less(t, total(want), total(brute("", nil)), "the last day's reqs are held back")
		got := pageAll(free.Key, url.Values{}, 100)
		require.Equal(t, want, got)
	})

	t.Run("422s", func(t *testing.T) {
		cases := []struct {
			q   url.Values
			loc string
		}{
			{url.Values{"geo": {"Atlantis"}}, "query.geo"},
			{url.Values{"geo": {"DE"}}, "query.geo"},
			{url.Values{"geo": {"Germany", "Narnia"}}, "query.geo.1"},
			{url.Values{"headcount_band": {"10-20"}}, "query.headcount_band.0"},
			{url.Values{"q": {"a", "b"}}, "query.q"},
			{url.Values{"since": {"2026-01-01", "2026-01-02"}}, "query.since"},
			{url.Values{"q": {"engineer"}, "role": {"engineer"}}, "query.role"},
			{url.Values{"source_type": {"aggregator"}}, "query.source_type"},
			{url.Values{"limit": {"0"}}, "query.limit"},
			{url.Values{"limit": {"101"}}, "query.limit"},
			{url.Values{"cursor": {"-1"}}, "query.cursor"},
		}
		for _, c := range cases {
			r := h.get("/v1/reqs/search", growth.Key, c.q)
			locs := errLocs(t, r)
			var flat []string
			for _, l := range locs {
				var parts []string
				for _, p := range l {
					parts = append(parts, fmt.Sprint(p))
				}
				flat = append(flat, strings.Join(parts, "."))
			}
			require.Contains(t, flat, c.loc, "%v: %s", c.q, r.body)
		}
		// The demo key pages at most 5.
		r := h.get("/v1/reqs/search", api.PublicDemoKey, url.Values{"limit": {"6"}})
		require.Equal(t, 422, r.status, string(r.body))
		r = h.get("/v1/reqs/search", api.PublicDemoKey, nil)
		require.Equal(t, 200, r.status, string(r.body))
		require.LessOrEqual(t, len(r.obj(t)["companies"].([]any)), 5)
	})

	jobsTests(t, w, h, growth.Key, free.Key, live, &served)
	demandTests(t, w, h, growth.Key)

	t.Run("source_row units equal rows served", func(t *testing.T) {
		require.Equal(t, served, h.sourceRows(growth.Key))
	})

	qualifiedTests(t, w, h)
}
