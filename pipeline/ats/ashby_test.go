package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const ashbyURL = "http://127.0.0.1:7070/ashby/posting-api/job-board/acme?includeCompensation=true"

func TestAshbyParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "ashby", fixture(t, "ashby_jobs.json"), ashbyURL)
	require.Equal(t, 2, page.Malformed, "missing title, non-object; the unlisted job is skipped, not counted")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 4, "the secondary location of the first job is its own posting")
	require.NotContains(t, m, "1a2b3c4d-0000-0000-0000-000000000004", "isListed=false is skipped")

	require.Equal(t, Posting{
		SourceID:       "0f3c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
		Title:          "Product Manager",
		Location:       "Houston, TX",
		City:           "Houston",
		Country:        "USA", // alpha-3 as published
		Department:     "Product",
		EmploymentType: "full_time", WorkplaceType: "onsite", // FullTime, OnSite
		URL:         "https://jobs.ashbyhq.com/acme/0f3c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
		PostedAt:    ts("2021-04-30T16:21:55.393Z"),
		Salary:      &Salary{Min: 81000, Max: 87000, Currency: "USD", Period: "year"}, // equity and bonus components ignored
		Description: "<p>Join our team</p>",
	}, m["0f3c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b"])

	p := m["0f3c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b#1"]
	require.Equal(t, "San Francisco", p.Location)
	require.Equal(t, "San Francisco", p.City)
	require.Equal(t, "USA", p.Country)

	p = m["1a2b3c4d-0000-0000-0000-000000000002"]
	require.True(t, p.Remote, "workplaceType Remote")
	require.Equal(t, "Germany", p.Country, "country as a name")
	require.Equal(t, &Salary{Min: 5000, Max: 6500, Currency: "EUR", Period: "month"}, p.Salary, "from summaryComponents")

	p = m["1a2b3c4d-0000-0000-0000-000000000003"]
	require.Empty(t, p.Country, "address null")
	require.Equal(t, &Salary{Min: 21.5, Max: 0, Currency: "CAD", Period: "hour"}, p.Salary, "only one bound published")
	require.Equal(t, ts("2026-01-06T03:00:00Z"), p.PostedAt)
}

// The real shapes, from Ashby's documented posting API: secondaryLocations with
// their own countries, and the country in address.postalAddress.addressCountry.
func TestAshbyRealShapes(t *testing.T) {
	t.Parallel()
	body := `{"apiVersion":"1","jobs":[{"id":"j1","title":"Account Executive","location":"Berlin","isListed":true,
	  "address":{"postalAddress":{"addressLocality":"Berlin","addressCountry":"Germany"}},
	  "secondaryLocations":[
	    {"location":"London","address":{"postalAddress":{"addressLocality":"London","addressRegion":"England","addressCountry":"GBR"}}},
	    {"location":"Berlin","address":{"postalAddress":{"addressLocality":"Berlin","addressCountry":"Germany"}}},
	    {"location":"","address":{"postalAddress":{"addressLocality":"Paris","addressCountry":{"@type":"Country","name":"France"}}}},
	    {"location":"Remote","address":null}],
	  "jobUrl":"https://jobs.ashbyhq.com/northwind/j1"}]}`
	page := mustParse(t, "ashby", []byte(body), ashbyURL)
	type pl struct{ id, loc, city, country string }
	var got []pl
	for _, p := range page.Postings {
		require.Equal(t, "https://jobs.ashbyhq.com/northwind/j1", p.URL, "every place links the posting")
		got = append(got, pl{p.SourceID, p.Location, p.City, p.Country})
	}
	require.Equal(t, []pl{
		{"j1", "Berlin", "Berlin", "Germany"},
		{"j1#1", "London", "London", "GBR"},
		// j1#2 repeats the first place exactly: skipped
		{"j1#3", "Paris, France", "Paris", "France"},
		{"j1#4", "Remote", "", ""},
	}, got)
}

func TestAshbyBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", `{"apiVersion":"1"}`, `[]`, `{"apiVersion":"1","jobs":{}}`, `{"apiVersion":"1","jobs":[{"id":"x","title":"y"}`} {
		parseErr(t, "ashby", []byte(body))
	}
}
