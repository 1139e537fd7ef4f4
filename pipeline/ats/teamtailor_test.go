package ats

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

const teamtailorURL = "https://acme.teamtailor.com/jobs.rss?per_page=200&offset=0"

func TestTeamtailorParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "teamtailor", fixture(t, "teamtailor_jobs.rss"), teamtailorURL)
	require.Equal(t, 2, page.Malformed, "blank title; neither a numbered link nor a guid")
	require.Empty(t, page.NextURL, "six items on a page of 200 is the last page")
	m := bySourceID(t, page)
	require.Len(t, m, 5)

	require.Equal(t, Posting{
		SourceID:      "7308188", // the number in the link, not the guid
		Title:         "Backend Engineer",
		CompanyName:   "Acme AB", // the channel's title
		Location:      "Stockholm, Sweden",
		City:          "Stockholm",
		Country:       "Sweden",
		Department:    "Engineering",
		WorkplaceType: "hybrid", // remoteStatus hybrid
		URL:           "https://acme.teamtailor.com/jobs/7308188-backend-engineer",
		PostedAt:      ts("2026-02-27T18:59:48Z"),
		Description:   "<p>Build <strong>APIs</strong> &amp; services.</p>",
	}, m["7308188"], "hybrid is not remote")

	p := m["8191515"]
	require.True(t, p.Remote, `remoteStatus "fully"`)
	require.Equal(t, "Sales & Partnerships", p.Department)
	require.Equal(t, "Sweden", p.Country)
	q := m["8191515#1"]
	require.Equal(t, "London, United Kingdom", q.Location, "the second location is a place of its own")
	require.Equal(t, "United Kingdom", q.Country)
	require.Equal(t, p.URL, q.URL)

	p = m["8384421"]
	require.Equal(t, "https://acme.teamtailor.com/fr-CA/jobs/8384421-designer-ux", p.URL, "a locale segment before /jobs/")
	require.Equal(t, "Remote", p.Location, "a location with a name only")
	require.Empty(t, p.Country)
	require.Equal(t, "Design", p.Department, "the division when there is no department")
	require.False(t, p.Remote)

	p = m["b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"]
	require.Equal(t, "Office Coordinator", p.Title, "the guid when the link carries no job number")
	require.True(t, p.PostedAt.IsZero())
	require.False(t, p.Remote, `"temporary" remote is not a remote job`)
	require.Empty(t, p.Location)
}

func TestTeamtailorPaging(t *testing.T) {
	t.Parallel()
	item := `<item><title>A</title><link>https://acme.teamtailor.com/jobs/%d-a</link></item>`
	body := func(n int) []byte {
		b := []byte(`<?xml version="1.0"?><rss version="2.0" xmlns:tt="https://teamtailor.com/locations"><channel><title>Acme</title>`)
		for i := 0; i < n; i++ {
			b = append(b, []byte(fmt.Sprintf(item, i+1))...)
		}
		return append(b, "</channel></rss>"...)
	}
	f := func(pageURL string, n int, want string) {
		t.Helper()
		page := mustParse(t, "teamtailor", body(n), pageURL)
		require.Len(t, page.Postings, n)
		require.Equal(t, want, page.NextURL, "%s with %d items", pageURL, n)
	}
	f("https://acme.teamtailor.com/jobs.rss?per_page=3&offset=0", 3, "https://acme.teamtailor.com/jobs.rss?per_page=3&offset=3")
	f("https://acme.teamtailor.com/jobs.rss?per_page=3&offset=3", 3, "https://acme.teamtailor.com/jobs.rss?per_page=3&offset=6")
	f("https://acme.teamtailor.com/jobs.rss?per_page=3&offset=6", 2, "")
	f("https://acme.teamtailor.com/jobs.rss?per_page=3&offset=6", 0, "")
	f("https://acme.teamtailor.com/jobs.rss", 100, "https://acme.teamtailor.com/jobs.rss?offset=100&per_page=100")
	f("http://127.0.0.1:7070/teamtailor/acme/jobs.rss?per_page=2&offset=0", 2, "http://127.0.0.1:7070/teamtailor/acme/jobs.rss?per_page=2&offset=2")
}

func TestTeamtailorBadBodies(t *testing.T) {
	t.Parallel()
	full := fixture(t, "teamtailor_jobs.rss")
	for _, body := range []string{"", "  ", "not xml", `{"data":[]}`, string(full[:len(full)/2]),
		`<html><body><h1>Log in</h1></body></html>`, // a 200 that is not a feed is not an empty board
		`<rss><channel><item><title>A</title></item></channel>`, `<rss></rss><rss></rss>`} {
		parseErr(t, "teamtailor", []byte(body))
	}
	page := mustParse(t, "teamtailor", []byte(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Acme</title></channel></rss>`), teamtailorURL)
	require.Empty(t, page.Postings)
	require.Zero(t, page.Malformed)
}
