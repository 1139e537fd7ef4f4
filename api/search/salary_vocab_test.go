package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// bothServer serves the search routes and the company reads from one snapshot of the shared world.
func bothServer(t *testing.T, f *fixture) *apitest.Server {
	t.Helper()
	snaps := snapshot.New(snapshot.Config{ClickHouse: f.w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(t, err)
	return apitest.StartServer(t, apitest.Options{DB: "search", Register: func(s *api.Server, pool *pgxpool.Pool) {
		search.Register(s, search.Deps{Snapshots: snaps, QueueWait: time.Minute})
		companies.Register(s, companies.Deps{Snapshots: snaps, Pool: pool, Log: apitest.Quiet(), ColdAfter: -1})
	}})
}

type salaryOnly struct {
	ReqKey       string          `json:"req_key"`
	Salary       json.RawMessage `json:"salary"`
	SalaryMinUSD *float64        `json:"salary_min_usd"`
	SalaryMaxUSD *float64        `json:"salary_max_usd"`
	// the spec's name for salary.estimate_samples (Req resource)
	SalaryEstimateSamples *int `json:"salary_estimate_samples"`
}

// One req shows one salary object on every route (req ca58a6f339e49b2d once showed
// salary_min_usd = salary_max_usd = 90266 on reqs/search and null on open-reqs), an estimate is
// labelled as one, and the declared range fields carry only what was published.
func TestOneSalaryPerReqOnEveryRoute(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv := bothServer(t, f)
	key := srv.Account(t, "growth").Key
	picked := map[string]int{}
	checked := 0
	for _, lr := range f.all {
		if !lr.Live() || lr.Function == "" || lr.Country == "" {
			continue
		}
		r, ok := f.x.Lookup(lr.CompanyID, lr.ReqKey)
		require.True(t, ok)
		kind := f.x.Salary(r).Kind
		if picked[kind] >= 3 {
			continue
		}
		picked[kind]++
		checked++
		want := salaryOnRole(t, srv, key, lr.CompanyID, lr.ReqKey)
		if kind == searchindex.SalaryEstimated {
			var s struct {
				Kind        string   `json:"kind"`
				MinUSD      *float64 `json:"min_usd"`
				EstimateUSD *float64 `json:"estimate_usd"`
				Samples     *int     `json:"estimate_samples"`
			}
			require.NoError(t, json.Unmarshal(want.Salary, &s))
			require.Equal(t, "estimated", s.Kind)
			require.Nil(t, s.MinUSD)
			require.NotNil(t, s.EstimateUSD)
			require.GreaterOrEqual(t, *s.Samples, searchindex.MinSalarySamples)
			require.Nil(t, want.SalaryMinUSD, "an estimate is never written into the declared range")
			require.Nil(t, want.SalaryMaxUSD)
		}
		for route, got := range map[string]salaryOnly{
			"open-reqs":      onOpenReqs(t, srv, key, lr.CompanyID, lr.ReqKey),
			"reqs/search":    onReqsSearch(t, srv, key, lr.CompanyID, lr.ReqKey, lr.RawTitle, lr.Country),
			"jobs/search":    onJobsSearch(t, srv, key, lr.CompanyID, lr.ReqKey, lr.Function, lr.Country),
			"reqs/qualified": onQualified(t, srv, key, lr.CompanyID, lr.ReqKey),
		} {
			require.Equal(t, lr.ReqKey, got.ReqKey, "%s serves req %s", route, lr.ReqKey)
			require.JSONEq(t, string(want.Salary), string(got.Salary), "%s: salary of %s", route, lr.ReqKey)
			if route != "jobs/search" { // jobs/search rows carry only the salary object
				require.Equal(t, want.SalaryMinUSD, got.SalaryMinUSD, route)
				require.Equal(t, want.SalaryMaxUSD, got.SalaryMaxUSD, route)
				var obj struct {
					Samples *int `json:"estimate_samples"`
				}
				if string(got.Salary) != "null" {
					require.NoError(t, json.Unmarshal(got.Salary, &obj))
				}
				require.Equal(t, obj.Samples, got.SalaryEstimateSamples, "%s: salary_estimate_samples is salary.estimate_samples", route)
				if kind == searchindex.SalaryEstimated {
					require.NotNil(t, got.SalaryEstimateSamples, route)
				}
			}
		}
		if picked[searchindex.SalaryEstimated] >= 3 && picked[searchindex.SalaryDeclared] >= 3 && picked[""] >= 1 {
			break
		}
	}
	require.Equal(t, 3, picked[searchindex.SalaryEstimated], "the world has estimated salaries: %v", picked)
	require.Equal(t, 3, picked[searchindex.SalaryDeclared], "the world has declared salaries: %v", picked)
	require.Positive(t, checked)
}

func salaryOnRole(t *testing.T, srv *apitest.Server, key string, company uint64, req string) salaryOnly {
	return apitest.GetJSON[salaryOnly](t, srv, "/v1/jobs/role", key,
		url.Values{"company_id": {strconv.FormatUint(company, 10)}, "req_key": {req}}, 200)
}

func onOpenReqs(t *testing.T, srv *apitest.Server, key string, company uint64, req string) salaryOnly {
	p := apitest.GetJSON[struct{ Reqs []salaryOnly }](t, srv, fmt.Sprintf("/v1/companies/%d/open-reqs", company), key, url.Values{"limit": {"200"}}, 200)
	return find(p.Reqs, req)
}

func onReqsSearch(t *testing.T, srv *apitest.Server, key string, company uint64, req, title, country string) salaryOnly {
	p := apitest.GetJSON[struct {
		Companies []struct {
			CompanyID   uint64       `json:"company_id"`
			MatchedReqs []salaryOnly `json:"matched_reqs"`
		}
	}](t, srv, "/v1/reqs/search", key, url.Values{"q": {title}, "geo": {country}, "cursor": {strconv.FormatUint(company-1, 10)}, "limit": {"1"}}, 200)
	if len(p.Companies) == 0 || p.Companies[0].CompanyID != company {
		return salaryOnly{}
	}
	return find(p.Companies[0].MatchedReqs, req)
}

func onJobsSearch(t *testing.T, srv *apitest.Server, key string, company uint64, req, function, country string) salaryOnly {
	q := url.Values{"function": {function}, "geo": {country}, "limit": {"100"}}
	for range 50 {
		p := apitest.GetJSON[struct {
			Jobs []struct {
				salaryOnly
				CompanyID uint64 `json:"company_id"`
			}
			NextCursor *string `json:"next_cursor"`
		}](t, srv, "/v1/jobs/search", key, q, 200)
		for _, j := range p.Jobs {
			if j.CompanyID == company && j.ReqKey == req {
				return j.salaryOnly
			}
		}
		if p.NextCursor == nil {
			break
		}
		q.Set("cursor", *p.NextCursor)
	}
	return salaryOnly{}
}

func onQualified(t *testing.T, srv *apitest.Server, key string, company uint64, req string) salaryOnly {
	body := map[string]any{"criteria": map[string]any{"company": map[string]any{"company_id": company}}, "exclude_agencies": false, "limit": 100}
	for range 20 {
		p := apitest.PostJSON[struct {
			Rows       []salaryOnly
			NextCursor int64 `json:"next_cursor"`
		}](t, srv, "/v1/reqs/qualified", key, body, 200)
		if r := find(p.Rows, req); r.ReqKey != "" {
			return r
		}
		if len(p.Rows) == 0 {
			break
		}
		body["cursor"] = p.NextCursor
	}
	return salaryOnly{}
}

func find(rows []salaryOnly, req string) salaryOnly {
	for _, r := range rows {
		if r.ReqKey == req {
			return r
		}
	}
	return salaryOnly{}
}

// One country rule on every route (open-reqs?country=DE once answered 200 while
// jobs/search?geo=DE was 422): every route takes country names (and aliases) and refuses a
// two-letter code with the name to send.
func TestOneCountryRuleOnEveryRoute(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv := bothServer(t, f)
	key := srv.Account(t, "growth").Key
	var company uint64
	for id := range f.w.Companies {
		company = id
		break
	}
	routes := []struct{ path, param, role string }{
		{fmt.Sprintf("/v1/companies/%d/open-reqs", company), "country", ""},
		{"/v1/jobs/search", "geo", ""},
		{"/v1/reqs/search", "geo", ""},
		{"/v1/markets/role-demand", "geo", "Engineering"},
	}
	with := func(param, v, role string) url.Values {
		q := url.Values{param: {v}}
		if role != "" {
			q.Set("role", role)
		}
		return q
	}
	for _, rt := range routes {
		for _, ok := range []string{"Germany", "germany", "USA"} {
			r := srv.Get(t, rt.path, key, with(rt.param, ok, rt.role))
			require.Equal(t, 200, r.Status, "%s %s=%s: %s", rt.path, rt.param, ok, r.Body)
		}
		r := srv.Get(t, rt.path, key, with(rt.param, "DE", rt.role))
		require.Equal(t, 422, r.Status, "%s %s=DE", rt.path, rt.param)
		var e struct {
			Detail []struct {
				Loc []any          `json:"loc"`
				Msg string         `json:"msg"`
				Ctx map[string]any `json:"ctx"`
			} `json:"detail"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &e))
		require.Equal(t, []any{"query", rt.param}, e.Detail[0].Loc)
		require.Equal(t, "Germany", e.Detail[0].Ctx["suggestion"], rt.path)
		require.Contains(t, e.Detail[0].Msg, "two-letter", rt.path)
	}
}

// role-demand's first week does not count the reqs already live when the crawl began as
// openings: openings start after the coverage start, and both edge weeks (the first and the
// current one) say partial.
func TestRoleDemandLeavesOutTheCoverageStart(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	start := f.w.Sim.CycleTime(worldConfig.First).UTC()
	ids, _ := normalize.ResolveFunction("Engineering")
	want, censored := 0, 0
	for _, r := range f.all {
		if !slices.Contains(ids, r.Function) {
			continue
		}
		if r.FirstSeen.After(start) {
			want++
		} else {
			censored++
		}
	}
	require.Positive(t, censored, "the world had reqs live at the first crawl")
	p := apitest.GetJSON[struct {
		Series []struct {
			BucketStart time.Time `json:"bucket_start"`
			Opened      int       `json:"opened"`
			Partial     bool      `json:"partial"`
		}
	}](t, f.srv, "/v1/markets/role-demand", key, url.Values{"role": {"Engineering"}}, 200)
	got := 0
	for _, w := range p.Series {
		got += w.Opened
	}
	require.Equal(t, want, got, "openings after the coverage start only (%d left-censored reqs left out)", censored)
	require.True(t, p.Series[len(p.Series)-1].Partial, "the current week is partial")
	first := p.Series[0]
	require.Equal(t, first.BucketStart.Before(start), first.Partial, "the coverage-start week is partial when it began before observation")
}

// Reqs live when the crawl began carry the first crawl's time as first_seen (694 of the 1,500
// oldest live reqs of a world), indistinguishable from openings. Every route marks them
// left_censored, and serves the employer's own posting date beside first_seen when its source
// states one.
func TestReqsLiveAtTheCoverageStartAreLeftCensored(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv := bothServer(t, f)
	key := srv.Account(t, "growth").Key
	start := f.w.Sim.CycleTime(worldConfig.First).UTC()
	type flags struct {
		ReqKey       string     `json:"req_key"`
		LeftCensored bool       `json:"left_censored"`
		PostedAt     *time.Time `json:"posted_at"`
	}
	seen := map[bool]int{}
	posted := 0
	for _, lr := range f.all {
		censored := !lr.FirstSeen.After(start)
		if !lr.Live() || seen[censored] >= 5 {
			continue
		}
		seen[censored]++
		q := url.Values{"company_id": {strconv.FormatUint(lr.CompanyID, 10)}, "req_key": {lr.ReqKey}}
		role := apitest.GetJSON[flags](t, srv, "/v1/jobs/role", key, q, 200)
		require.Equal(t, censored, role.LeftCensored, "jobs/role of %s (first seen %s, coverage start %s)", lr.ReqKey, lr.FirstSeen, start)
		open := apitest.GetJSON[struct{ Reqs []flags }](t, srv, fmt.Sprintf("/v1/companies/%d/open-reqs", lr.CompanyID), key, url.Values{"limit": {"200"}}, 200)
		for _, r := range open.Reqs {
			if r.ReqKey == lr.ReqKey {
				require.Equal(t, censored, r.LeftCensored, "open-reqs of %s", lr.ReqKey)
				require.Equal(t, role.PostedAt, r.PostedAt, "posted_at of %s", lr.ReqKey)
			}
		}
		if role.PostedAt != nil {
			posted++
		}
		if seen[true] >= 5 && seen[false] >= 5 {
			break
		}
	}
	require.Equal(t, 5, seen[true])
	require.Equal(t, 5, seen[false])
	require.Positive(t, posted, "sources state posting dates (Personio createdAt, JSON-LD datePosted, ...)")
}
