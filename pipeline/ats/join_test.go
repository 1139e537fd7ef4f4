package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const joinURL = "https://join.com/api/public/companies/310/jobs?page=1&pageSize=5"

func TestJoinParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "join", fixture(t, "join_jobs_page1.json"), joinURL)
	require.Equal(t, 2, page.Malformed, "empty title, null id")
	require.Equal(t, "https://join.com/api/public/companies/310/jobs?page=2&pageSize=5", page.NextURL, "page 1 of 2")
	m := bySourceID(t, page)
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:       "9134723",
		Title:          "Backend Engineer (m/w/d)",
		Location:       "Berlin, Germany",
		City:           "Berlin",
		Country:        "Germany",
		Department:     "Software Development",
		EmploymentType: "full_time", // "Employee": JOIN's permanent contract
		WorkplaceType:  "onsite",
		URL:            "https://join.com/jobs/9134723",
		PostedAt:       ts("2026-01-05T09:12:44.907Z"),
		Salary:         &Salary{Min: 60000, Max: 75000, Currency: "EUR", Period: "year"}, // minor units
	}, m["9134723"])

	p := m["9134724"]
	require.True(t, p.Remote)
	require.Equal(t, "Austria", p.Location)
	require.Empty(t, p.City)
	require.Nil(t, p.Salary)

	require.Equal(t, &Salary{Min: 28, Max: 32, Currency: "CHF", Period: "hour"}, m["9134725"].Salary)

	page = mustParse(t, "join", fixture(t, "join_jobs_page2.json"), page.NextURL)
	require.Empty(t, page.NextURL, "page 2 of 2")
	require.Len(t, page.Postings, 2)
	require.Equal(t, &Salary{Min: 3500, Max: 4000, Currency: "EUR", Period: "month"}, page.Postings[0].Salary)
	require.Nil(t, page.Postings[1].Salary)
}

func TestJoinPaging(t *testing.T) {
	t.Parallel()
	items := func(n int) string {
		s := ""
		for i := 0; i < n; i++ {
			if i > 0 {
				s += ","
			}
			s += `{"id":` + string(rune('1'+i)) + `,"title":"T"}`
		}
		return s
	}
	f := func(pageURL, pagination string, n int, want string) {
		t.Helper()
		page := mustParse(t, "join", []byte(`{"items":[`+items(n)+`]`+pagination+`}`), pageURL)
		require.Equal(t, want, page.NextURL, "%s %s", pageURL, pagination)
	}
	f(joinURL, `,"pagination":{"pageCount":1}`, 3, "")
	f(joinURL, `,"pagination":{"pageCount":3}`, 5, "https://join.com/api/public/companies/310/jobs?page=2&pageSize=5")
	f("https://join.com/api/public/companies/310/jobs?page=3&pageSize=5", `,"pagination":{"pageCount":3}`, 5, "")
	f(joinURL, ``, 5, "https://join.com/api/public/companies/310/jobs?page=2&pageSize=5") // no pageCount: a full page
	f(joinURL, ``, 4, "")
	f(joinURL, `,"pagination":{"pageCount":3}`, 0, "")
	f("https://join.com/api/public/companies/310/jobs", `,"pagination":{"pageCount":2}`, 5, "https://join.com/api/public/companies/310/jobs?page=2")
}

func TestJoinBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", `[{"param":"pageSize","msg":"Invalid value"}]`, `{"items":"x"}`, `{"pagination":{}}`, `{"items":[{"id":1`} {
		parseErr(t, "join", []byte(body))
	}
}
