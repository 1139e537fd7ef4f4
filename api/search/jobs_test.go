package search_test

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// jobsPage is a jobs/search answer.
type jobsPage struct {
	Jobs       []row   `json:"jobs"`
	NextCursor *string `json:"next_cursor"`
}

// pageJobs pages jobs/search to the end.
func pageJobs(t *testing.T, c *caller, q url.Values, limit int) []row {
	t.Helper()
	var out []row
	q.Set("limit", strconv.Itoa(limit))
	q.Del("cursor")
	for page := 0; ; page++ {
		require.Less(t, page, 100000)
		p := apitest.GetJSON[jobsPage](t, c.srv, "/v1/jobs/search", c.key, q, 200)
		require.LessOrEqual(t, len(p.Jobs), limit)
		c.served += len(p.Jobs)
		out = append(out, p.Jobs...)
		if p.NextCursor == nil {
			return out
		}
		require.Len(t, p.Jobs, limit)
		q.Set("cursor", *p.NextCursor)
	}
}

// keysOf requires each req once and returns the set of req_keys.
func keysOf(t *testing.T, rows []row) map[string]bool {
	t.Helper()
	m := map[string]bool{}
	for _, r := range rows {
		require.False(t, m[r.ReqKey], "each req once: %s", r.ReqKey)
		m[r.ReqKey] = true
	}
	return m
}

func TestJobsSearchDefaultOrderCoversEveryLiveReqOnce(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	rows := pageJobs(t, c, url.Values{}, 97)
	require.Len(t, keysOf(t, rows), len(f.live))
	withURL := 0
	for i, r := range rows {
		require.Nil(t, r.Relevance)
		require.NotEmpty(t, r.RawTitle)
		require.NotEmpty(t, r.Board)
		// Every row links the real posting its latest observation carried.
		if want := f.live[r.ReqKey].URL; want != "" {
			require.NotNil(t, r.URL, "req %s", r.ReqKey)
			require.Equal(t, want, *r.URL)
			withURL++
		} else {
			require.Nil(t, r.URL)
		}
		if i > 0 {
			a := rows[i-1]
			require.True(t, a.CompanyID < r.CompanyID || a.CompanyID == r.CompanyID && a.ReqKey < r.ReqKey, "company_id, then req_key")
		}
	}
	require.Positive(t, withURL)
	c.requireUnits(t)
}

func TestJobsSearchRecency(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	rows := pageJobs(t, c, url.Values{"sort": {"recency"}}, 83)
	require.Len(t, keysOf(t, rows), len(f.live))
	for i := 1; i < len(rows); i++ {
		require.GreaterOrEqual(t, rows[i-1].FirstSeen, rows[i].FirstSeen)
	}
	c.requireUnits(t)
}

func TestJobsSearchRelevanceDirectAboveExpansionsAboveSameFunction(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	rows := pageJobs(t, c, url.Values{"q": {"developers"}, "min_relevance": {"0"}}, 29) // the same-function tier too
	require.NotEmpty(t, rows)
	keysOf(t, rows)
	dev := normalize.Stems("developer")
	eng := normalize.Stems("engineer")
	minDirect, maxOther := 2.0, -1.0
	directCount := 0
	for i, r := range rows {
		require.NotNil(t, r.Relevance)
		rel := *r.Relevance
		require.True(t, rel > 0 && rel <= 1)
		if i > 0 {
			require.GreaterOrEqual(t, *rows[i-1].Relevance, rel, "relevance descending")
		}
		stems := normalize.Stems(r.RawTitle)
		if normalize.MatchAll(dev, stems) {
			directCount++
			minDirect = min(minDirect, rel)
		} else {
			maxOther = max(maxOther, rel)
			if normalize.MatchAll(eng, stems) {
				require.LessOrEqual(t, rel, 0.6)
			} else {
				require.Less(t, rel, 0.5, "same-function titles rank below synonyms: %+v", r)
			}
		}
	}
	want := 0
	for _, r := range f.live {
		if normalize.MatchAll(dev, normalize.Stems(r.RawTitle)) {
			want++
		}
	}
	require.Equal(t, want, directCount, "every direct match is served")
	require.Positive(t, directCount)
	require.GreaterOrEqual(t, maxOther, 0.0, "synonym and same-function titles are served too")
	require.Greater(t, minDirect, maxOther)
	c.requireUnits(t)
}

func TestJobsSearchFunctionFilter(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	ids, _ := normalize.ResolveFunction("Engineering")
	want := 0
	for _, r := range f.live {
		for _, id := range ids {
			if r.Function == id {
				want++
			}
		}
	}
	rows := pageJobs(t, c, url.Values{"function": {"engineering"}}, 100)
	require.Len(t, rows, want)
	for _, r := range rows {
		require.Equal(t, "Engineering", *r.FunctionName)
	}
	for _, r := range pageJobs(t, c, url.Values{"function": {ids[0]}}, 100) {
		require.Equal(t, ids[0], *r.Function)
	}
	c.requireUnits(t)
}

