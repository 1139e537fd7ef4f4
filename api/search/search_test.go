package search_test

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// reqsPage is a reqs/search answer.
type reqsPage struct {
	Companies  []companyHit `json:"companies"`
	NextCursor *uint64      `json:"next_cursor"`
}

type companyHit struct {
	CompanyID       uint64 `json:"company_id"`
	Pulse           *pulse `json:"pulse"`
	MatchedReqCount int    `json:"matched_req_count"`
	MatchedReqs     []row  `json:"matched_reqs"`
}

type pulse struct {
	CompanyID      uint64 `json:"company_id"`
	CoverageStatus string `json:"coverage_status"`
}

// row is a req as reqs/search, jobs/search, jobs/role and reqs/qualified serve it (each route
// serves a subset of these fields).
type row struct {
	ReqKey       string   `json:"req_key"`
	CompanyID    uint64   `json:"company_id"`
	RawTitle     string   `json:"raw_title"`
	Function     *string  `json:"function"`
	FunctionName *string  `json:"function_name"`
	Country      *string  `json:"country"`
	CountryCode  *string  `json:"country_code"`
	Board        string   `json:"board"`
	Boards       []string `json:"boards"`
	FirstSeen    string   `json:"first_seen"`
	Relevance    *float64 `json:"relevance"`
	URL          *string  `json:"url"`
}

// requireNamed checks the derived names of a served req: function_name is the function's name
// (null outside the vocabulary) and country_code the country's.
func requireNamed(t *testing.T, r row) {
	t.Helper()
	if r.Function != nil {
		if name, named := normalize.FunctionName(*r.Function); named {
			require.Equal(t, &name, r.FunctionName)
		} else {
			require.Nil(t, r.FunctionName, "function_name is null outside the vocabulary")
		}
	}
	if r.Country != nil {
		require.Equal(t, normalize.CountryCode(*r.Country), *r.CountryCode)
	}
}

// brute is the reference of reqs/search: companies → live reqs matching q and keep.
func (f *fixture) brute(q string, keep func(*analytics.Req) bool) map[uint64]int {
	out := map[uint64]int{}
	qs := normalize.Stems(q)
	for _, r := range f.live {
		if normalize.MatchAll(qs, normalize.Stems(r.RawTitle)) && (keep == nil || keep(r)) {
			out[r.CompanyID]++
		}
	}
	return out
}

// pageReqs pages reqs/search to the end and returns company → matched_req_count.
func pageReqs(t *testing.T, c *caller, q url.Values, limit int) map[uint64]int {
	t.Helper()
	got := map[uint64]int{}
	q.Set("limit", strconv.Itoa(limit))
	q.Del("cursor")
	prev := uint64(0)
	for page := 0; ; page++ {
		require.Less(t, page, 10000)
		p := apitest.GetJSON[reqsPage](t, c.srv, "/v1/reqs/search", c.key, q, 200)
		require.LessOrEqual(t, len(p.Companies), limit)
		c.served += len(p.Companies)
		for _, co := range p.Companies {
			require.Greater(t, co.CompanyID, prev, "ascending company_id, every company once")
			prev = co.CompanyID
			_, dup := got[co.CompanyID]
			require.False(t, dup)
			got[co.CompanyID] = co.MatchedReqCount
			require.NotEmpty(t, co.MatchedReqs)
			require.NotNil(t, co.Pulse)
			for _, r := range co.MatchedReqs {
				require.NotEmpty(t, r.RawTitle)
				require.NotEmpty(t, r.Boards)
				requireNamed(t, r)
			}
		}
		if p.NextCursor == nil {
			return got
		}
		require.Equal(t, prev, *p.NextCursor, "next_cursor is the highest company_id of the page")
		q.Set("cursor", strconv.FormatUint(prev, 10))
	}
}

func TestLedgerLiveSetIsTheWorlds(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	truth := map[string]bool{}
	for _, reqs := range f.w.Live {
		for k := range reqs {
			truth[k] = true
		}
	}
	require.Len(t, f.live, len(truth))
	for k := range truth {
		require.Contains(t, f.live, k, "the ledger's live set is the world's")
	}
	require.Equal(t, len(f.live), f.x.Stats().LiveReqs)
}

