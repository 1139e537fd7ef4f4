package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const workableURL = "http://127.0.0.1:7070/workable/api/v1/widget/accounts/acme"

func TestWorkableParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "workable", fixture(t, "workable_account.json"), workableURL)
	require.Equal(t, 2, page.Malformed, "missing shortcode, null title")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page) // also asserts the per-location entries stay distinct
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:       "9F1A2B3C4D/Germany/Berlin",
		RequisitionID:  "OPS-17",
		Title:          "Operations Manager",
		CompanyName:    "Acme Logistics",
		Location:       "Berlin, Germany",
		City:           "Berlin",
		Country:        "Germany",
		Department:     "Operations",
		EmploymentType: "full_time", // "Full-time"; experience "Mid-Senior level" spans two: no Seniority
		URL:            "https://apply.workable.com/j/9F1A2B3C4D",
		PostedAt:       ts("2026-01-12T00:00:00Z"), // date-only published_on
		Description:    "<p>Run our Berlin hub.</p><h3>Requirements</h3><ul><li>5 years in logistics</li></ul><h3>Benefits</h3><ul><li>30 days off</li></ul>",
	}, m["9F1A2B3C4D/Germany/Berlin"])

	p := m["9F1A2B3C4D/Netherlands/Rotterdam"]
	require.Equal(t, "Operations Manager", p.Title)
	require.Equal(t, "Rotterdam, South Holland, Netherlands", p.Location)
	require.Equal(t, "Netherlands", p.Country)

	p = m["AB12CD34EF/Portugal/"]
	require.True(t, p.Remote, "telecommuting")
	require.Equal(t, "Portugal", p.Country, "taken from the single locations entry")
	require.Empty(t, p.RequisitionID)
	require.Nil(t, p.Salary)
}

func TestWorkableSourceIDStable(t *testing.T) {
	t.Parallel()
	one := `{"name":"A","jobs":[{"title":"T","shortcode":"S1","country":"Germany","city":"Berlin"}]}`
	two := `{"name":"A","jobs":[{"title":"T","shortcode":"S1","country":"France","city":"Paris"},{"title":"T","shortcode":"S1","country":"Germany","city":"Berlin"}]}`
	p1 := mustParse(t, "workable", []byte(one), workableURL)
	p2 := mustParse(t, "workable", []byte(two), workableURL)
	require.Equal(t, p1.Postings[0].SourceID, p2.Postings[1].SourceID, "adding a location keeps the existing entry's id")
	noLoc := mustParse(t, "workable", []byte(`{"jobs":[{"title":"T","shortcode":"S2"}]}`), workableURL)
	require.Equal(t, "S2", noLoc.Postings[0].SourceID)
}

func TestWorkableBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", `{"name":"Acme"}`, `{"name":"Acme","jobs":"none"}`, `[{"title":"x"}]`, `{"jobs":[`} {
		parseErr(t, "workable", []byte(body))
	}
}
