package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const jazzURL = "https://acmelogistics.applytojob.com/apply"

func TestJazzHRParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "jazzhr", fixture(t, "jazzhr_apply.html"), jazzURL)
	require.Equal(t, 1, page.Malformed, "a job link without a title")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:   "evgnhR5LkV",
		Title:      "Electrical Engineer & PCB",
		Location:   "Austin, TX",
		City:       "Austin",
		Department: "Hardware", // the item's own department over the heading above it
		URL:        "https://acmelogistics.applytojob.com/apply/evgnhR5LkV/Electrical-Engineer-PCB",
	}, m["evgnhR5LkV"])
	p := m["XyZ123abcD"]
	require.True(t, p.Remote)
	require.Equal(t, "Engineering", p.Department, "the heading above it")
	p = m["RHnK3IiNee"]
	require.Equal(t, "Operations", p.Department)
	require.Equal(t, "Portland, OR", p.Location, "the map-marker entry, not the schedule")
}

func TestJazzHRListWithoutIcons(t *testing.T) {
	t.Parallel()
	body := `<html><body><ul class="list-group"><li class="list-group-item"><h4 class="list-group-item-heading"><a href="/apply/AbCdEf1234/Nurse">Nurse</a></h4><ul class="list-inline"><li>Cleveland, OH</li><li>Full Time</li></ul></li></ul><a href="/apply/jobs">All jobs</a></body></html>`
	page := mustParse(t, "jazzhr", []byte(body), jazzURL)
	require.Len(t, page.Postings, 1)
	require.Equal(t, "Cleveland, OH", page.Postings[0].Location)
	require.Equal(t, "https://acmelogistics.applytojob.com/apply/AbCdEf1234/Nurse", page.Postings[0].URL)
}

func TestJazzHRBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", "{}"} {
		parseErr(t, "jazzhr", []byte(body))
	}
	b := fixture(t, "jazzhr_apply.html")
	parseErr(t, "jazzhr", b[:len(b)*3/5])
}