func TestReqsSearchInflectionsAndWordOrder(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	want := f.brute("Engineer", nil)
	require.NotEmpty(t, want)
	require.Equal(t, want, pageReqs(t, c, url.Values{"q": {"engineers"}}, 7))
	require.Equal(t, f.brute("senior engineer", nil), pageReqs(t, c, url.Values{"q": {"ENGINEERS senior"}}, 13))
	c.requireUnits(t)
}

// role, q's deprecated name, is past its sunset (2026-11-09; the fixture runs on the wall clock):
// refused with a 422 naming q, never metered; api's TestDeprecatedAliasIsServedBeforeItsSunset
// covers the days before.
func TestReqsSearchRoleIsRefusedAfterItsSunset(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	r := f.srv.Get(t, "/v1/reqs/search", c.key, url.Values{"role": {"engineers"}, "limit": {"100"}})
	require.Equal(t, 422, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), "send q=engineers")
	require.Equal(t, "true", r.Header["Deprecation"])
	require.Equal(t, "Mon, 09 Nov 2026 00:00:00 GMT", r.Header["Sunset"])
	c.requireUnits(t)
}

// headcount_band=5001+ sent unencoded (as typed into a shell or a browser) is read, not 422,
// though the query string decodes '+' as a space: a value whose '+' spelling is in the
// vocabulary is read as that value.
func TestAnUnencodedPlusInAnEnumValueIsRead(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	raw := f.srv.Do(t, "GET", "/v1/reqs/search?headcount_band=5001+&limit=5", c.key, nil)
	encoded := f.srv.Get(t, "/v1/reqs/search", c.key, url.Values{"headcount_band": {"5001+"}, "limit": {"5"}})
	require.Equal(t, 200, raw.Status, "%s", raw.Body)
	require.Equal(t, string(encoded.Body), string(raw.Body))
	// A value that is not the vocabulary's in either spelling is still 422.
	require.Equal(t, 422, f.srv.Do(t, "GET", "/v1/reqs/search?headcount_band=5002+", c.key, nil).Status)
}

func TestReqsSearchMatchingNothingIsAnEmptyPage(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	r := f.srv.Get(t, "/v1/reqs/search", c.key, url.Values{"q": {"zzyzx-nothing"}})
	var p reqsPage
	r.Decode(t, 200, &p)
	require.Empty(t, p.Companies)
	require.NotContains(t, r.Fields(t), "next_cursor")
}

func TestReqsSearchWithoutQCoversEveryCompanyOnce(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	require.Equal(t, f.brute("", nil), pageReqs(t, c, url.Values{}, 100))
	c.requireUnits(t)
}

func TestReqsSearchFilters(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	c := newCaller(t, fx.srv, "growth")
	f := func(q url.Values, limit int, keep func(*analytics.Req) bool) (matched int) {
		t.Helper()
		want := fx.brute("", keep)
		require.Equal(t, want, pageReqs(t, c, q, limit), "%v", q)
		return len(want)
	}

	// The two countries with the most live reqs, the second named in lower case.
	countries := map[string]int{}
	for _, r := range fx.live {
		countries[r.Country]++
	}
	var names []string
	for n := range countries {
		if n != "" {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return countries[names[i]] > countries[names[j]] })
	two := names[:2]
	require.Positive(t, f(url.Values{"geo": {two[0], strings.ToLower(two[1])}}, 50, func(r *analytics.Req) bool { return r.Country == two[0] || r.Country == two[1] }))

	// Every live req of this world is an ATS tenant's: the board filter matches nothing.
	f(url.Values{"source_type": {"board"}}, 100, func(r *analytics.Req) bool { return r.SourceType == "board" })

	since := time.Unix(fx.x.CycleTime.Unix(), 0).Add(-36 * time.Hour).UTC()
	require.Positive(t, f(url.Values{"since": {since.Format(time.RFC3339)}}, 100, func(r *analytics.Req) bool { return !r.FirstSeen.Before(since) }))

	// Company facts: unknown never matches; agencies dropped only when classified.
	industries := map[string]int{}
	for _, co := range fx.facts {
		industries[co.Industry]++
	}
	var ind string
	for k, n := range industries {
		if k != "" && (ind == "" || n > industries[ind]) {
			ind = k
		}
	}
	facts := func(r *analytics.Req) analytics.Company { return fx.facts[r.CompanyID] }
	require.Positive(t, f(url.Values{"industry": {strings.ToUpper(ind)}}, 100, func(r *analytics.Req) bool { return strings.EqualFold(facts(r).Industry, ind) }))
	term := strings.ToLower(ind[1:4])
	require.Positive(t, f(url.Values{"industry_terms": {term}}, 100, func(r *analytics.Req) bool {
		return facts(r).Industry != "" && strings.Contains(strings.ToLower(facts(r).Industry), term)
	}))
	require.Positive(t, f(url.Values{"headcount_band": {"11-50", "5001+"}}, 100, func(r *analytics.Req) bool {
		b := facts(r).HeadcountBand
		return b == "11-50" || b == "5001+"
	}))
	require.Positive(t, f(url.Values{"exclude_agencies": {"true"}}, 100, func(r *analytics.Req) bool { return !fx.agency[r.CompanyID] }))
	c.requireUnits(t)
}

