package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const aggURL = "http://127.0.0.1:7070/aggregator/v1/feed?region=dach"

func TestAggregatorParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "aggregator", fixture(t, "aggregator_feed.json"), aggURL)
	require.Equal(t, 2, page.Malformed, "blank id, title not a string")
	require.Equal(t, aggURL+"&cursor=eyJvZmZzZXQiOjEwMH0%3D", page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:      "agg-000123",
		Title:         "Senior Backend Engineer",
		CompanyName:   "Acme Inc.",
		CompanyDomain: "acme.com",
		Location:      "Berlin, Germany",
		City:          "Berlin",
		Country:       "Germany",
		URL:           "https://jobsnorth.example/jobs/jn-88123",
		PostedAt:      ts("2026-01-05T00:00:00Z"),
		Salary:        &Salary{Min: 70000, Max: 90000, Currency: "EUR", Period: "year"},
		Description:   "<p>Own the payments API.</p>",
	}, m["agg-000123"])

	p := m["124"]
	require.Equal(t, "northwind-health.com", p.CompanyDomain)
	require.Equal(t, "CA", p.Country)
	require.Nil(t, p.Salary)
	require.Equal(t, ts("2026-01-06T10:30:00Z"), p.PostedAt)

	p = m["agg-000125"]
	require.Empty(t, p.CompanyDomain)
	require.True(t, p.PostedAt.IsZero())
	require.Equal(t, &Salary{Min: 11.5, Max: 13, Currency: "GBP", Period: "hour"}, p.Salary)
}

func TestAggregatorPaging(t *testing.T) {
	t.Parallel()
	cases := []struct{ url, body, want string }{
		{aggURL, `{"jobs":[],"next_cursor":"abc"}`, aggURL + "&cursor=abc"},
		{aggURL + "&cursor=abc", `{"jobs":[],"next_cursor":"def"}`, aggURL + "&cursor=def"},
		{"http://127.0.0.1:7070/aggregator/v1/feed?cursor=abc&region=dach", `{"jobs":[],"next_cursor":"def"}`, "http://127.0.0.1:7070/aggregator/v1/feed?cursor=def&region=dach"},
		{aggURL + "&cursor=abc", `{"jobs":[],"next_cursor":"abc"}`, ""}, // no progress: stop rather than loop
		{aggURL, `{"jobs":[],"next_cursor":""}`, ""},
		{aggURL, `{"jobs":[],"next_cursor":null}`, ""},
		{aggURL, `{"jobs":[]}`, ""},
		{"not a url", `{"jobs":[],"next_cursor":"abc"}`, ""},
	}
	for _, c := range cases {
		page := mustParse(t, "aggregator", []byte(c.body), c.url)
		require.Equal(t, c.want, page.NextURL, "%s %s", c.url, c.body)
	}
}

func TestAggregatorBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", `{"next_cursor":"x"}`, `{"jobs":5}`, `[{"id":"1","title":"x"}]`, `{"jobs":[{"id":"1","title":"x"}],"next_cursor":`} {
		parseErr(t, "aggregator", []byte(body))
	}
}
