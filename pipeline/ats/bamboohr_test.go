package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const bambooURL = "https://acme.bamboohr.com/careers/list"

func TestBambooHRParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "bamboohr", fixture(t, "bamboohr_list.json"), bambooURL)
	require.Equal(t, 2, page.Malformed, "empty id, blank name")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 4)

	require.Equal(t, Posting{
		SourceID:       "232",
		Title:          "Electrical Technologist",
		Location:       "Toronto, Ontario",
		City:           "Toronto",
		Department:     "Engineering",
		EmploymentType: "full_time", WorkplaceType: "onsite", // employmentStatusLabel Full-Time, locationType 0
		URL: "https://acme.bamboohr.com/careers/232", // built from the tenant
	}, m["232"], "an office has no country; the list has no date or pay")

	p := m["241"]
	require.True(t, p.Remote, `locationType "1"`)
	require.Equal(t, "Denver, Colorado, United States", p.Location, "the typed-in place when the office is empty")
	require.Equal(t, "Denver", p.City)
	require.Equal(t, "United States", p.Country)

	p = m["245"]
	require.True(t, p.Remote, "isRemote true")
	require.Equal(t, "Remote", p.Location)
	require.Empty(t, p.Department)

	p = m["317"]
	require.Equal(t, "Szczecin, PL", p.Location, "a state as the board spells it")
	require.False(t, p.Remote, `locationType "2" (hybrid)`)
}

// The shapes real boards send: the detail's fields when a record carries them, and the tenant
// from the list's host or, on the simulator, its path.
func TestBambooHRRealShapes(t *testing.T) {
	t.Parallel()
	f := func(pageURL, record string, want Posting) {
		t.Helper()
		page := mustParse(t, "bamboohr", []byte(`{"meta":{"totalCount":1},"result":[`+record+`]}`), pageURL)
		require.Equal(t, []Posting{want}, page.Postings, record)
	}
	f("http://127.0.0.1:7070/bamboohr/north-wind/careers/list", `{"id":"12","jobOpeningName":"Analyst"}`,
		Posting{SourceID: "12", Title: "Analyst", URL: "https://north-wind.bamboohr.com/careers/12"})
	f(bambooURL, `{"id":12,"jobOpeningName":"Analyst","jobOpeningShareUrl":"https://acme.bamboohr.com/careers/12","datePosted":"2026-09-28",
		"location":{"city":"Cambridge","state":"Cambridgeshire","addressCountry":"United Kingdom"},"atsLocation":{"country":null,"state":null,"city":null}}`,
		Posting{SourceID: "12", Title: "Analyst", Location: "Cambridge, Cambridgeshire, United Kingdom", City: "Cambridge", Country: "United Kingdom",
			URL: "https://acme.bamboohr.com/careers/12", PostedAt: ts("2026-09-28T00:00:00Z")})
	f("", `{"id":"13","jobOpeningName":"Analyst","location":"Berlin","isRemote":"false"}`,
		Posting{SourceID: "13", Title: "Analyst"}) // no tenant, no link; a location of another shape is no place
}

func TestBambooHRBadBodies(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "bamboohr", []byte(`[{"id":"5","jobOpeningName":"Analyst","atsLocation":{"city":"Atlanta","state":"Georgia","country":"United States"}}]`), bambooURL)
	require.Equal(t, []Posting{{SourceID: "5", Title: "Analyst", Location: "Atlanta, Georgia, United States", City: "Atlanta",
		Country: "United States", URL: "https://acme.bamboohr.com/careers/5"}}, page.Postings, "the list without its envelope")
	for _, body := range []string{"", `{"meta":{"totalCount":0}}`, `{"result":"x"}`, `{"result":[{"id":"1"`, `<html></html>`} {
		parseErr(t, "bamboohr", []byte(body))
	}
	page = mustParse(t, "bamboohr", []byte(`{"meta":{"totalCount":0},"result":[]}`), bambooURL)
	require.Empty(t, page.Postings)
}
