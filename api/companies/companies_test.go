package companies_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/readmodel"
)

func TestIsHiringEqualsTheTruthForEveryCompany(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	for id := range f.w.Companies {
		v := apitest.GetJSON[isHiring](t, f.srv, cpath(id, "is-hiring"), paid, nil, 200)
		require.Equal(t, id, v.CompanyID)
		if !f.w.Covered[id] {
			require.Equal(t, "no_ats_signal", v.CoverageStatus)
			require.Nil(t, v.IsHiring)
			require.Nil(t, v.OpenReqCount)
			continue
		}
		require.Equal(t, "covered", v.CoverageStatus)
		require.Equal(t, len(f.w.Live[id]), *v.OpenReqCount)
		require.Equal(t, len(f.w.Live[id]) > 0, *v.IsHiring)
	}
}

func TestUnknownCompanyIs404(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	for _, seg := range segments {
		p := apitest.GetJSON[apitest.Problem](t, f.srv, cpath(999999999, seg), paid, nil, 404)
		require.Equal(t, "No company with company_id 999999999", p.Detail, seg)
	}
}

func TestOpenReqsAreTheDeduplicatedLiveReqsWithBoards(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	live := f.w.Live[f.covered]
	v := apitest.GetJSON[openReqs](t, f.srv, cpath(f.covered, "open-reqs"), paid, url.Values{"limit": {"200"}}, 200)
	require.Equal(t, len(live), *v.Total)
	require.Len(t, v.Reqs, len(live))
	seen := map[string]bool{}
	urls := map[string]*string{} // the links open-reqs serves, which the brief serves too
	for _, r := range v.Reqs {
		urls[r.ReqKey] = r.URL
		if ir, ok := f.x.Lookup(f.covered, r.ReqKey); ok && ir.URL != "" {
			require.NotNil(t, r.URL, "req %s links its posting", r.ReqKey)
			require.Equal(t, ir.URL, *r.URL)
		}
		require.False(t, seen[r.ReqKey], "one row per req")
		seen[r.ReqKey] = true
		require.Contains(t, live, r.ReqKey)
		require.NotEmpty(t, r.RawTitle)
		require.NotEmpty(t, r.Boards)
		require.Equal(t, f.covered, r.CompanyID)
		if r.Country != nil {
			require.Equal(t, normalize.CountryCode(*r.Country), *r.CountryCode)
		} else {
			require.Nil(t, r.CountryCode)
		}
		if r.Function != nil {
			if name, named := normalize.FunctionName(*r.Function); named {
				require.Equal(t, &name, r.FunctionName)
			} else {
				require.Nil(t, r.FunctionName)
			}
		}
	}
	small := apitest.GetJSON[openReqs](t, f.srv, cpath(f.covered, "open-reqs"), paid, url.Values{"limit": {"2"}}, 200)
	require.Len(t, small.Reqs, 2)
	require.Equal(t, *v.Total, *small.Total)
	withURL := 0
	for _, u := range urls {
		if u != nil {
			withURL++
		}
	}
	require.Positive(t, withURL, "the world's postings have links")
	b := apitest.GetJSON[brief](t, f.srv, cpath(f.covered, "pre-action-brief"), paid, nil, 200)
	require.NotEmpty(t, b.OpenReqs)
	for _, r := range b.OpenReqs {
		require.Equal(t, urls[r.ReqKey], r.URL, "the brief links the posting as open-reqs does")
	}
}

func TestOpenReqsFilterByFunctionNameOrIdAndByCountryName(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	get := func(q url.Values) openReqs {
		t.Helper()
		q.Set("limit", "200")
		return apitest.GetJSON[openReqs](t, f.srv, cpath(f.covered, "open-reqs"), paid, q, 200)
	}
	all := get(url.Values{}).Reqs
	r0 := all[0]
	require.NotNil(t, r0.Function)
	fn := *r0.Function
	require.NotEmpty(t, fn)
	byID := get(url.Values{"function": {fn}})
	require.NotEmpty(t, byID.Reqs)
	for _, r := range byID.Reqs {
		require.Equal(t, fn, *r.Function)
	}
	if name, ok := normalize.FunctionName(fn); ok {
		ids, _ := normalize.ResolveFunction(name)
		want := 0
		for _, r := range all {
			for _, id := range ids {
				if r.Function != nil && *r.Function == id {
					want++
				}
			}
		}
		require.Equal(t, want, *get(url.Values{"function": {strings.ToLower(name)}}).Total)
	}

	country := *r0.Country
	byCountry := get(url.Values{"country": {country}})
	require.NotEmpty(t, byCountry.Reqs)
	for _, r := range byCountry.Reqs {
		require.Equal(t, country, *r.Country)
	}
}

