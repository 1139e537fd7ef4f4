package companies_test

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// techLedger is the ledger f's index was built from, the reference of the technographics.
func techLedger(t *testing.T, f *fixture) readmodeltest.TechLedger {
	t.Helper()
	var reqs []*analytics.Req
	require.NoError(t, analytics.CurrentReqs(context.Background(), f.w.CH, f.x.Watermark, func(r *analytics.Req) error {
		reqs = append(reqs, r)
		return nil
	}))
	return readmodeltest.TechLedger{CH: f.w.CH, Watermark: f.x.Watermark, Reqs: reqs, Now: f.x.CycleTime,
		ClosedSince: f.x.CycleTime.Add(-searchindex.ClosedWindow)}
}

// technologies is the answer of GET /v1/companies/{company_id}/technologies as the tests read it.
type technologies struct {
	CompanyID      uint64  `json:"company_id"`
	CoverageStatus string  `json:"coverage_status"`
	Total          *int    `json:"total"`
	HasMore        bool    `json:"has_more"`
	NextCursor     *string `json:"next_cursor"`
	Reqs           int     `json:"reqs"`
	DescribedReqs  int     `json:"described_reqs"`
	Technologies   []struct {
		Slug         string    `json:"slug"`
		Name         string    `json:"name"`
		Category     string    `json:"category"`
		LiveReqs     int       `json:"live_reqs"`
		PastReqs     int       `json:"past_reqs"`
		RequiredReqs int       `json:"required_reqs"`
		FirstSeen    time.Time `json:"first_seen"`
		LastSeen     time.Time `json:"last_seen"`
		Evidence     []string  `json:"evidence"`
	} `json:"technologies"`
	FreshnessFloorS int `json:"freshness_floor_s"`
}

// Every company's technologies are what its reqs name in the ledger (the reqs the index holds):
// live and past reqs, required ones, first and last seen and up to 10 req_keys of evidence,
// most live reqs first, paged by cursor, filtered by category; the Free floor hides the reqs
// first seen within it; each answer is one metered call with no units.
func TestCompanyTechnologiesAnswerTheLedger(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	ref, coverage := techLedger(t, f).TechReference(t, time.Time{})
	key := f.srv.RoomyAccount(t, "growth").Key
	calls := 0
	get := func(key string, id uint64, q url.Values) technologies {
		t.Helper()
		r := f.srv.Get(t, cpath(id, "technologies"), key, q)
		f.srv.Conforms(t, "GET", "/v1/companies/{company_id}/technologies", r)
		var v technologies
		r.Decode(t, 200, &v)
		calls++
		return v
	}
	// page reads every technology of a company, pages of limit.
	page := func(id uint64, q url.Values, limit string) (out technologies) {
		t.Helper()
		q.Set("limit", limit)
		for n := 0; ; n++ {
			require.Less(t, n, 100)
			v := get(key, id, q)
			out.Total, out.CoverageStatus, out.FreshnessFloorS, out.Reqs, out.DescribedReqs = v.Total, v.CoverageStatus, v.FreshnessFloorS, v.Reqs, v.DescribedReqs
			out.Technologies = append(out.Technologies, v.Technologies...)
			require.Equal(t, v.HasMore, v.NextCursor != nil)
			if v.NextCursor == nil {
				return out
			}
			q.Set("cursor", *v.NextCursor)
		}
	}
	named := 0
	for id := range f.w.Companies {
		if f.m.Company(id) == nil {
			continue
		}
		v := page(id, url.Values{}, "100")
		want := ref[id]
		require.Len(t, v.Technologies, len(want), "company %d", id)
		require.Equal(t, coverage[id].Reqs, v.Reqs, "company %d", id)
		require.Equal(t, coverage[id].Described, v.DescribedReqs, "company %d", id)
		if v.Total != nil {
			require.Equal(t, len(want), *v.Total)
		}
		for i, tech := range v.Technologies {
			u := want[tech.Slug]
			require.NotNil(t, u, "company %d: %s", id, tech.Slug)
			require.Equal(t, u.Category, tech.Category)
			require.NotEmpty(t, tech.Name)
			require.Equal(t, u.Live, tech.LiveReqs, tech.Slug)
			require.Equal(t, u.Past, tech.PastReqs, tech.Slug)
			require.Equal(t, u.Required, tech.RequiredReqs, tech.Slug)
			require.True(t, u.First.Equal(tech.FirstSeen), "%s first_seen %v, want %v", tech.Slug, tech.FirstSeen, u.First)
			require.True(t, u.Last.Equal(tech.LastSeen), "%s last_seen %v, want %v", tech.Slug, tech.LastSeen, u.Last)
			require.Equal(t, u.Keys[:min(len(u.Keys), searchindex.EvidenceMax)], tech.Evidence)
			if i > 0 {
				p := v.Technologies[i-1]
				require.True(t, p.LiveReqs > tech.LiveReqs || p.LiveReqs == tech.LiveReqs && (p.PastReqs > tech.PastReqs || p.PastReqs == tech.PastReqs && p.Slug < tech.Slug))
			}
		}
		if len(want) > 0 {
			named++
		}
	}
	require.Greater(t, named, 20, "most companies' postings name technologies")

	// Small pages and a category give the same rows, in the same order.
	var busiest uint64
	for id, techs := range ref {
		if busiest == 0 || len(techs) > len(ref[busiest]) || len(techs) == len(ref[busiest]) && id < busiest {
			busiest = id
		}
	}
	all := page(busiest, url.Values{}, "100")
	require.Equal(t, all.Technologies, page(busiest, url.Values{}, "3").Technologies)
	cat := all.Technologies[0].Category
	inCat := page(busiest, url.Values{"category": {cat}}, "2")
	require.NotEmpty(t, inCat.Technologies)
	require.Equal(t, len(inCat.Technologies), *inCat.Total)
	for _, tech := range inCat.Technologies {
		require.Equal(t, cat, tech.Category)
	}

	require.NoError(t, f.srv.API.FlushUsage(context.Background()))
	var u struct {
		Calls      int `json:"calls"`
		SourceRows int `json:"source_rows"`
	}
	f.srv.Get(t, "/v1/usage", key, nil).Decode(t, 200, &u)
	require.Equal(t, calls, u.Calls, "one call per answer")
	require.Zero(t, u.SourceRows)

	// The Free floor: the reqs first seen in the last 24 hours are neither counted nor listed.
	key = f.srv.RoomyAccount(t, "free").Key
	floored, flooredCoverage := techLedger(t, f).TechReference(t, f.x.CycleTime.Add(-24*time.Hour))
	sum := func(ref map[uint64]map[string]*readmodeltest.TechUse) (n int) {
		for _, techs := range ref {
			for _, u := range techs {
				n += u.Live
			}
		}
		return n
	}
	require.Less(t, sum(floored), sum(ref), "the floor hides some reqs naming technologies")
	v := page(busiest, url.Values{}, "100")
	require.Equal(t, 86400, v.FreshnessFloorS)
	require.Equal(t, flooredCoverage[busiest].Reqs, v.Reqs)
	require.Len(t, v.Technologies, len(floored[busiest]))
	for _, tech := range v.Technologies {
		u := floored[busiest][tech.Slug]
		require.Equal(t, u.Live, tech.LiveReqs, tech.Slug)
		require.Equal(t, u.Past, tech.PastReqs, tech.Slug)
		require.Equal(t, u.Keys[:min(len(u.Keys), searchindex.EvidenceMax)], tech.Evidence)
	}
}

