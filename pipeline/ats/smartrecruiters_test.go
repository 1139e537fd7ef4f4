package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const srBase = "http://127.0.0.1:7070/smartrecruiters/v1/companies/AcmeInc/postings"

func TestSmartRecruitersParse(t *testing.T) {
	page := mustParse(t, "smartrecruiters", fixture(t, "smartrecruiters_page1.json"), srBase+"?limit=3&offset=0")
	require.Equal(t, 1, page.Malformed, "missing name")
	require.Equal(t, srBase+"?limit=3&offset=3", page.NextURL, "0+3 < totalFound 5")
	m := bySourceID(t, page)
	require.Len(t, m, 2)

	require.Equal(t, Posting{
		SourceID:      "744000012345678",
		RequisitionID: "REF12345",
		Title:         "Director, Customer Engagement",
		CompanyName:   "Acme Inc",
		Location:      "San Francisco, CA, us",
		City:          "San Francisco",
		Country:       "us", // lower-case alpha-2 as published
		Remote:        true,
		Department:    "Marketing",
		PostedAt:      ts("2026-01-19T19:36:42.346Z"),
	}, m["744000012345678"])

	p := m["744000012345679"] // numeric id, null refNumber, fullLocation, compensation object
	require.Empty(t, p.RequisitionID)
	require.Equal(t, "Hamburg, Hamburg, Germany", p.Location)
	require.Equal(t, "de", p.Country)
	require.Empty(t, p.Department)
	require.Equal(t, &Salary{Min: 2800, Max: 3200, Currency: "EUR", Period: "month"}, p.Salary)
}

func TestSmartRecruitersPaging(t *testing.T) {
	cases := []struct {
		url, body, want string
	}{
		{srBase + "?limit=2&offset=3", `{"offset":3,"limit":2,"totalFound":5,"content":[{"id":"1","name":"A"},{"id":"2","name":"B"}]}`, ""},
		{srBase + "?limit=2&offset=1", `{"offset":1,"limit":2,"totalFound":5,"content":[{"id":"1","name":"A"},{"id":"2","name":"B"}]}`, srBase + "?limit=2&offset=3"},
		{srBase, `{"offset":0,"limit":100,"totalFound":250,"content":[{"id":"1","name":"A"}]}`, srBase + "?offset=1&limit=100"},
		{srBase + "?limit=100&offset=0", `{"offset":0,"limit":100,"totalFound":10,"content":[]}`, ""},
		{srBase + "?limit=100&offset=0", `{"content":[{"id":"1","name":"A"}]}`, ""},
		{srBase + "?limit=100&offset=0", `{"offset":"0","limit":"100","totalFound":"2","content":[{"id":"1","name":"A"}]}`, srBase + "?limit=100&offset=1"},
		{srBase + "?limit=100&offset=7", `{"limit":100,"totalFound":9,"content":[{"id":"1","name":"A"}]}`, srBase + "?limit=100&offset=8"},
	}
	for _, c := range cases {
		page := mustParse(t, "smartrecruiters", []byte(c.body), c.url)
		require.Equal(t, c.want, page.NextURL, c.body)
	}
}

func TestSmartRecruitersBadBodies(t *testing.T) {
	for _, body := range []string{"", `{"message":"Company not found","code":"NOT_FOUND"}`, `{"content":{}}`, `[]`, `{"offset":0,"content":[{"id":"1"`} {
		parseErr(t, "smartrecruiters", []byte(body))
	}
}
