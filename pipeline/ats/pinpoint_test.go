package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const pinpointURL = "https://acme.pinpointhq.com/postings.json"

func TestPinpointParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "pinpoint", fixture(t, "pinpoint_postings.json"), pinpointURL)
	require.Equal(t, 2, page.Malformed, "null id, empty title")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 4)

	require.Equal(t, Posting{
		SourceID:       "547660",
		RequisitionID:  "REQ-0350",
		Title:          "Senior Platform Engineer",
		Location:       "London",
		City:           "London",
		Department:     "Engineering",
		EmploymentType: "full_time", WorkplaceType: "hybrid",
		URL:         "https://acme.pinpointhq.com/en/postings/142f2b86-97ea-478f-9727-69e5049873ce",
		Salary:      &Salary{Min: 80000, Max: 100000, Currency: "GBP", Period: "year"},
		Description: "<div><strong>About the role</strong><br>Own our Kubernetes platform end to end.</div><h3>What you will do</h3><ul><li>Run the on-call rota</li></ul><h3>Benefits</h3><p>25 days holiday</p>",
	}, m["547660"], "no country and no date in the feed")

	p := m["547661"]
	require.True(t, p.Remote)
	require.Equal(t, "Remote", p.Location)
	require.Nil(t, p.Salary, "compensation_visible false: the figures are the internal band")
	require.Empty(t, p.RequisitionID)

	p = m["547662"]
	require.Equal(t, "https://acme.pinpointhq.com/en/postings/0f0e0d0c-0b0a-0908-0706-050403020100", p.URL, "the tenant's host and path when url is null")
	require.Equal(t, "Redondo Beach", p.Location)
	require.Equal(t, &Salary{Min: 110000, Max: 180000, Currency: "USD", Period: "year"}, p.Salary, `"per year", a lower-case currency`)

	p = m["547663"]
	require.Equal(t, "Cali, Colombia", p.Location, "the tenant's label for the place")
	require.Equal(t, &Salary{Min: 12.5, Currency: "USD", Period: "hour"}, p.Salary, "a bound as a string, the other null")
	require.Equal(t, "Operations", p.Department)
}

func TestPinpointShapes(t *testing.T) {
	t.Parallel()
	body := `{"data":[{"id":7,"title":"Lab Scientist","path":"/en/postings/7","location":{"name":"","city":"Oxford","province":"Oxfordshire"},"first_published_at":"2026-10-01T09:00:00Z"}]}`
	page := mustParse(t, "pinpoint", []byte(body), "http://127.0.0.1:7070/pinpoint/beta/postings.json")
	require.Equal(t, []Posting{{SourceID: "7", Title: "Lab Scientist", Location: "Oxford, Oxfordshire", City: "Oxford",
		URL: "https://beta.pinpointhq.com/en/postings/7", PostedAt: ts("2026-10-01T09:00:00Z")}}, page.Postings)
	page = mustParse(t, "pinpoint", []byte(`{"data":[{"id":7,"title":"A","path":"//evil.example/x"}]}`), pinpointURL)
	require.Empty(t, page.Postings[0].URL, "a path that would leave the tenant's host")
	for _, body := range []string{"", `[]`, `{"data":{}}`, `{"error":"not found"}`, `{"data":[{"id":1`} {
		parseErr(t, "pinpoint", []byte(body))
	}
}