func TestCompanyReadsRejectBadInput(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	paid := fx.srv.Account(t, "growth").Key
	free := fx.srv.Account(t, "free").Key
	covered := cpath(fx.covered, "")
	f := func(key, path string, loc, msg string) apitest.Invalid {
		t.Helper()
		r := fx.srv.Get(t, path, key, nil)
		v := r.Invalid(t)
		require.Contains(t, v.Locs(), loc, "%s: %s", path, r.Body)
		require.Contains(t, strings.Join(v.Msgs(), "\n"), msg, "%s: %s", path, r.Body)
		return v
	}
	item := f(paid, covered+"open-reqs?function=Basket+Weaving", "query.function", "Engineering").Detail[0]
	require.Equal(t, []any{"query", "function"}, item.Loc)
	require.Contains(t, item.Msg, "Engineering")
	require.Len(t, item.Ctx["names"], len(normalize.FunctionNames()))
	f(paid, covered+"first-hire?function=nope", "query.function", "Engineering") // first-hire shares the rule
	f(paid, covered+"open-reqs?country=Atlantis", "query.country", "")
	f(paid, covered+"open-reqs?limit=0", "query.limit", "")
	f(paid, covered+"open-reqs?limit=201", "query.limit", "")
	f(api.PublicDemoKey, covered+"open-reqs?limit=6", "query.limit", "") // the demo key pages at most 5
	f(free, "/v1/companies/resolve?name=a&domain=b.com", "query.domain", "exactly one of domain or name")
	f(free, "/v1/companies/resolve", "query.domain", "exactly one of domain or name")
}

func TestOpenReqsPagesAtMost5ForTheDemoKey(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	d := apitest.GetJSON[openReqs](t, f.srv, cpath(f.covered, "open-reqs"), api.PublicDemoKey, nil, 200)
	require.LessOrEqual(t, len(d.Reqs), api.DemoPageLimit)
}

func TestNoCoverageMeansNullMotionEverywhere(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	r := f.srv.Get(t, cpath(f.uncovered, "hiring-pulse"), paid, nil)
	var p pulse
	r.Decode(t, 200, &p)
	require.Equal(t, "no_ats_signal", p.CoverageStatus)
	fields := r.Fields(t)
	for _, k := range []string{"is_hiring", "open_req_count", "active_reqs", "new_roles_30d", "velocity", "direction", "is_surge", "momentum"} {
		require.Contains(t, fields, k)
		require.Equal(t, "null", string(fields[k]), k)
	}
	o := apitest.GetJSON[openReqs](t, f.srv, cpath(f.uncovered, "open-reqs"), paid, nil, 200)
	require.Nil(t, o.Total)
	require.Empty(t, o.Reqs)
	require.Nil(t, apitest.GetJSON[firstHire](t, f.srv, cpath(f.uncovered, "first-hire"), paid, nil, 200).FirstHires)
	require.Nil(t, apitest.GetJSON[repostPain](t, f.srv, cpath(f.uncovered, "repost-pain"), paid, nil, 200).Reqs)
}

func TestHiringPulseServesTheModelsPulseWithWholeHistoryMomentum(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	p := apitest.GetJSON[pulse](t, f.srv, cpath(f.covered, "hiring-pulse"), paid, nil, 200)
	want, _ := f.m.Pulse(f.covered)
	require.Equal(t, *want.OpenReqCount, *p.OpenReqCount)
	require.Equal(t, *want.Direction, *p.Direction)
	require.Len(t, p.Momentum, len(want.Momentum))
	opened := 0
	for _, wk := range p.Momentum {
		opened += wk.Opened
	}
	want2 := 0
	for _, n := range f.w.OpenedByWeek[f.covered] {
		want2 += n
	}
	censored := len(f.w.FirstSeen[f.covered]) - want2
	require.Positive(t, censored, "the company had reqs live at the first crawl")
	require.Equal(t, want2, opened, "momentum sums every req first seen after the coverage start (%d left-censored left out)", censored)
}

