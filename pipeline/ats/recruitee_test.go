package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const recruiteeURL = "http://127.0.0.1:7070/recruitee/acme/api/offers/"

func TestRecruiteeParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "recruitee", fixture(t, "recruitee_offers.json"), recruiteeURL)
	require.Equal(t, 2, page.Malformed, "missing id, empty title; draft/closed offers are skipped, not counted")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:       "1234567",
		Title:          "Backend Engineer",
		CompanyName:    "Acme B.V.",
		Location:       "Amsterdam, Netherlands",
		City:           "Amsterdam",
		Country:        "Netherlands",
		Department:     "Engineering",
		EmploymentType: "full_time", WorkplaceType: "hybrid", // fulltime_permanent; hybrid true
		URL:         "https://acme.recruitee.com/o/backend-engineer",
		PostedAt:    ts("2026-08-19T09:02:14Z"), // "2006-01-02 15:04:05 UTC"
		Salary:      &Salary{Min: 50000, Max: 65000, Currency: "EUR", Period: "year"},
		Description: "<p>Build it.</p><h3>Requirements</h3><ul><li>Elixir or Go</li></ul>",
	}, m["1234567"])

	p := m["1234568"]
	require.Nil(t, p.Salary, "four nulls = no salary")
	require.Equal(t, "NL", p.Country, "country_code when country is blank")
	require.Equal(t, "https://acme.recruitee.com/o/office-manager", p.URL, "url when careers_url is null")
	require.Equal(t, ts("2026-08-20T10:00:00Z"), p.PostedAt, "created_at when published_at is null")
	require.True(t, p.Remote)
	require.Equal(t, "Utrecht, NL", p.Location)

	p = m["1234571"]
	require.Equal(t, &Salary{Min: 15, Currency: "EUR", Period: "hour"}, p.Salary, "blank max")
}

func TestRecruiteeBlankSalaryVariants(t *testing.T) {
	t.Parallel()
	for _, sal := range []string{`null`, `{}`, `{"min":null,"max":null,"period":null,"currency":null}`, `{"min":"","max":"","period":"","currency":""}`, `{"min":" ","max":null,"period":"year","currency":"EUR"}`, `"n/a"`} {
		body := `{"offers":[{"id":1,"title":"T","status":"published","salary":` + sal + `}]}`
		page := mustParse(t, "recruitee", []byte(body), recruiteeURL)
		require.Len(t, page.Postings, 1, sal)
		require.Nil(t, page.Postings[0].Salary, sal)
	}
}

func TestRecruiteeBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", `{"error":"not found"}`, `{"offers":"x"}`, `{"offers":[{"id":1,"title":"T"}`} {
		parseErr(t, "recruitee", []byte(body))
	}
}
