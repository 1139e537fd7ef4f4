package search_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/read/criteria"
)

// liveFacts reads each live req's posting facts straight from the ledger at the index's
// watermark: the reference the answers are held to.
func liveFacts(t *testing.T, f *fixture) map[string]analytics.Facts {
	t.Helper()
	keys := make([]string, 0, len(f.live))
	for k := range f.live {
		keys = append(keys, k)
	}
	last, err := analytics.LatestEvents(context.Background(), f.w.CH, f.wm, keys)
	require.NoError(t, err)
	out := make(map[string]analytics.Facts, len(last))
	for k, e := range last {
		out[k] = e.Facts
	}
	return out
}

// factRow is what the facts tests read of a served row.
type factRow struct {
	ReqKey       string `json:"req_key"`
	Technologies []struct {
		Slug     string `json:"slug"`
		Name     string `json:"name"`
		Required *bool  `json:"required"`
	} `json:"technologies"`
	Seniority          *string         `json:"seniority"`
	EmploymentType     *string         `json:"employment_type"`
	WorkplaceType      *string         `json:"workplace_type"`
	RemoteCountries    []string        `json:"remote_countries"`
	RemoteRegions      []string        `json:"remote_regions"`
	YearsExperienceMin *int            `json:"years_experience_min"`
	VisaSponsorship    *bool           `json:"visa_sponsorship"`
	StatedPay          map[string]any  `json:"stated_pay"`
	Description        json.RawMessage `json:"description"` // empty when absent, "null" when null
}

// requireFacts holds a served row to the ledger's facts of its req.
func requireFacts(t *testing.T, want analytics.Facts, r factRow) {
	t.Helper()
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		require.NotEmpty(t, *p, "a fact not stated is null, never empty")
		return *p
	}
	require.Equal(t, want.Seniority, str(r.Seniority), r.ReqKey)
	require.Equal(t, want.EmploymentType, str(r.EmploymentType), r.ReqKey)
	require.Equal(t, want.WorkplaceType, str(r.WorkplaceType), r.ReqKey)
	require.Equal(t, want.RemoteCountries, r.RemoteCountries, r.ReqKey)
	require.Equal(t, want.RemoteRegions, r.RemoteRegions, r.ReqKey)
	var slugs []string
	for i, tech := range r.Technologies {
		slugs = append(slugs, tech.Slug)
		require.NotEmpty(t, tech.Name)
		switch want.TechKinds[i] {
		case analytics.TechRequired:
			require.Equal(t, new(true), tech.Required)
		case analytics.TechNiceToHave:
			require.Equal(t, new(false), tech.Required)
		default:
			require.Nil(t, tech.Required)
		}
	}
	require.Equal(t, want.Technologies, slugs, r.ReqKey)
	if want.YearsMin == nil {
		require.Nil(t, r.YearsExperienceMin)
	} else {
		require.Equal(t, int(*want.YearsMin), *r.YearsExperienceMin)
	}
	require.Equal(t, want.Visa, r.VisaSponsorship)
	require.Equal(t, want.StatedPay == nil, r.StatedPay == nil)
	if r.StatedPay != nil {
		require.Equal(t, "text", r.StatedPay["source"])
		require.Equal(t, want.StatedPay.CurrencyInferred, r.StatedPay["currency_inferred"], r.ReqKey)
	}
}

// pageFacts pages jobs/search with q's filters to the end.
func pageFacts(t *testing.T, c *caller, q url.Values) []factRow {
	t.Helper()
	var out []factRow
	q.Set("limit", "100")
	for page := 0; ; page++ {
		require.Less(t, page, 10000)
		p := apitest.GetJSON[struct {
			Jobs       []factRow `json:"jobs"`
			NextCursor *string   `json:"next_cursor"`
		}](t, c.srv, "/v1/jobs/search", c.key, q, 200)
		c.served += len(p.Jobs)
		out = append(out, p.Jobs...)
		if p.NextCursor == nil {
			return out
		}
		q.Set("cursor", *p.NextCursor)
	}
}