// Free plans are gated off hiring-pulse and pre-action-brief (402), paid ones are not.
func TestFreePlanIsGatedOffPulseAndBrief(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	free := f.srv.Account(t, "free").Key
	for _, seg := range []string{"hiring-pulse", "pre-action-brief"} {
		require.Equal(t, 402, f.srv.Get(t, cpath(f.covered, seg), free, nil).Status, seg)
	}
}

func TestEnrichmentFirmographicsAndBoardsAtTheFreshnessFloor(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	free := f.srv.Account(t, "free").Key
	co := f.m.Company(f.covered)
	r := f.srv.Get(t, cpath(f.covered, "enrichment"), paid, nil)
	var pv enrichment
	r.Decode(t, 200, &pv)
	fv := apitest.GetJSON[enrichment](t, f.srv, cpath(f.covered, "enrichment"), free, nil, 200)
	require.Equal(t, co.Name, pv.Name)
	require.Equal(t, co.Domain, pv.Domain)
	hq := co.HQCountry()
	require.Equal(t, &hq, pv.HQCountry)
	cc := normalize.CountryCode(co.HQCountry())
	require.Equal(t, &cc, pv.HQCountryCode)
	require.Equal(t, "covered", pv.CoverageStatus)
	// Enrichment and the criteria filter use one rule: an ordinary employer is "employer", the
	// value the filter accepts, not null.
	if co.AgencyKind() == "" {
		require.NotNil(t, pv.AgencyKind)
		require.Equal(t, "employer", *pv.AgencyKind)
	}
	if pv.AgencyKind != nil {
		require.Contains(t, criteria.AgencyKinds, *pv.AgencyKind, "a value the criteria filter accepts")
	}
	fields := r.Fields(t)
	for _, banned := range []string{"linkedin", "linkedin_url", "employees_on_linkedin"} {
		require.NotContains(t, fields, banned)
	}
	var all []string
	floored := []string{}
	for _, b := range co.Boards() {
		all = append(all, b.Board)
		if !b.FirstSeen.After(f.m.AsOf.Add(-24 * time.Hour)) {
			floored = append(floored, b.Board)
		}
	}
	require.Equal(t, all, pv.Boards)
	require.Equal(t, floored, fv.Boards)
	u := apitest.GetJSON[enrichment](t, f.srv, cpath(f.uncovered, "enrichment"), paid, nil, 200)
	require.Equal(t, "no_ats_signal", u.CoverageStatus)
	require.Empty(t, u.Boards)
}

func TestFirstHireAndRepostPainAreHistoryCappedOnTheFreePlan(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	free := f.srv.Account(t, "free").Key // the Free plan allows 20 calls a minute: at most 8 here
	cut := f.m.AsOf.Add(-90 * 24 * time.Hour)
	freeTier, ok := plans.ByPlan("free")
	require.True(t, ok)
	capped, checked := 0, 0
	for id := range f.w.Companies {
		if !f.w.Covered[id] {
			continue
		}
		co := f.m.Company(id)
		pv := apitest.GetJSON[firstHire](t, f.srv, cpath(id, "first-hire"), paid, nil, 200)
		require.False(t, pv.HistoryCapped)
		all := firstHireNames(co, time.Time{}, time.Time{})
		require.Len(t, pv.FirstHires, all)
		names := map[string]bool{}
		for _, x := range pv.FirstHires {
			require.Equal(t, readmodel.FirstHireSource, x.SourceBoard)
			k := x.Function
			if x.FunctionName != nil {
				k = *x.FunctionName
			}
			require.False(t, names[k], "one row per function name: %s twice", k)
			names[k] = true
			require.True(t, x.FirstSeen.After(co.ObservedFrom()), "no first hire at the coverage start")
		}
		rp := apitest.GetJSON[repostPain](t, f.srv, cpath(id, "repost-pain"), paid, nil, 200)
		prev := 1 << 30
		for _, x := range rp.Reqs {
			require.Positive(t, x.RepostCount)
			require.LessOrEqual(t, x.RepostCount, prev, "hardest first")
			prev = x.RepostCount
		}
		// The Free plan also has a freshness floor: a first hire seen within it is not served.
		want := firstHireNames(co, cut, readmodel.FreshBefore(f.m.AsOf, freeTier.FreshnessFloorS))
		if checked >= 4 || want == all {
			continue
		}
		checked++
		fv := apitest.GetJSON[firstHire](t, f.srv, cpath(id, "first-hire"), free, nil, 200)
		require.True(t, fv.HistoryCapped)
		require.Len(t, fv.FirstHires, want)
		capped += all - want
		rf := apitest.GetJSON[repostPain](t, f.srv, cpath(id, "repost-pain"), free, nil, 200)
		require.LessOrEqual(t, *rf.Total, *rp.Total)
	}
	require.Positive(t, capped, "the crawl is longer than the cap, so the free plan must lose some first hires")
}

