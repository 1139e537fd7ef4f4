package search_test

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// What a paying customer sees: relevance floor, freshness on every answer, pages.

// meta is what every search list answers beside its rows.
type meta struct {
	AsOf            string  `json:"as_of"`
	FreshnessFloorS int     `json:"freshness_floor_s"`
	FirstSeenCutoff *string `json:"first_seen_cutoff"`
	HasMore         bool    `json:"has_more"`
	Total           int     `json:"total"`
	TotalExact      bool    `json:"total_exact"`
}

// pageJobsMeta pages jobs/search to the end, checking has_more and total on every page.
func pageJobsMeta(t *testing.T, c *caller, q url.Values, limit int) []row {
	t.Helper()
	var out []row
	q.Set("limit", strconv.Itoa(limit))
	q.Del("cursor")
	total := -1
	for page := 0; ; page++ {
		require.Less(t, page, 10000)
		resp := c.srv.Get(t, "/v1/jobs/search", c.key, q)
		c.srv.Conforms(t, "GET", "/v1/jobs/search", resp)
		var p struct {
			meta
			jobsPage
		}
		resp.Decode(t, 200, &p)
		c.served += len(p.Jobs)
		out = append(out, p.Jobs...)
		require.True(t, p.TotalExact, "these queries match fewer rows than searchindex.MaxCount")
		if total >= 0 {
			require.Equal(t, total, p.Total, "total is the same on every page")
		}
		total = p.Total
		require.Equal(t, p.NextCursor != nil, p.HasMore)
		if !p.HasMore {
			require.Len(t, out, total, "total counts the rows served across every page")
			return out
		}
		q.Set("cursor", *p.NextCursor)
	}
}

// A relevance search serves and bills no row below min_relevance (default 0.5: the same-function
// filler is out), in either sort; min_relevance=0 brings the filler back.
func TestJobsSearchServesAndBillsNothingBelowTheRelevanceFloor(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	for _, sort := range []string{"relevance", "recency"} {
		c := newCaller(t, f.srv, "growth")
		rows := pageJobsMeta(t, c, url.Values{"q": {"account executive"}, "sort": {sort}}, 100)
		require.NotEmpty(t, rows)
		for _, r := range rows {
			require.GreaterOrEqual(t, *r.Relevance, 0.5, "%s: %s", sort, r.RawTitle)
		}
		c.requireUnits(t)

		all := newCaller(t, f.srv, "growth")
		filler := 0
		for _, r := range pageJobsMeta(t, all, url.Values{"q": {"account executive"}, "sort": {sort}, "min_relevance": {"0"}}, 100) {
			if *r.Relevance < 0.5 {
				filler++
			}
		}
		require.Positive(t, filler, "the same-function tier exists in this world (the floor has something to keep out)")
		all.requireUnits(t)

		high := newCaller(t, f.srv, "growth")
		for _, r := range pageJobsMeta(t, high, url.Values{"q": {"account executive"}, "sort": {sort}, "min_relevance": {"0.9"}}, 37) {
			require.GreaterOrEqual(t, *r.Relevance, 0.9)
		}
	}
	c := newCaller(t, f.srv, "growth")
	bad := f.srv.Get(t, "/v1/jobs/search", c.key, url.Values{"min_relevance": {"0.5"}})
	require.Equal(t, []string{"query.min_relevance"}, bad.Invalid(t).Locs(), "min_relevance without q")
	require.Equal(t, 422, f.srv.Get(t, "/v1/jobs/search", c.key, url.Values{"q": {"x"}, "min_relevance": {"1.5"}}).Status)
}

// expand=false serves only titles holding every word's own stem: no synonyms, no same-function
// titles, no other spellings.
func TestJobsSearchExpandFalseIsLiteral(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	stems := normalize.Stems("developer")
	rows := pageJobsMeta(t, c, url.Values{"q": {"developer"}, "expand": {"false"}}, 100)
	want := 0
	for _, r := range f.live {
		if normalize.MatchAll(stems, normalize.Stems(r.RawTitle)) {
			want++
		}
	}
	require.Len(t, rows, want)
	expanded := pageJobsMeta(t, newCaller(t, f.srv, "growth"), url.Values{"q": {"developer"}}, 100)
	require.Greater(t, len(expanded), len(rows), "expansion (developer ~ engineer) adds rows")
}

