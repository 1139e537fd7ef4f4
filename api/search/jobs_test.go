package search_test

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/pipeline/normalize"
)

func jobsTests(t *testing.T, w *world, h *harness, growth, free string, live map[string]*analytics.Req, served *int) {
	x := h.idx.Current()
	type row = map[string]any
	pageAll := func(q url.Values, limit int) []row {
		t.Helper()
		var out []row
		q.Set("limit", strconv.Itoa(limit))
		q.Del("cursor")
		for page := 0; ; page++ {
			require.Less(t, page, 100000)
			r := h.get("/v1/jobs/search", growth, q)
			require.Equal(t, 200, r.status, string(r.body))
			body := r.obj(t)
			jobs := body["jobs"].([]any)
			require.LessOrEqual(t, len(jobs), limit)
			*served += len(jobs)
			for _, j := range jobs {
				out = append(out, j.(row))
			}
			nc, more := body["next_cursor"]
			if !more {
				return out
			}
			require.Len(t, jobs, limit)
			q.Set("cursor", nc.(string))
		}
	}
	keys := func(rows []row) map[string]bool {
		m := map[string]bool{}
		for _, r := range rows {
			k := r["req_key"].(string)
			require.False(t, m[k], "each req once: %s", k)
			m[k] = true
		}
		return m
	}

	t.Run("jobs/search default order covers every live req once", func(t *testing.T) {
		rows := pageAll(url.Values{}, 97)
		require.Len(t, keys(rows), len(live))
		for i, r := range rows {
			require.Nil(t, r["relevance"])
			require.NotEmpty(t, r["raw_title"])
			require.NotEmpty(t, r["board"])
			if i > 0 {
				a, b := rows[i-1], r
				ca, cb := a["company_id"].(float64), b["company_id"].(float64)
				require.True(t, ca < cb || ca == cb && a["req_key"].(string) < b["req_key"].(string))
			}
		}
	})

	t.Run("jobs/search recency", func(t *testing.T) {
		rows := pageAll(url.Values{"sort": {"recency"}}, 83)
		require.Len(t, keys(rows), len(live))
		for i := 1; i < len(rows); i++ {
			require.GreaterOrEqual(t, rows[i-1]["first_seen"].(string), rows[i]["first_seen"].(string))
		}
	})

	t.Run("jobs/search relevance: direct above expansions above same function", func(t *testing.T) {
		rows := pageAll(url.Values{"q": {"developers"}}, 29)
		require.NotEmpty(t, rows)
		keys(rows)
		dev, _ := normalize.Stems("developer"), 0
		eng := normalize.Stems("engineer")
		minDirect, maxOther := 2.0, -1.0
		directCount := 0
		for i, r := range rows {
			rel := r["relevance"].(float64)
			require.True(t, rel > 0 && rel <= 1)
			if i > 0 {
				require.GreaterOrEqual(t, rows[i-1]["relevance"].(float64), rel, "relevance descending")
			}
			stems := normalize.Stems(r["raw_title"].(string))
			if normalize.MatchAll(dev, stems) {
				directCount++
				minDirect = min(minDirect, rel)
			} else {
				maxOther = max(maxOther, rel)
				if normalize.MatchAll(eng, stems) {
					require.LessOrEqual(t, rel, 0.6)
				} else {
					require.Less(t, rel, 0.5, "same-function titles rank below synonyms: %v", r)
				}
			}
		}
		want := 0
		for _, r := range live {
			if normalize.MatchAll(dev, normalize.Stems(r.RawTitle)) {
				want++
			}
		}
		require.Equal(t, want, directCount, "every direct match is served")
		require.Positive(t, directCount)
		require.GreaterOrEqual(t, maxOther, 0.0, "synonym and same-function titles are served too")
		require.Greater(t, minDirect, maxOther)
	})

	t.Run("jobs/search function filter", func(t *testing.T) {
		ids, _ := normalize.ResolveFunction("Engineering")
		want := 0
		for _, r := range live {
			for _, id := range ids {
				if r.Function == id {
					want++
				}
			}
		}
		rows := pageAll(url.Values{"function": {"engineering"}}, 100)
		require.Len(t, rows, want)
		for _, r := range rows {
			require.Equal(t, "Engineering", r["function_name"])
		}
		rows = pageAll(url.Values{"function": {ids[0]}}, 100)
		for _, r := range rows {
			require.Equal(t, ids[0], r["function"])
		}
	})

	t.Run("jobs/search 422s", func(t *testing.T) {
		r := h.get("/v1/jobs/search", growth, url.Values{"function": {"Astrology"}})
		require.Equal(t, [][]any{{"query", "function"}}, errLocs(t, r))
		require.Contains(t, string(r.body), "Engineering", "the 422 lists the names")
		require.Equal(t, [][]any{{"query", "sort"}}, errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"sort": {"relevance"}})))
		require.Equal(t, [][]any{{"query", "geo"}}, errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"geo": {"Germany", "France"}})))
		require.Equal(t, [][]any{{"query", "geo"}}, errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"geo": {"Mordor"}})))
		require.Equal(t, [][]any{{"query", "limit"}}, errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"limit": {"1000"}})))
		require.Equal(t, [][]any{{"query", "cursor"}}, errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"cursor": {"garbage"}})))
		require.Equal(t, [][]any{{"query", "headcount_band"}}[0][:1], errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"headcount_band": {"huge"}}))[0][:1])

		// A cursor replayed under another sort.
		r = h.get("/v1/jobs/search", growth, url.Values{"sort": {"recency"}, "limit": {"3"}})
		require.Equal(t, 200, r.status)
		*served += 3
		cur := r.obj(t)["next_cursor"].(string)
		require.Equal(t, [][]any{{"query", "cursor"}}, errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"cursor": {cur}})))
		require.Equal(t, [][]any{{"query", "cursor"}}, errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"cursor": {cur}, "q": {"engineer"}})))
		r = h.get("/v1/jobs/search", growth, url.Values{"limit": {"3"}})
		require.Equal(t, 200, r.status)
		*served += 3
		cur = r.obj(t)["next_cursor"].(string)
		require.Regexp(t, `^\d+:[0-9a-f]+$`, cur, "the default cursor is company_id:req_key")
		require.Equal(t, [][]any{{"query", "cursor"}}, errLocs(t, h.get("/v1/jobs/search", growth, url.Values{"cursor": {cur}, "sort": {"recency"}})))
	})

	t.Run("jobs/role", func(t *testing.T) {
		before := h.sourceRows(growth)
		var old, fresh *analytics.Req
		floor := x.CycleTime.Add(-24 * time.Hour)
		for _, r := range live {
			if r.FirstSeen.After(floor) {
				fresh = r
			} else {
				old = r
			}
		}
		require.NotNil(t, old)
		require.NotNil(t, fresh, "the world opens reqs in its last day")
		role := func(key string, r *analytics.Req) resp {
			return h.get("/v1/jobs/role", key, url.Values{"company_id": {strconv.FormatUint(r.CompanyID, 10)}, "req_key": {r.ReqKey}})
		}
		r := role(growth, fresh)
		require.Equal(t, 200, r.status, string(r.body))
		body := r.obj(t)
		require.Equal(t, fresh.RawTitle, body["raw_title"])
		require.Len(t, body["boards"], len(fresh.Boards))
		require.Nil(t, body["relevance"])
		require.Equal(t, 404, role(free, fresh).status, "below the free floor")
		require.Equal(t, 200, role(free, old).status)
		missing := *old
		missing.ReqKey = "0000000000000000"
		require.Equal(t, 404, role(growth, &missing).status)
		var closed *analytics.Req
		for _, r := range w.currentReqs() {
			if !r.Live() {
				closed = r
				break
			}
		}
		require.NotNil(t, closed, "the world closes reqs")
		require.Equal(t, 404, role(growth, closed).status)
		require.Equal(t, before, h.sourceRows(growth), "jobs/role serves no source_row")
	})
}