func TestATSMigrationsAreProvenanceWrapped(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	for id := range f.w.Companies {
		co := f.m.Company(id)
		v := apitest.GetJSON[migrations](t, f.srv, cpath(id, "ats-migrations"), paid, nil, 200)
		if !co.Covered() {
			require.Nil(t, v.Migrations)
			continue
		}
		require.Len(t, v.Migrations, len(co.Migrations()))
		for _, mg := range v.Migrations {
			require.NotEqual(t, mg.FromVendor, mg.ToVendor)
			require.Equal(t, "ats_history", mg.OccurredAt.Source)
			require.NotEmpty(t, mg.OccurredAt.Value)
			require.NotEmpty(t, mg.OccurredAt.ObservedAt)
		}
	}
}

func TestPreActionBriefIsBounded(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	r := f.srv.Get(t, cpath(f.covered, "pre-action-brief"), paid, nil)
	var v brief
	r.Decode(t, 200, &v)
	require.LessOrEqual(t, len(v.OpenReqs), companies.BriefReqs)
	require.Equal(t, len(f.w.Live[f.covered]), *v.OpenReqTotal)
	require.LessOrEqual(t, len(v.Pulse.Momentum), companies.BriefMomentumWeeks)
	require.LessOrEqual(t, len(v.RepostPain), companies.BriefReposts)
	require.Contains(t, r.Fields(t), "first_hires")
	require.Contains(t, r.Fields(t), "migrations")
}

func TestResolveByDomainOrName(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	free := f.srv.Account(t, "free").Key
	resolve := func(q url.Values) apitest.Response {
		t.Helper()
		return f.srv.Get(t, "/v1/companies/resolve", free, q)
	}
	co := f.w.Companies[f.covered]
	r := resolve(url.Values{"domain": {"https://www." + co.Domain + "/jobs"}})
	var d resolved
	r.Decode(t, 200, &d)
	require.Len(t, d.Companies, 1)
	got := d.Companies[0]
	require.Equal(t, f.covered, got.CompanyID)
	require.Equal(t, "covered", got.CoverageStatus)
	require.Equal(t, normalize.CountryCode(co.HQCountry), *got.CountryCode)
	var raw struct{ Companies []map[string]json.RawMessage }
	r.Decode(t, 200, &raw)
	require.NotContains(t, raw.Companies[0], "is_hiring")
	require.NotContains(t, raw.Companies[0], "open_req_count")

	var exact resolved
	resolve(url.Values{"name": {co.Name}}).Decode(t, 200, &exact)
	require.Equal(t, f.covered, exact.Companies[0].CompanyID)
	require.Equal(t, 1.0, exact.Companies[0].MatchConfidence)
	base, _ := normalize.StripLegalSuffix(co.Name)
	var loose resolved
	resolve(url.Values{"name": {base}}).Decode(t, 200, &loose)
	require.LessOrEqual(t, len(loose.Companies), companies.ResolveMax)
	found := false
	for _, x := range loose.Companies {
		if x.CompanyID == f.covered {
			found = true
			require.Equal(t, 0.8, x.MatchConfidence)
		}
	}
	require.True(t, found)

	var un resolved
	resolve(url.Values{"domain": {f.w.Companies[f.uncovered].Domain}}).Decode(t, 200, &un)
	require.Equal(t, "no_ats_signal", un.Companies[0].CoverageStatus)

	var none resolved
	resolve(url.Values{"name": {"Zzyzx Nonexistent Ltd"}}).Decode(t, 200, &none)
	require.NotNil(t, none.Companies)
	require.Empty(t, none.Companies)
}

