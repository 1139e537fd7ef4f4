package agent_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/read/searchindex"
)

// The technographic tools answer exactly what their routes answer (in full detail), bill as the
// routes bill under the mcp channel, and the two routes agree: a technology's row for a company
// is that company's entry for the technology.
func TestTechnographicToolsAnswerAsTheRoutes(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	x := f.snaps.Current().Index
	// The company whose postings name the most technologies, and its most named one.
	var co uint64
	var most []searchindex.TechnologyUse
	for id := range f.w.Companies {
		uses := x.CompanyTechnologies(id, time.Time{}, 0)
		if len(uses) > len(most) || len(uses) == len(most) && id < co {
			co, most = id, uses
		}
	}
	require.NotEmpty(t, most, "the world's postings name technologies")
	slug := most[0].Slug

	a := f.srv.Account(t, "growth")
	s := connect(t, f.srv, a.Key, "")
	rest := func(path string, q url.Values) map[string]any {
		t.Helper()
		var m map[string]any
		r := f.srv.Get(t, path, a.Key, q)
		require.NoError(t, json.Unmarshal(r.Body, &m), "%s", r.Body)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		return m
	}
	cpath := fmt.Sprintf("/v1/companies/%d/technologies", co)
	tpath := "/v1/technologies/" + slug + "/companies"

	techs := ok(t, s, "company_technologies", map[string]any{"company_id": co, "limit": 10, "detail": "full"})
	require.Equal(t, rest(cpath, url.Values{"limit": {"10"}}), techs)
	require.NotEmpty(t, techs["technologies"])
	since := x.CycleTime.Add(-30 * 24 * time.Hour).Format(time.RFC3339)
	companies := ok(t, s, "technology_companies", map[string]any{"slug": slug, "since": since, "limit": 5, "detail": "full"})
	restCompanies := rest(tpath, url.Values{"limit": {"5"}, "since": {since}})
	require.Equal(t, restCompanies, companies)
	rows := len(companies["companies"].([]any))
	require.Positive(t, rows)

	// Concise keeps every row (a company's technologies too, though a req row's technologies are
	// left out) and cuts the evidence to two req_keys.
	conciseTechs := ok(t, s, "company_technologies", map[string]any{"company_id": co, "limit": 10})
	require.Len(t, conciseTechs["technologies"], len(techs["technologies"].([]any)))
	concise := ok(t, s, "technology_companies", map[string]any{"slug": slug, "since": since, "limit": 5})
	require.Len(t, concise["companies"], rows)
	for _, r := range concise["companies"].([]any) {
		require.LessOrEqual(t, len(r.(map[string]any)["evidence"].([]any)), 2)
	}

	// Every company of the technology lists it with the same counts, dates and evidence.
	all := rest(tpath, url.Values{"limit": {"100"}})
	for _, r := range all["companies"].([]any) {
		row := r.(map[string]any)
		id := int64(row["company_id"].(float64))
		found := false
		for _, tech := range rest(fmt.Sprintf("/v1/companies/%d/technologies", id), url.Values{"limit": {"100"}})["technologies"].([]any) {
			tm := tech.(map[string]any)
			if tm["slug"] != slug {
				continue
			}
			found = true
			for _, k := range []string{"live_reqs", "past_reqs", "required_reqs", "first_seen", "last_seen", "evidence"} {
				require.Equal(t, row[k], tm[k], "company %d %s", id, k)
			}
		}
		require.True(t, found, "company %d lists %s", id, slug)
	}

	u := readUsage(t, f.srv, a.Key)
	require.EqualValues(t, 4, u.ByChannel["mcp"], "one call per tool call")
	require.EqualValues(t, 2*rows+len(restCompanies["companies"].([]any))+len(all["companies"].([]any)), u.SourceRows,
		"one source_row per company row, by tool or REST")
}

// A slug outside the vocabulary is a tool error naming where the slugs are, billed nothing.
func TestAnUnknownTechnologyIsAToolError(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")
	s := connect(t, f.srv, a.Key, "")
	r, m := call(t, s, "technology_companies", map[string]any{"slug": "apache-kafka"})
	require.True(t, r.IsError)
	require.Equal(t, "invalid_arguments", m["reason"])
	b, _ := json.Marshal(m)
	require.Contains(t, string(b), "/v1/technologies")
	require.Contains(t, string(b), "kafka")
	require.Zero(t, readUsage(t, f.srv, a.Key).Calls)
}
