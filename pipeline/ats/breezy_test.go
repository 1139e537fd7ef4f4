package ats

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const breezyURL = "https://acme.breezy.hr/json"

func TestBreezyParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "breezy", fixture(t, "breezy_positions.json"), breezyURL)
	require.Equal(t, 1, page.Malformed, "a position without a name")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 7)

	require.Equal(t, Posting{
		SourceID:       "9fdd4744af8f",
		Title:          "Backend Engineer",
		CompanyName:    "Acme Inc",
		Location:       "Columbus, OH", // Breezy's own rendering of the place
		City:           "Columbus",
		Country:        "United States",
		Department:     "Engineering",
		EmploymentType: "full_time", // type fullTime
		URL:            "https://acme.breezy.hr/p/9fdd4744af8f-backend-engineer",
		PostedAt:       ts("2026-06-04T15:01:39.320Z"),
		Salary:         &Salary{Min: 170000, Max: 300000, Currency: "USD", Period: "year"},
	}, m["9fdd4744af8f"])
	p := m["9fdd4744af8f#1"]
	require.Equal(t, "Toronto, ON", p.Location, "the second of locations is a place of its own")
	require.Equal(t, "Canada", p.Country)

	p = m["9aa01a0d81cd"]
	require.True(t, p.Remote)
	require.Equal(t, "United States", p.Location)
	require.Empty(t, p.City)
	require.Empty(t, p.Department, "department null")
	require.Equal(t, &Salary{Min: 22, Max: 28, Currency: "USD", Period: "hour"}, p.Salary)

	p = m["4512f54c796a"]
	require.Equal(t, "Sales", p.Department, "a department object")
	require.Equal(t, "Germany", p.Country)
	require.Equal(t, &Salary{Min: 50000, Max: 60000, Currency: "EUR", Period: "year"}, p.Salary, "dots grouping thousands")

	require.Equal(t, &Salary{Min: 90, Max: 110, Currency: "CHF", Period: "hour"}, m["60cec77079df"].Salary, "a currency code")

	p = m["12b3ed96c30c"]
	require.Nil(t, p.Salary, `"Competitive" has no figures`)
	require.Equal(t, "https://acme.breezy.hr/p/12b3ed96c30c-data-engineer-intern", p.URL, "built from friendly_id when url is empty")

	require.Equal(t, &Salary{Min: 150, Max: 225000, Currency: "USD", Period: "year"}, m["d447666d8ce4"].Salary,
		"published as is; the pipeline's plausibility check refuses it")
}

func TestBreezySalaryText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]*Salary{
		"$170,000 – $300,000 / year":   {Min: 170000, Max: 300000, Currency: "USD", Period: "year"},
		"£3,000 - £3,500 / month":      {Min: 3000, Max: 3500, Currency: "GBP", Period: "month"},
		"CA$60,000 – CA$70,000 / year": {Min: 60000, Max: 70000, Currency: "CAD", Period: "year"},
		"$40 – $60 / day":              {Min: 40, Max: 60, Currency: "USD", Period: "day"},
		"€800 / week":                  {Min: 800, Currency: "EUR", Period: "week"},
		"$80k – $95k / year":           {Min: 80000, Max: 95000, Currency: "USD", Period: "year"},
		"SEK 45 000 – 55 000 / month":  {Min: 45000, Max: 55000, Currency: "SEK", Period: "month"},
		"CHF 120\u202f000 / year":      {Min: 120000, Currency: "CHF", Period: "year"},
		"50.000,50 € / year":           {Min: 50000.5, Currency: "EUR", Period: "year"},
		"12,50 kr / hour":              {Min: 12.5, Period: "hour"}, // "kr" is several currencies
	} {
		require.Equal(t, want, breezySalary(in), in)
	}
	for _, in := range []string{"", "Competitive", "$50,000", "DOE / year", "/ year", "$50,000 / project", "$0 / year"} {
		require.Nil(t, breezySalary(in), in)
	}
}

func TestBreezyShapes(t *testing.T) {
	t.Parallel()
	wrapped := `{"company":{"name":"Acme"},"positions":[{"_id":"abc123","friendly_id":"abc123-analyst","name":"Analyst","location":{"city":"Denver","state":{"id":"CO"},"country":{"id":"US"}}}]}`
	page := mustParse(t, "breezy", []byte(wrapped), "http://127.0.0.1:7070/breezy/acme-labs/json")
	require.Equal(t, []Posting{{SourceID: "abc123", Title: "Analyst", Location: "Denver, CO, US", City: "Denver", Country: "US",
		URL: "https://acme-labs.breezy.hr/p/abc123-analyst"}}, page.Postings, "the older wrapped shape; codes when names are absent")
	for _, body := range []string{"", `{"positions":"x"}`, `{"company":{}}`, `[{"id":"a","name":"A"}`, `<html></html>`} {
		parseErr(t, "breezy", []byte(body))
	}
}

func TestBreezySalaryTooLarge(t *testing.T) {
	t.Parallel()
	huge := "$1" + strings.Repeat("0", 307) + "k / year"
	require.Nil(t, breezySalary(huge), "an amount past float64 is no amount")
}