// reqs/search q=ml engineer finds the Machine Learning Engineers (ml is another spelling of
// machine learning); jobs/search serves them as direct matches. expand=false is literal.
func TestReqsSearchMLEngineerFindsMachineLearningEngineers(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	want := f.brute("machine learning engineer", nil)
	for co, n := range f.brute("ml engineer", nil) {
		want[co] += n
	}
	require.NotEmpty(t, want, "the world has Machine Learning Engineers")
	c := newCaller(t, f.srv, "growth")
	require.Equal(t, want, pageReqs(t, c, url.Values{"q": {"ml engineer"}}, 100))
	require.Equal(t, f.brute("ml engineer", nil), pageReqs(t, c, url.Values{"q": {"ml engineer"}, "expand": {"false"}}, 100))
	c.requireUnits(t)

	jobs := pageJobsMeta(t, newCaller(t, f.srv, "growth"), url.Values{"q": {"ml engineer"}}, 100)
	ml := normalize.Stems("machine learning engineer")
	direct := 0
	for _, r := range jobs {
		if normalize.MatchAll(ml, normalize.Stems(r.RawTitle)) {
			direct++
			require.GreaterOrEqual(t, *r.Relevance, 0.85, "another spelling is a direct match: %s", r.RawTitle)
		}
	}
	require.Positive(t, direct)
}

// reqs/search answers as_of, the floor, has_more and total; a pulse under the Free floor counts
// exactly the reqs the floor lets the rows show; momentum is opt-in.
func TestReqsSearchFreshnessAndFlooredPulse(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	cutoff := f.x.CycleTime.Add(-24 * time.Hour)
	visible := map[uint64]int{}
	hidden := 0
	for _, r := range f.live {
		if r.FirstSeen.After(cutoff) {
			hidden++
		} else {
			visible[r.CompanyID]++
		}
	}
	require.Positive(t, hidden, "the world opens reqs in its last day")
	for _, plan := range []string{"free", "growth"} {
		c := newCaller(t, f.srv, plan)
		q := url.Values{"limit": {"83"}} // a few pages: the Free plan allows 20 calls a minute
		seen := 0
		for page := 0; ; page++ {
			require.Less(t, page, 1000)
			resp := f.srv.Get(t, "/v1/reqs/search", c.key, q)
			f.srv.Conforms(t, "GET", "/v1/reqs/search", resp)
			var p struct {
				meta
				Companies []struct {
					CompanyID uint64 `json:"company_id"`
					Pulse     struct {
						OpenReqCount *int            `json:"open_req_count"`
						Momentum     json.RawMessage `json:"momentum"`
					} `json:"pulse"`
				} `json:"companies"`
				NextCursor *uint64 `json:"next_cursor"`
			}
			resp.Decode(t, 200, &p)
			require.Equal(t, f.x.CycleTime.UTC().Format(time.RFC3339), p.AsOf)
			if plan == "free" {
				require.Equal(t, 86400, p.FreshnessFloorS)
				require.Equal(t, cutoff.UTC().Format(time.RFC3339), *p.FirstSeenCutoff)
			} else {
				require.Zero(t, p.FreshnessFloorS)
				require.Nil(t, p.FirstSeenCutoff)
			}
			require.Equal(t, p.NextCursor != nil, p.HasMore)
			require.True(t, p.TotalExact)
			for _, co := range p.Companies {
				seen++
				require.Equal(t, "null", string(co.Pulse.Momentum), "momentum is opt-in")
				if plan == "free" && co.Pulse.OpenReqCount != nil {
					require.Equal(t, visible[co.CompanyID], *co.Pulse.OpenReqCount, "company %d: the pulse counts the reqs the floor shows", co.CompanyID)
				}
			}
			if !p.HasMore {
				require.Equal(t, p.Total, seen, "total counts the companies of every page")
				break
			}
			q.Set("cursor", strconv.FormatUint(*p.NextCursor, 10))
		}
	}
	c := newCaller(t, f.srv, "growth")
	var p struct {
		Companies []struct {
			Pulse struct {
				Momentum []json.RawMessage `json:"momentum"`
			} `json:"pulse"`
		} `json:"companies"`
	}
	resp := f.srv.Get(t, "/v1/reqs/search", c.key, url.Values{"include": {"momentum"}, "limit": {"5"}})
	f.srv.Conforms(t, "GET", "/v1/reqs/search", resp)
	resp.Decode(t, 200, &p)
	require.NotEmpty(t, p.Companies[0].Pulse.Momentum, "include=momentum gives the weekly history")
}

