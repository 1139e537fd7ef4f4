package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const srBase = "http://127.0.0.1:7070/smartrecruiters/v1/companies/AcmeInc/postings"

func TestSmartRecruitersParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "smartrecruiters", fixture(t, "smartrecruiters_page1.json"), srBase+"?limit=3&offset=0")
	require.Equal(t, 1, page.Malformed, "missing name")
	require.Equal(t, srBase+"?limit=3&offset=3", page.NextURL, "0+3 < totalFound 5")
	m := bySourceID(t, page)
	require.Len(t, m, 2)

	require.Equal(t, Posting{
		SourceID:       "744000012345678",
		RequisitionID:  "REF12345",
		Title:          "Director, Customer Engagement",
		CompanyName:    "Acme Inc",
		Location:       "San Francisco, CA, us",
		City:           "San Francisco",
		Country:        "us", // lower-case alpha-2 as published
		Remote:         true,
		Department:     "Marketing",
		EmploymentType: "full_time", WorkplaceType: "remote", Seniority: "director", // typeOfEmployment label Full-time, location.remote, experienceLevel director
		URL:      "https://jobs.smartrecruiters.com/AcmeInc/744000012345678", // the public posting page
		PostedAt: ts("2026-01-19T19:36:42.346Z"),
	}, m["744000012345678"])

	p := m["744000012345679"] // numeric id, null refNumber, fullLocation, compensation object
	require.Empty(t, p.RequisitionID)
	require.Equal(t, "Hamburg, Hamburg, Germany", p.Location)
	require.Equal(t, "de", p.Country)
	require.Empty(t, p.Department)
	require.Equal(t, &Salary{Min: 2800, Max: 3200, Currency: "EUR", Period: "month"}, p.Salary)
}

// The real shapes, from the Posting API's documented fields: no posting URL in the
// list (the public page is jobs.smartrecruiters.com/{company.identifier}/{id}), the remote
// location shape and an empty department object.
func TestSmartRecruitersRealShapes(t *testing.T) {
	t.Parallel()
	f := func(item, pageURL string, want Posting) {
		t.Helper()
		body := `{"offset":0,"limit":100,"totalFound":1,"content":[` + item + `]}`
		page := mustParse(t, "smartrecruiters", []byte(body), pageURL)
		require.Len(t, page.Postings, 1, item)
		got := page.Postings[0]
		got.PostedAt = want.PostedAt
		require.Equal(t, want, got, item)
	}
	f(`{"id":"744000099","name":"Backend Engineer","company":{"identifier":"Northwind1","name":"Northwind"},
	    "location":{"city":"Poland","region":"REMOTE","remote":true},"department":{}}`, srBase,
		Posting{SourceID: "744000099", Title: "Backend Engineer", CompanyName: "Northwind", Location: "Remote - Poland",
			Remote: true, WorkplaceType: "remote", URL: "https://jobs.smartrecruiters.com/Northwind1/744000099"})
	f(`{"id":"7","name":"Analyst","company":{"name":"Northwind"},"location":{"city":"","region":"remote","country":"de","remote":false}}`, srBase,
		Posting{SourceID: "7", Title: "Analyst", CompanyName: "Northwind", Location: "Remote, de", Country: "de",
			Remote: true, WorkplaceType: "remote", URL: "https://jobs.smartrecruiters.com/AcmeInc/7"}) // identifier from the page URL
	f(`{"id":"8","name":"Analyst","location":{"city":"Lyon","region":"Auvergne","country":"fr"},"postingUrl":"https://careers.example/8"}`, "",
		Posting{SourceID: "8", Title: "Analyst", Location: "Lyon, Auvergne, fr", City: "Lyon", Country: "fr", URL: "https://careers.example/8"})
	f(`{"id":"9","name":"Analyst","location":{"city":"Lyon"}}`, "",
		Posting{SourceID: "9", Title: "Analyst", Location: "Lyon", City: "Lyon"}) // nothing to build a link from
}

func TestSmartRecruitersPaging(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	for _, body := range []string{"", `{"message":"Company not found","code":"NOT_FOUND"}`, `{"content":{}}`, `[]`, `{"offset":0,"content":[{"id":"1"`} {
		parseErr(t, "smartrecruiters", []byte(body))
	}
}

func TestSmartRecruitersTidiesEmptyRegionSlots(t *testing.T) {
	t.Parallel()
	f := func(in, want string) {
		t.Helper()
		require.Equal(t, want, tidyPlace(in))
	}
	f("Atlanta, , United States", "Atlanta, United States")
	f("Hamburg, Hamburg, Germany", "Hamburg, Hamburg, Germany") // as published when the region is named
	f("Remote", "Remote")
	f(", ,", "")
}