// Every row serves what its req's posting states, as the crawl stored it, and the posting-fact
// filters select exactly the live reqs whose facts hold (a fact not stated matches no value).
func TestRowsServeThePostingsFactsAndFilterOnThem(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	ref := liveFacts(t, f)
	c := newCaller(t, f.srv, "growth")

	rows := pageFacts(t, c, url.Values{})
	require.Len(t, rows, len(f.live))
	stated := map[string]int{}
	for _, r := range rows {
		requireFacts(t, ref[r.ReqKey], r)
		require.Empty(t, r.Description, "no description unless asked for")
		if r.WorkplaceType != nil {
			stated["workplace"]++
		}
		if r.EmploymentType != nil {
			stated["employment"]++
		}
		if len(r.Technologies) > 0 {
			stated["technologies"]++
		}
	}
	require.Positive(t, stated["workplace"], "the world's feeds state workplace types")
	require.Positive(t, stated["employment"], "and employment types")
	require.Positive(t, stated["technologies"], "titles and descriptions name technologies")
	require.Less(t, stated["employment"], len(rows), "some postings state none: null")

	want := func(keep func(analytics.Facts) bool) []string {
		var out []string
		for k, fs := range ref {
			if keep(fs) {
				out = append(out, k)
			}
		}
		sort.Strings(out)
		return out
	}
	got := func(q url.Values) []string {
		var out []string
		for _, r := range pageFacts(t, c, q) {
			out = append(out, r.ReqKey)
		}
		sort.Strings(out)
		return out
	}
	slug := ""
	for _, fs := range ref {
		if len(fs.Technologies) > 0 {
			slug = fs.Technologies[0]
			break
		}
	}
	require.NotEmpty(t, slug)
	for _, tc := range []struct {
		q    url.Values
		keep func(analytics.Facts) bool
	}{
		{url.Values{"workplace_type": {"remote"}}, func(f analytics.Facts) bool { return f.WorkplaceType == "remote" }},
		{url.Values{"workplace_type": {"remote", "hybrid"}, "employment_type": {"full_time"}}, func(f analytics.Facts) bool {
			return (f.WorkplaceType == "remote" || f.WorkplaceType == "hybrid") && f.EmploymentType == "full_time"
		}},
		{url.Values{"technologies": {slug}}, func(f analytics.Facts) bool { return slices.Contains(f.Technologies, slug) }},
		{url.Values{"seniority": {"senior", "director"}}, func(f analytics.Facts) bool { return f.Seniority == "senior" || f.Seniority == "director" }},
	} {
		w := want(tc.keep)
		require.NotEmpty(t, w, "%v matches some reqs of the world", tc.q)
		require.Equal(t, w, got(tc.q), "%v", tc.q)
	}
	c.requireUnits(t)

	// reqs/qualified takes the same filters in its criteria.
	q := apitest.PostJSON[struct {
		Rows []factRow `json:"rows"`
	}](t, f.srv, "/v1/reqs/qualified", c.key, map[string]any{"criteria": map[string]any{"req": map[string]any{"workplace_type": "remote"}},
		"exclude_agencies": false, "limit": 100}, 200)
	require.NotEmpty(t, q.Rows)
	for _, r := range q.Rows {
		require.Equal(t, "remote", *r.WorkplaceType)
		requireFacts(t, ref[r.ReqKey], r)
	}
}

// A description is served on request (include=description; always on jobs/role) as the crawl
// stored its cleaned text, read from ClickHouse for the page's reqs; a bad filter or include is
// 422 listing the valid values.
func TestDescriptionsAreServedOnRequest(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	ref := liveFacts(t, f)
	c := newCaller(t, f.srv, "growth")

	var key string
	var cid uint64
	for k, fs := range ref {
		if fs.DescriptionHash != 0 {
			key, cid = k, f.live[k].CompanyID
			break
		}
	}
	require.NotEmpty(t, key, "the world's postings have descriptions")
	texts, err := analytics.ReadDescriptions(context.Background(), f.w.CH, map[string]uint64{key: ref[key].DescriptionHash})
	require.NoError(t, err)
	require.NotEmpty(t, texts[key])

	role := apitest.GetJSON[factRow](t, f.srv, "/v1/jobs/role", c.key, url.Values{"company_id": {strconv.FormatUint(cid, 10)}, "req_key": {key}}, 200)
	var text string
	require.NoError(t, json.Unmarshal(role.Description, &text))
	require.Equal(t, texts[key], text)
	require.NotContains(t, text, "<p>", "plain text")
	requireFacts(t, ref[key], role)

	page := apitest.GetJSON[struct {
		Jobs []factRow `json:"jobs"`
	}](t, f.srv, "/v1/jobs/search", c.key, url.Values{"include": {"description"}, "limit": {"40"}}, 200)
	c.served += len(page.Jobs)
	with := 0
	for _, r := range page.Jobs {
		require.NotEmpty(t, r.Description, "asked for: present, null when the posting has none")
		if ref[r.ReqKey].DescriptionHash == 0 {
			require.Equal(t, "null", string(r.Description))
			continue
		}
		var s string
		require.NoError(t, json.Unmarshal(r.Description, &s))
		require.NotEmpty(t, s)
		with++
	}
	require.Positive(t, with)
	c.requireUnits(t)

	qualified := apitest.PostJSON[struct {
		Rows []factRow `json:"rows"`
	}](t, f.srv, "/v1/reqs/qualified", c.key, map[string]any{"include": []string{"description"}, "exclude_agencies": false, "limit": 10}, 200)
	require.NotEmpty(t, qualified.Rows)
	for _, r := range qualified.Rows {
		require.NotEmpty(t, r.Description)
	}

	bad := func(path string, q url.Values) map[string]any {
		t.Helper()
		r := f.srv.Get(t, path, c.key, q)
		require.Equal(t, 422, r.Status, string(r.Body))
		var body struct {
			Detail []map[string]any `json:"detail"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &body))
		require.NotEmpty(t, body.Detail)
		return body.Detail[0]
	}
	item := bad("/v1/jobs/search", url.Values{"technologies": {"cobolt"}})
	require.Len(t, item["ctx"].(map[string]any)["expected"], len(criteria.Technologies()), "the slugs are listed")
	item = bad("/v1/jobs/search", url.Values{"workplace_type": {"office"}})
	require.Contains(t, item["msg"], "'remote'")
	bad("/v1/reqs/search", url.Values{"include": {"bogus"}})
	bad("/v1/jobs/search", url.Values{"include": {"momentum"}})
	many := url.Values{}
	for range criteria.MaxFactValues + 1 {
		many.Add("technologies", "go")
	}
	bad("/v1/jobs/search", many)
	item = bad("/v1/reqs/search", url.Values{"include": {"description"}, "limit": {"10"}, "matched_reqs": {"50"}})
	require.Equal(t, []any{"query", "matched_reqs"}, item["loc"])
}