func TestEvery200AnswersOnlyFieldsItsOpenAPISchemaDeclares(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	f.srv.Get(t, "/openapi.json", "", nil).Decode(t, 200, &doc)
	check := func(tmpl, path string) {
		t.Helper()
		sch := doc.Paths[tmpl]["get"].Responses["200"].Content["application/json"].Schema
		props, ok := sch["properties"].(map[string]any)
		require.True(t, ok, "%s documents its 200 body", tmpl)
		r := f.srv.Get(t, path, paid, nil)
		require.Equal(t, 200, r.Status, "%s: %s", path, r.Body)
		for k := range r.Fields(t) {
			require.Contains(t, props, k, "%s answers %s", tmpl, k)
		}
	}
	for _, seg := range segments {
		check("/v1/companies/{company_id}/"+seg, cpath(f.covered, seg))
	}
	check("/v1/companies/resolve", "/v1/companies/resolve?domain="+f.w.Companies[f.covered].Domain)
}

// firstHireNames counts the function names (unnamed ids by id) of co's first hires whose earliest
// first hire is not before cut, leaving out names with a left-censored id.
func firstHireNames(co *readmodel.Company, cut, fresh time.Time) int {
	keyOf := func(id string) string {
		if n, ok := normalize.FunctionName(id); ok {
			return n
		}
		return id
	}
	earliest := map[string]time.Time{}
	for _, f := range co.FirstHires() {
		k := keyOf(f.Function)
		if e, ok := earliest[k]; !ok || f.FirstSeen.Before(e) {
			earliest[k] = f.FirstSeen
		}
	}
	for id := range co.CensoredFunctions() {
		delete(earliest, keyOf(id))
	}
	n := 0
	for _, e := range earliest {
		if !e.Before(cut) && !readmodel.Hides(fresh, e.Unix()) {
			n++
		}
	}
	return n
}

// repost-pain serves up to 100 rows a call: the shared demo key's page cap (5 rows) applies to it
// as to every paged route (without it the demo key read 100 unmetered rows a call without signup).
func TestRepostPainServesTheDemoKeyItsPageCap(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	for id := range f.w.Companies {
		if !f.w.Covered[id] {
			continue
		}
		rp := apitest.GetJSON[repostPain](t, f.srv, cpath(id, "repost-pain"), paid, nil, 200)
		if len(rp.Reqs) <= api.DemoPageLimit {
			continue
		}
		demo := apitest.GetJSON[repostPain](t, f.srv, cpath(id, "repost-pain"), api.PublicDemoKey, nil, 200)
		require.Len(t, demo.Reqs, api.DemoPageLimit)
		require.Equal(t, rp.Reqs[:api.DemoPageLimit], demo.Reqs, "the hardest first, as for a key of its own")
		return
	}
	t.Fatal("no company of the world has more reposted reqs than the demo page")
}

// Every company read says which committed crawl cycle it reflects (as_of, the read model's), on
// a covered company and on one without coverage alike, and its document requires it.
func TestEveryCompanyReadSaysWhichCycleItIsAsOf(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						Required []string `json:"required"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	f.srv.Get(t, "/openapi.json", "", nil).Decode(t, 200, &doc)
	for _, seg := range segments {
		tmpl := "/v1/companies/{company_id}/" + seg
		require.Contains(t, doc.Paths[tmpl]["get"].Responses["200"].Content["application/json"].Schema.Required, "as_of", tmpl)
		for _, id := range []uint64{f.covered, f.uncovered} {
			var v struct {
				AsOf *time.Time `json:"as_of"`
			}
			f.srv.Get(t, cpath(id, seg), paid, nil).Decode(t, 200, &v)
			require.NotNil(t, v.AsOf, "%s of company %d", seg, id)
			require.True(t, f.m.AsOf.Equal(*v.AsOf), "%s of company %d: as_of %s, the model's %s", seg, id, v.AsOf, f.m.AsOf)
		}
	}
}