// A company the snapshot does not know is 404; one without coverage answers no technology and a
// null total, as open-reqs does; every bound is 422.
func TestCompanyTechnologiesBounds(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	require.Equal(t, 404, f.srv.Get(t, cpath(987654321, "technologies"), key, nil).Status)
	v := apitest.GetJSON[technologies](t, f.srv, cpath(f.uncovered, "technologies"), key, nil, 200)
	require.Equal(t, "no_ats_signal", v.CoverageStatus)
	require.Nil(t, v.Total)
	require.Empty(t, v.Technologies)
	for _, q := range []url.Values{{"limit": {"0"}}, {"limit": {"101"}}, {"cursor": {"nope"}}, {"cursor": {"1:x"}}, {"category": {"astrology"}}, {"colour": {"red"}}} {
		r := f.srv.Get(t, cpath(f.covered, "technologies"), key, q)
		require.Equal(t, 422, r.Status, "%v: %s", q, r.Body)
	}
	// The demo page: at most 5 rows.
	r := f.srv.Get(t, cpath(f.covered, "technologies"), api.PublicDemoKey, url.Values{"limit": {"6"}})
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.LessOrEqual(t, len(apitest.GetJSON[technologies](t, f.srv, cpath(f.covered, "technologies"), api.PublicDemoKey, nil, 200).Technologies), api.DemoPageLimit)
}

// The technologies the simulator wrote into the postings are the ones a company's read shows:
// for the live reqs whose description the crawl stored, each technology the text names as
// required or nice to have is listed on its company with at least that many live reqs, but for
// the few the text reader disagrees on with the simulator (jobtext's own accuracy, scored in
// package sim). Reqs whose source gives no text state no technology (a posting's facts, not the
// company's).
func TestCompanyTechnologiesShowWhatThePostingsName(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.RoomyAccount(t, "growth").Key
	pairs, shown, described := 0, 0, 0
	for id, reqs := range f.w.Live {
		want := map[string]int{}
		for _, r := range reqs {
			x, ok := f.x.Lookup(id, readmodeltest.TruthKey(r))
			require.True(t, ok, "a live req is indexed")
			if x.DescriptionHash() == 0 {
				continue
			}
			described++
			for _, s := range append(slices.Clone(r.Description.TechnologiesRequired), r.Description.TechnologiesNice...) {
				want[s]++
			}
		}
		if len(want) == 0 {
			continue
		}
		v := apitest.GetJSON[technologies](t, f.srv, cpath(id, "technologies"), key, url.Values{"limit": {"100"}}, 200)
		live := map[string]int{}
		for _, tech := range v.Technologies {
			live[tech.Slug] = tech.LiveReqs
		}
		for s, n := range want {
			pairs++
			if live[s] >= n {
				shown++
			}
		}
	}
	t.Logf("%d live reqs with a description: %d of %d (company, technology) pairs the texts name are shown with their live reqs", described, shown, pairs)
	require.Greater(t, pairs, 100)
	require.GreaterOrEqual(t, float64(shown), 0.95*float64(pairs))
}
