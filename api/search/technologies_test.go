package search_test

import (
	"context"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// techReference counts every company's technologies from the ledger the index was built from
// (readmodeltest.TechLedger), of the reqs first seen at or before cutoff (zero: every one).
func techReference(t *testing.T, f *fixture, cutoff time.Time) map[uint64]map[string]*readmodeltest.TechUse {
	t.Helper()
	l := readmodeltest.TechLedger{CH: f.w.CH, Watermark: f.wm, Reqs: f.all, Now: f.x.CycleTime, ClosedSince: f.x.CycleTime.Add(-searchindex.ClosedWindow)}
	ref, _ := l.TechReference(t, cutoff)
	return ref
}

// techUse is a served technology use, as the tests read it.
type techUse struct {
	LiveReqs     int       `json:"live_reqs"`
	PastReqs     int       `json:"past_reqs"`
	RequiredReqs int       `json:"required_reqs"`
	FirstSeen    time.Time `json:"first_seen"`
	LastSeen     time.Time `json:"last_seen"`
	Evidence     []string  `json:"evidence"`
}

func requireTechUse(t *testing.T, want *readmodeltest.TechUse, got techUse, what string) {
	t.Helper()
	require.NotNil(t, want, what)
	require.Equal(t, want.Live, got.LiveReqs, what)
	require.Equal(t, want.Past, got.PastReqs, what)
	require.Equal(t, want.Required, got.RequiredReqs, what)
	require.True(t, want.First.Equal(got.FirstSeen), "%s: first_seen %v, want %v", what, got.FirstSeen, want.First)
	require.True(t, want.Last.Equal(got.LastSeen), "%s: last_seen %v, want %v", what, got.LastSeen, want.Last)
	require.Equal(t, want.Keys[:min(len(want.Keys), searchindex.EvidenceMax)], got.Evidence, what)
}

type techCompaniesPage struct {
	Technology struct {
		Slug, Name, Category string
	} `json:"technology"`
	Companies []struct {
		CompanyID   uint64  `json:"company_id"`
		CompanyName *string `json:"company_name"`
		techUse
	} `json:"companies"`
	HasMore    bool    `json:"has_more"`
	Total      int     `json:"total"`
	TotalExact bool    `json:"total_exact"`
	NextCursor *string `json:"next_cursor"`
}

// pageTechCompanies pages /v1/technologies/{slug}/companies to the end, counting the rows served.
func pageTechCompanies(t *testing.T, c *caller, slug string, q url.Values) (rows []uint64, uses map[uint64]techUse, total int) {
	t.Helper()
	uses = map[uint64]techUse{}
	if q.Get("limit") == "" {
		q.Set("limit", "7")
	}
	for page := 0; ; page++ {
		require.Less(t, page, 1000)
		r := c.srv.Get(t, "/v1/technologies/"+url.PathEscape(slug)+"/companies", c.key, q)
		c.srv.Conforms(t, "GET", "/v1/technologies/{slug}/companies", r)
		var p techCompaniesPage
		r.Decode(t, 200, &p)
		require.True(t, p.TotalExact)
		require.Equal(t, p.HasMore, p.NextCursor != nil)
		total = p.Total
		c.served += len(p.Companies)
		for _, co := range p.Companies {
			rows = append(rows, co.CompanyID)
			uses[co.CompanyID] = co.techUse
		}
		if p.NextCursor == nil {
			return rows, uses, total
		}
		q.Set("cursor", *p.NextCursor)
	}
}

// The companies of a technology are exactly the companies whose reqs name it in the ledger (the
// reqs the index holds), newest first mention first, each with its live and past reqs, first and
// last seen and evidence; since keeps those whose first mention is at or after it, live_only
// those with a live req naming it; the Free floor hides the reqs first seen within it from rows
// and counts alike; one source_row is metered per company row.
func TestTechnologyCompaniesAnswerTheLedger(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	ref := techReference(t, f, time.Time{})
	// The three technologies most companies name.
	companies := map[string]int{}
	for _, techs := range ref {
		for slug := range techs {
			companies[slug]++
		}
	}
	var slugs []string
	for s := range companies {
		slugs = append(slugs, s)
	}
	sort.Slice(slugs, func(i, j int) bool {
		return companies[slugs[i]] > companies[slugs[j]] || companies[slugs[i]] == companies[slugs[j]] && slugs[i] < slugs[j]
	})
	require.GreaterOrEqual(t, len(slugs), 3, "the world's postings name technologies")
	require.GreaterOrEqual(t, companies[slugs[0]], 10)
	st := f.x.Stats()
	t.Logf("%d reqs of %d companies name %d technologies; %s is named by %d companies, %s by %d, %s by %d; %d technology entries",
		st.Reqs, st.Companies, len(slugs), slugs[0], companies[slugs[0]], slugs[1], companies[slugs[1]], slugs[2], companies[slugs[2]], st.TechCompanies)

	expect := func(ref map[uint64]map[string]*readmodeltest.TechUse, slug string, since time.Time, liveOnly bool) []uint64 {
		var want []uint64
		for id, techs := range ref {
			u := techs[slug]
			if u == nil || u.First.Before(since) || liveOnly && u.Live == 0 {
				continue
			}
			want = append(want, id)
		}
		sort.Slice(want, func(i, j int) bool {
			a, b := ref[want[i]][slug].First, ref[want[j]][slug].First
			return a.After(b) || a.Equal(b) && want[i] < want[j]
		})
		return want
	}
	for _, plan := range []string{"growth", "free"} {
		c := &caller{srv: f.srv, key: f.srv.RoomyAccount(t, plan).Key}
		r, limit := ref, "7"
		if plan == "free" { // 100 calls a day: larger pages
			r, limit = techReference(t, f, f.x.CycleTime.Add(-24*time.Hour)), "100"
		}
		for _, slug := range slugs[:3] {
			want := expect(r, slug, time.Time{}, false)
			got, uses, total := pageTechCompanies(t, c, slug, url.Values{"limit": {limit}})
			require.Equal(t, want, got, "%s %s", plan, slug)
			require.Equal(t, len(want), total)
			for id, u := range uses {
				requireTechUse(t, r[id][slug], u, slug)
			}
			// since: the median first mention keeps the companies that first named it then or later.
			since := r[want[len(want)/2]][slug].First
			want = expect(r, slug, since, false)
			got, _, total = pageTechCompanies(t, c, slug, url.Values{"since": {since.Format(time.RFC3339)}, "limit": {limit}})
			require.Equal(t, want, got, "%s %s since %v", plan, slug, since)
			require.Equal(t, len(want), total)
			require.NotEmpty(t, want)
			got, _, _ = pageTechCompanies(t, c, slug, url.Values{"live_only": {"true"}, "limit": {limit}})
			require.Equal(t, expect(r, slug, time.Time{}, true), got, "%s %s live_only", plan, slug)
		}
		c.requireUnits(t)
	}
}

// The companies that started naming a technology after the crawl began are the ones whose
// first mention is after its first cycle: since answers "who started hiring for it this month".
func TestSinceIsWhoStartedNamingIt(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	ref := techReference(t, f, time.Time{})
	firstSeen := map[string]time.Time{}
	for _, r := range f.all {
		firstSeen[r.ReqKey] = r.FirstSeen
	}
	start := f.w.Sim.CycleTime(f.w.Ticks[0]).Add(time.Second)
	c := newCaller(t, f.srv, "growth")
	found := 0
	for _, slug := range []string{"python", "sql", "salesforce", "aws", "kubernetes", "excel"} {
		got, uses, _ := pageTechCompanies(t, c, slug, url.Values{"since": {start.Format(time.RFC3339)}})
		for _, id := range got {
			require.False(t, uses[id].FirstSeen.Before(start))
			for _, k := range ref[id][slug].Keys { // no req of the company naming it was seen before
				require.False(t, firstSeen[k].Before(start), "%s names %s since %v", k, slug, firstSeen[k])
			}
		}
		for id, techs := range ref { // and every company that started naming it since is served
			if u := techs[slug]; u != nil && !u.First.Before(start) {
				require.Contains(t, got, id, slug)
			}
		}
		found += len(got)
	}
	require.Positive(t, found, "some company started naming one of them during the crawl")
	c.requireUnits(t)
}

// A technology's name (any case) reads as its slug; one outside the vocabulary is 422 at
// ["path","slug"] naming /v1/technologies and suggesting close slugs; every bound is 422 and
// nothing is metered.
func TestTechnologyCompaniesBoundsAndBadSlugs(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	byName := apitest.GetJSON[techCompaniesPage](t, f.srv, "/v1/technologies/PostgreSQL/companies", c.key, nil, 200)
	bySlug := apitest.GetJSON[techCompaniesPage](t, f.srv, "/v1/technologies/postgresql/companies", c.key, nil, 200)
	require.Equal(t, "postgresql", byName.Technology.Slug)
	require.Equal(t, bySlug, byName)
	c.served += len(byName.Companies) + len(bySlug.Companies)

	r := f.srv.Get(t, "/v1/technologies/apache-kafka/companies", c.key, nil)
	require.Equal(t, 422, r.Status, "%s", r.Body)
	var e struct {
		Detail []struct {
			Loc []any          `json:"loc"`
			Msg string         `json:"msg"`
			Ctx map[string]any `json:"ctx"`
		} `json:"detail"`
	}
	r.Decode(t, 422, &e)
	require.Len(t, e.Detail, 1)
	require.Equal(t, []any{"path", "slug"}, e.Detail[0].Loc)
	require.Contains(t, e.Detail[0].Msg, "GET /v1/technologies")
	require.Equal(t, "/v1/technologies", e.Detail[0].Ctx["vocabulary"])
	require.Contains(t, e.Detail[0].Ctx["suggestions"], "kafka")
	require.Len(t, e.Detail[0].Ctx["expected"], len(jobtext.Vocabulary()))

	for _, q := range []url.Values{{"limit": {"0"}}, {"limit": {"101"}}, {"cursor": {"nope"}}, {"since": {"yesterday"}}, {"live_only": {"maybe"}},
		{"limit": {"1", "2"}}, {"colour": {"red"}}} {
		r := f.srv.Get(t, "/v1/technologies/go/companies", c.key, q)
		require.Equal(t, 422, r.Status, "%v: %s", q, r.Body)
	}
	r = f.srv.Get(t, "/v1/technologies/"+strings.Repeat("x", 101)+"/companies", c.key, nil)
	require.Equal(t, 422, r.Status, "%s", r.Body)
	c.requireUnits(t)
}

// The vocabulary lists every technology with its name and category, filters by category and is
// not billed.
func TestTheTechnologyVocabularyIsListed(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "free")
	var v struct {
		Technologies []struct{ Slug, Name, Category string } `json:"technologies"`
		Categories   []string                                `json:"categories"`
		Total        int                                     `json:"total"`
	}
	r := f.srv.Get(t, "/v1/technologies", a.Key, nil)
	f.srv.Conforms(t, "GET", "/v1/technologies", r)
	r.Decode(t, 200, &v)
	vocab := jobtext.Vocabulary()
	require.Len(t, v.Technologies, len(vocab))
	require.Equal(t, len(vocab), v.Total)
	for i, tech := range vocab {
		require.Equal(t, tech.Slug, v.Technologies[i].Slug)
		require.Equal(t, tech.Name, v.Technologies[i].Name)
		require.Equal(t, tech.Category, v.Technologies[i].Category)
		require.Contains(t, v.Categories, tech.Category)
	}
	f.srv.Get(t, "/v1/technologies", a.Key, url.Values{"category": {jobtext.CatCRM}}).Decode(t, 200, &v)
	require.NotEmpty(t, v.Technologies)
	for _, tech := range v.Technologies {
		require.Equal(t, jobtext.CatCRM, tech.Category)
	}
	require.Equal(t, 422, f.srv.Get(t, "/v1/technologies", a.Key, url.Values{"category": {"astrology"}}).Status)
	require.NoError(t, f.srv.API.FlushUsage(context.Background()))
	var u struct {
		Calls int `json:"calls"`
	}
	f.srv.Get(t, "/v1/usage", a.Key, nil).Decode(t, 200, &u)
	require.Zero(t, u.Calls, "the vocabulary is not billed")
}