// jobs/search and reqs/qualified say what they reflect too; qualified pages say has_more and
// total, and its include_pulse pulses are floored like reqs/search's.
func TestSearchAnswersCarryAsOf(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "free")
	resp := f.srv.Get(t, "/v1/jobs/search", c.key, url.Values{"limit": {"3"}})
	f.srv.Conforms(t, "GET", "/v1/jobs/search", resp)
	var j meta
	resp.Decode(t, 200, &j)
	require.Equal(t, f.x.CycleTime.UTC().Format(time.RFC3339), j.AsOf)
	require.Equal(t, 86400, j.FreshnessFloorS)
	require.True(t, j.HasMore)

	body := map[string]any{"criteria": map[string]any{"req": map[string]any{"q": "engineer"}}, "limit": 40, "include_pulse": true}
	total, served := -1, 0
	for page := 0; ; page++ {
		require.Less(t, page, 1000)
		r := f.srv.Post(t, "/v1/reqs/qualified", c.key, body)
		f.srv.Conforms(t, "POST", "/v1/reqs/qualified", r)
		var q struct {
			meta
			Rows       []json.RawMessage `json:"rows"`
			NextCursor uint64            `json:"next_cursor"`
		}
		r.Decode(t, 200, &q)
		require.Equal(t, j.AsOf, q.AsOf)
		require.NotNil(t, q.FirstSeenCutoff)
		if total < 0 {
			total = q.Total
		}
		served += len(q.Rows)
		if !q.HasMore {
			break
		}
		body["cursor"] = q.NextCursor
	}
	require.Equal(t, total, served, "the first page's total is every row the pages serve")
}

// jobs/role tells a closed role (reason closed) from one the caller's plan cannot see
// (not_found: missing, or newer than the floor, one answer), in the spec's error shape.
func TestJobsRoleTellsClosedFromTheFloor(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	growth := f.srv.Account(t, "growth").Key
	free := f.srv.Account(t, "free").Key
	cutoff := f.x.CycleTime.Add(-24 * time.Hour)
	var fresh, closed *analytics.Req
	for _, r := range f.all {
		switch {
		case r.Live() && r.FirstSeen.After(cutoff):
			fresh = r
		case !r.Live() && !r.FirstSeen.After(cutoff):
			closed = r
		}
	}
	require.NotNil(t, fresh)
	require.NotNil(t, closed)
	type detail struct {
		Detail struct {
			Reason          string  `json:"reason"`
			Message         string  `json:"message"`
			AsOf            string  `json:"as_of"`
			FirstSeenCutoff *string `json:"first_seen_cutoff"`
		} `json:"detail"`
	}
	role := func(key string, r *analytics.Req) detail {
		resp := f.srv.Get(t, "/v1/jobs/role", key, url.Values{"company_id": {strconv.FormatUint(r.CompanyID, 10)}, "req_key": {r.ReqKey}})
		f.srv.Conforms(t, "GET", "/v1/jobs/role", resp)
		var d detail
		resp.Decode(t, 404, &d)
		return d
	}
	for _, key := range []string{growth, free} {
		d := role(key, closed)
		require.Equal(t, "closed", d.Detail.Reason)
		require.Equal(t, f.x.CycleTime.UTC().Format(time.RFC3339), d.Detail.AsOf)
	}
	floored := role(free, fresh)
	require.Equal(t, "not_found", floored.Detail.Reason)
	require.NotNil(t, floored.Detail.FirstSeenCutoff)
	missing := *fresh
	missing.ReqKey = "0000000000000000"
	gone := role(free, &missing)
	require.Equal(t, floored.Detail.Reason, gone.Detail.Reason, "the floor answers exactly like a missing req")
	require.Equal(t, floored.Detail.Message, gone.Detail.Message)
	require.False(t, strings.Contains(floored.Detail.Message, fresh.RawTitle))
	ok := f.srv.Get(t, "/v1/jobs/role", growth, url.Values{"company_id": {strconv.FormatUint(fresh.CompanyID, 10)}, "req_key": {fresh.ReqKey}})
	require.Equal(t, 200, ok.Status)
	f.srv.Conforms(t, "GET", "/v1/jobs/role", ok)
	require.Zero(t, f.srv.SourceRows(t, free), "a 404 is never metered")
}

// matched_reqs is opt-in beyond the 5 newest a company; matched_req_count always counts them all.
func TestReqsSearchMatchedReqsAreOptIn(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	for _, n := range []int{0, 5, 50} {
		q := url.Values{"limit": {"100"}}
		if n != 5 {
			q.Set("matched_reqs", strconv.Itoa(n))
		}
		resp := f.srv.Get(t, "/v1/reqs/search", c.key, q)
		f.srv.Conforms(t, "GET", "/v1/reqs/search", resp)
		var p reqsPage
		resp.Decode(t, 200, &p)
		more := false
		for _, co := range p.Companies {
			require.Len(t, co.MatchedReqs, min(n, co.MatchedReqCount), "company %d, matched_reqs=%d", co.CompanyID, n)
			more = more || co.MatchedReqCount > n
		}
		if n == 5 {
			require.True(t, more, "some company has more than the default lists")
		}
	}
	require.Equal(t, 422, f.srv.Get(t, "/v1/reqs/search", c.key, url.Values{"matched_reqs": {"51"}}).Status)
}