func demandTests(t *testing.T, w *world, h *harness, growth string) {
	t.Run("markets/role-demand", func(t *testing.T) {
		wm, _, err := analytics.Watermark(t.Context(), w.ch)
		require.NoError(t, err)
		rd, err := analytics.RoleDemand(t.Context(), w.ch, wm)
		require.NoError(t, err)
		ids, _ := normalize.ResolveFunction("Engineering")
		var want, wantDE uint64
		for _, wk := range rd {
			for _, id := range ids {
				if wk.Function == id {
					want += wk.Opened
					if wk.Country == "Germany" {
						wantDE += wk.Opened
					}
				}
			}
		}
		sum := func(r resp) uint64 {
			require.Equal(t, 200, r.status, string(r.body))
			var n uint64
			var prev time.Time
			for i, s := range r.obj(t)["series"].([]any) {
				b, err := time.Parse(time.RFC3339, s.(map[string]any)["bucket_start"].(string))
				require.NoError(t, err)
				require.Equal(t, time.Monday, b.Weekday())
				if i > 0 {
					require.Equal(t, prev.AddDate(0, 0, 7), b, "weekly, oldest first, zero-filled")
				}
				prev = b
				n += uint64(s.(map[string]any)["opened"].(float64))
			}
			return n
		}
		require.Positive(t, want)
		require.Equal(t, want, sum(h.get("/v1/markets/role-demand", growth, url.Values{"role": {"Engineering"}})))
		require.Equal(t, wantDE, sum(h.get("/v1/markets/role-demand", growth, url.Values{"role": {"engineering"}, "geo": {"Germany"}})))
		var one uint64
		for _, wk := range rd {
			if wk.Function == ids[0] {
				one += wk.Opened
			}
		}
		require.Equal(t, one, sum(h.get("/v1/markets/role-demand", growth, url.Values{"role": {ids[0]}})))
		require.Equal(t, [][]any{{"query", "role"}}, errLocs(t, h.get("/v1/markets/role-demand", growth, url.Values{"role": {"fn_nope"}})))
		require.Equal(t, [][]any{{"query", "geo"}}, errLocs(t, h.get("/v1/markets/role-demand", growth, url.Values{"role": {ids[0]}, "geo": {"Elbonia"}})))
	})
}