func TestReqsSearchFreePlanFreshnessFloor(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	floor := f.x.CycleTime.Add(-24 * time.Hour)
	want := f.brute("", func(r *analytics.Req) bool { return !r.FirstSeen.After(floor) })
	total := func(m map[uint64]int) (n int) {
		for _, v := range m {
			n += v
		}
		return n
	}
	require.Less(t, total(want), total(f.brute("", nil)), "the last day's reqs are held back")
	require.Equal(t, want, pageReqs(t, newCaller(t, f.srv, "free"), url.Values{}, 100))
}

func TestReqsSearchRejectsBadInput(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	key := fx.srv.Account(t, "growth").Key
	f := func(q url.Values, loc string) {
		t.Helper()
		r := fx.srv.Get(t, "/v1/reqs/search", key, q)
		require.Contains(t, r.Invalid(t).Locs(), loc, "%v: %s", q, r.Body)
	}
	f(url.Values{"geo": {"Atlantis"}}, "query.geo")
	f(url.Values{"geo": {"DE"}}, "query.geo")
	f(url.Values{"geo": {"Germany", "Narnia"}}, "query.geo.1")
	f(url.Values{"headcount_band": {"10-20"}}, "query.headcount_band.0")
	f(url.Values{"q": {"a", "b"}}, "query.q")
	f(url.Values{"since": {"2026-01-01", "2026-01-02"}}, "query.since")
	f(url.Values{"q": {"engineer"}, "role": {"engineer"}}, "query.role")
	f(url.Values{"source_type": {"aggregator"}}, "query.source_type")
	f(url.Values{"limit": {"0"}}, "query.limit")
	f(url.Values{"limit": {"101"}}, "query.limit")
	f(url.Values{"cursor": {"-1"}}, "query.cursor")
}

func TestReqsSearchDemoKeyPagesAtMost5(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	f.srv.Get(t, "/v1/reqs/search", api.PublicDemoKey, url.Values{"limit": {"6"}}).Invalid(t)
	p := apitest.GetJSON[reqsPage](t, f.srv, "/v1/reqs/search", api.PublicDemoKey, nil, 200)
	require.LessOrEqual(t, len(p.Companies), api.DemoPageLimit)
	// matched_reqs sizes the rows too: 50 of them per company made a demo page 250 reqs, 15,000
	// a minute per address. It is held to the same 5, 422 past it.
	bad := f.srv.Get(t, "/v1/reqs/search", api.PublicDemoKey, url.Values{"limit": {"5"}, "matched_reqs": {"6"}})
	bad.Invalid(t)
	require.Contains(t, string(bad.Body), `"le":5`)
	p = apitest.GetJSON[reqsPage](t, f.srv, "/v1/reqs/search", api.PublicDemoKey, url.Values{"matched_reqs": {"5"}}, 200)
	for _, c := range p.Companies {
		require.LessOrEqual(t, len(c.MatchedReqs), api.DemoPageLimit)
	}
	paid := f.srv.Get(t, "/v1/reqs/search", f.srv.Account(t, "growth").Key, url.Values{"limit": {"5"}, "matched_reqs": {"50"}})
	require.Equal(t, 200, paid.Status, "a key's own maximum stays 50")
}
