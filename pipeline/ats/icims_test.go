package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const icimsURL = "https://careers-acme.icims.com/jobs/search?ss=1&in_iframe=1"

func TestICIMSParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "icims", fixture(t, "icims_search_page1.html"), icimsURL)
	require.Equal(t, 1, page.Malformed, "a card without a title")
	require.Equal(t, icimsURL+"&pr=1", page.NextURL, "Page 1 of 2")
	m := bySourceID(t, page)
	require.Len(t, m, 4)

	require.Equal(t, Posting{
		SourceID:      "15550",
		RequisitionID: "2026-15550",
		Title:         "Head of Financial Crime Prevention",
		Location:      "US-NY-New York",
		City:          "New York",
		Country:       "US",
		Department:    "Compliance",
		URL:           "https://careers-acme.icims.com/jobs/15550/head-of-financial-crime-prevention/job",
		PostedAt:      ts("2026-10-04T10:33:00Z"), // the value's title, not its "2 days ago"
		Description:   "Lead model analytics, calibration, and sanctions screening governance.",
	}, m["15550"])
	further := m["15550#1"]
	require.Equal(t, "DE-BE-Berlin", further.Location, "a further place is a posting of its own")
	require.Equal(t, "DE", further.Country)
	require.Equal(t, "Berlin", further.City)
	require.Equal(t, "2026-15550", further.RequisitionID)

	p := m["15479"]
	require.Equal(t, "AML Advisory Team Lead & Broker-Dealer", p.Title)
	require.Equal(t, "Winston-Salem", p.City, "a hyphen in the city stays")
	require.Equal(t, "2026-15479", p.RequisitionID, "the ID in the card's header")
	require.Equal(t, ts("2026-09-28T00:00:00Z"), p.PostedAt)

	p = m["15503"]
	require.True(t, p.Remote)
	require.Empty(t, p.City)
	require.Equal(t, "US", p.Country)
	require.Equal(t, "Information Technology", p.Department)

	last := mustParse(t, "icims", fixture(t, "icims_search_page2.html"), page.NextURL)
	require.Empty(t, last.NextURL, "Page 2 of 2")
	require.Equal(t, "Payroll Specialist", last.Postings[0].Title)
	require.Equal(t, "GB", last.Postings[0].Country)
}

func TestICIMSPagesOnlyWhereThePageSaysItIs(t *testing.T) {
	t.Parallel()
	card := `<li class="iCIMS_JobCardItem"><div class="row"><div class="col-xs-12 title"><a href="https://careers-acme.icims.com/jobs/1/a/job"><h3>A</h3></a></div></div></li>`
	page := func(heading string) []byte {
		return []byte(`<html><body><h2 class="iCIMS_SubHeader_Jobs">` + heading + `</h2><ul class="iCIMS_JobsTable">` + card + `</ul></body></html>`)
	}
	require.Equal(t, icimsURL+"&pr=2", mustParse(t, "icims", page("Search Results Page 2 of 5"), icimsURL+"&pr=1").NextURL)
	require.Empty(t, mustParse(t, "icims", page("Search Results Page 1 of 5"), icimsURL+"&pr=1").NextURL, "a portal ignoring pr= would page for ever")
	require.Empty(t, mustParse(t, "icims", page("Search Results"), icimsURL).NextURL)
	empty := mustParse(t, "icims", []byte(`<html><body><div class="iCIMS_JobsTable">Sorry, no jobs. Page 1 of 3</div></body></html>`), icimsURL)
	require.Empty(t, empty.Postings)
	require.Empty(t, empty.NextURL, "a page past the last answers without cards")
}

func TestICIMSBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", "not html", `<html><title>Human Verification</title><body>checking your browser</body></html>`} {
		parseErr(t, "icims", []byte(body))
	}
	b := fixture(t, "icims_search_page1.html")
	parseErr(t, "icims", b[:len(b)*3/5])
}