func TestJobsSearchRejectsBadInput(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	key := fx.srv.Account(t, "growth").Key
	f := func(q url.Values, locs ...string) apitest.Response {
		t.Helper()
		r := fx.srv.Get(t, "/v1/jobs/search", key, q)
		require.Equal(t, locs, r.Invalid(t).Locs(), "%v: %s", q, r.Body)
		return r
	}
	r := f(url.Values{"function": {"Astrology"}}, "query.function")
	require.Contains(t, string(r.Body), "Engineering", "the 422 lists the names")
	f(url.Values{"sort": {"relevance"}}, "query.sort")
	f(url.Values{"geo": {"Germany", "France"}}, "query.geo")
	f(url.Values{"geo": {"Mordor"}}, "query.geo")
	f(url.Values{"limit": {"1000"}}, "query.limit")
	f(url.Values{"cursor": {"garbage"}}, "query.cursor")
	f(url.Values{"headcount_band": {"huge"}}, "query.headcount_band.0")
}

// A cursor replayed under another sort or another q is refused.
func TestJobsSearchCursorIsBoundToItsQuery(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	c := newCaller(t, fx.srv, "growth")
	cursor := func(q url.Values) string {
		t.Helper()
		q.Set("limit", "3")
		p := apitest.GetJSON[jobsPage](t, fx.srv, "/v1/jobs/search", c.key, q, 200)
		c.served += len(p.Jobs)
		require.NotNil(t, p.NextCursor)
		return *p.NextCursor
	}
	f := func(q url.Values) {
		t.Helper()
		r := fx.srv.Get(t, "/v1/jobs/search", c.key, q)
		require.Equal(t, []string{"query.cursor"}, r.Invalid(t).Locs(), "%v", q)
	}
	recent := cursor(url.Values{"sort": {"recency"}})
	f(url.Values{"cursor": {recent}})
	f(url.Values{"cursor": {recent}, "q": {"engineer"}})
	def := cursor(url.Values{})
	require.Regexp(t, `^\d+:[0-9a-f]+$`, def, "the default cursor is company_id:req_key")
	f(url.Values{"cursor": {def}, "sort": {"recency"}})
	c.requireUnits(t)
}

func TestJobsRole(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	growth := f.srv.Account(t, "growth").Key
	free := f.srv.Account(t, "free").Key
	var old, fresh *analytics.Req
	floor := f.x.CycleTime.Add(-24 * time.Hour)
	for _, r := range f.live {
		if r.FirstSeen.After(floor) {
			fresh = r
		} else {
			old = r
		}
	}
	require.NotNil(t, old)
	require.NotNil(t, fresh, "the world opens reqs in its last day")
	role := func(key string, r *analytics.Req) apitest.Response {
		return f.srv.Get(t, "/v1/jobs/role", key, url.Values{"company_id": {strconv.FormatUint(r.CompanyID, 10)}, "req_key": {r.ReqKey}})
	}
	var got row
	role(growth, fresh).Decode(t, 200, &got)
	require.Equal(t, fresh.RawTitle, got.RawTitle)
	require.Len(t, got.Boards, len(fresh.Boards))
	require.Nil(t, got.Relevance)
	require.Equal(t, 404, role(free, fresh).Status, "below the free floor")
	require.Equal(t, 200, role(free, old).Status)
	missing := *old
	missing.ReqKey = "0000000000000000"
	require.Equal(t, 404, role(growth, &missing).Status)
	var closed *analytics.Req
	for _, r := range f.all {
		if !r.Live() {
			closed = r
			break
		}
	}
	require.NotNil(t, closed, "the world closes reqs")
	require.Equal(t, 404, role(growth, closed).Status)
	require.Zero(t, f.srv.SourceRows(t, growth), "jobs/role serves no source_row")
}

// min_relevance decides which rows a query has, in every sort; the sort only orders them. A
// four-word title covered with one expansion scored in the all-direct band, so the relevance walk
// dropped it from both tiers: "senior backend engineer developer" served 0 rows by relevance and 4
// by recency.
func TestJobsSearchSortsServeTheSameRows(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	for _, q := range []string{"senior backend engineer developer", "backend engineer", "senior software engineer", "sales"} {
		byRecency := keysOf(t, pageJobs(t, c, url.Values{"q": {q}, "sort": {"recency"}}, 50))
		require.NotEmpty(t, byRecency, q)
		require.Equal(t, byRecency, keysOf(t, pageJobs(t, c, url.Values{"q": {q}, "sort": {"relevance"}}, 50)), q)
		require.Equal(t, byRecency, keysOf(t, pageJobs(t, c, url.Values{"q": {q}}, 50)), q)
	}
	c.requireUnits(t)
}
