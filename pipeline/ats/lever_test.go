package ats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const leverURL = "http://127.0.0.1:7070/lever/v0/postings/acme?mode=json&skip=0&limit=100"

func TestLeverParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "lever", fixture(t, "lever_postings.json"), leverURL)
	require.Equal(t, 3, page.Malformed, "empty text, missing id, non-object")
	require.Empty(t, page.NextURL, "6 records < limit 100: last page")
	m := bySourceID(t, page)
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:       "5ac2b1e0-6f0e-4c1d-9a52-2f1f3c7d9e01",
		Title:          "Senior Backend Engineer",
		Location:       "Berlin",
		Country:        "DE",
		Department:     "Engineering",
		EmploymentType: "full_time", WorkplaceType: "hybrid", // commitment Full-time, workplaceType hybrid
		URL:         "https://jobs.lever.co/acme/5ac2b1e0-6f0e-4c1d-9a52-2f1f3c7d9e01",
		PostedAt:    ts("2026-01-05T10:00:00Z"), // createdAt in epoch milliseconds
		Salary:      &Salary{Min: 70000, Max: 90000, Currency: "EUR", Period: "year"},
		Description: "<div>We build things.</div><h3>What you&#39;ll do</h3><ul><li>Build</li></ul><h3>Requirements</h3><ul><li>5+ years of Go</li><li>Kubernetes</li></ul><div>We sponsor visas.</div>",
	}, m["5ac2b1e0-6f0e-4c1d-9a52-2f1f3c7d9e01"])

	p := m["7d8e9f00-1111-2222-3333-444455556666"]
	require.True(t, p.Remote, "workplaceType remote")
	require.Empty(t, p.Country, "country null")
	require.Equal(t, "Remote - Americas", p.Location, "falls back to allLocations")
	require.Equal(t, "Support", p.Department, "falls back to team")
	require.Equal(t, &Salary{Min: 28, Max: 34, Currency: "USD", Period: "hour"}, p.Salary)

	p = m["aaaa0000-bbbb-cccc-dddd-eeeeffff0000"]
	require.False(t, p.Remote)
	require.Equal(t, &Salary{Min: 3000, Max: 4000, Currency: "GBP", Period: "month"}, p.Salary, "semi-monthly amounts doubled")
}

func leverBody(n int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"id-%d","text":"Job %d","categories":{"location":"Berlin"},"createdAt":1767607200000}`, i, i)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

func TestLeverPaging(t *testing.T) {
	t.Parallel()
	base := "http://127.0.0.1:7070/lever/v0/postings/acme"
	cases := []struct {
		url  string
		n    int
		want string
	}{
		{base + "?mode=json&skip=0&limit=100", 100, base + "?mode=json&skip=100&limit=100"},
		{base + "?mode=json&skip=200&limit=100", 100, base + "?mode=json&skip=300&limit=100"},
		{base + "?mode=json&skip=200&limit=100", 99, ""},
		{base + "?mode=json&skip=0&limit=100", 0, ""},
		{base + "?mode=json&limit=5", 5, base + "?mode=json&limit=5&skip=5"},
		{base + "?mode=json", 100, base + "?mode=json&skip=100&limit=100"},
		{base + "?mode=json", 150, ""}, // limit ignored by the server: everything came at once
		{base + "?mode=json&skip=0&limit=0", 100, base + "?mode=json&skip=100&limit=0"},
		{"/relative?skip=0&limit=2", 2, ""},
	}
	for _, c := range cases {
		page := mustParse(t, "lever", leverBody(c.n), c.url)
		require.Len(t, page.Postings, c.n)
		require.Equal(t, c.want, page.NextURL, "%s with %d", c.url, c.n)
	}
	// Malformed records still count towards the page length.
	body := `[{"id":"a","text":"A"},{"id":"b"}]`
	page := mustParse(t, "lever", []byte(body), base+"?mode=json&skip=0&limit=2")
	require.Equal(t, base+"?mode=json&skip=2&limit=2", page.NextURL)
	require.Equal(t, 1, page.Malformed)
}

func TestLeverBadBodies(t *testing.T) {
	t.Parallel()
	full := fixture(t, "lever_postings.json")
	for _, body := range []string{"", "null", `{"ok":false,"error":"Document not found"}`, "[{\"id\":", string(full[:len(full)-3]), "<html></html>"} {
		parseErr(t, "lever", []byte(body))
	}
}
