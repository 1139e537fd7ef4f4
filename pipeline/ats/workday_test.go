package ats

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const workdayURL = "https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/External/jobs"

func TestWorkdayParse(t *testing.T) {
	t.Parallel()
	served := ts("2026-10-09T14:05:00Z")
	page, err := workday{}.ParseServed(fixture(t, "workday_jobs.json"), workdayURL, served)
	require.NoError(t, err)
	checkPage(t, page)
	require.Equal(t, 1, page.Malformed, "the stub without title or path")
	require.Empty(t, page.NextURL, "5 of a total of 5")
	m := bySourceID(t, page)
	require.Len(t, m, 4)

	require.Equal(t, Posting{
		SourceID:      "/job/US-CA-Santa-Clara/Senior-Software-Engineer_JR1998765",
		RequisitionID: "JR1998765",
		Title:         "Senior Software Engineer",
		Location:      "US, CA, Santa Clara",
		URL:           "https://acme.wd5.myworkdayjobs.com/External/job/US-CA-Santa-Clara/Senior-Software-Engineer_JR1998765",
		PostedAt:      ts("2026-10-09T00:00:00Z"), // "Posted Today": the day it was served
	}, m["/job/US-CA-Santa-Clara/Senior-Software-Engineer_JR1998765"])

	p := m["/job/TORONTO-Ontario-Canada/XMLNAME-Technology-Analyst-Intern--8-Months-_R-0000187520-1"]
	require.Equal(t, "R-0000187520", p.RequisitionID, "a repost's path ends in -1, its bulletField does not")
	require.Equal(t, ts("2026-10-04T00:00:00Z"), p.PostedAt, "Posted 5 Days Ago")

	p = m["/job/US-TX-Austin/Data-Center-Technician_JR2001234"]
	require.Empty(t, p.Location, "a count of places is no place")
	require.Equal(t, "JR2001234", p.RequisitionID, "the bulletField the path ends with, not the first")
	require.True(t, p.PostedAt.IsZero(), "30+ days is a bound, not a day")

	p = m["/job/Remote---United-States/Account-Executive_JR2000555"]
	require.True(t, p.Remote)
	require.Equal(t, ts("2026-10-08T00:00:00Z"), p.PostedAt, "Posted Yesterday")

	// Parse knows no serving time: no relative date is read.
	page = mustParse(t, "workday", fixture(t, "workday_jobs.json"), workdayURL)
	for _, p := range page.Postings {
		require.True(t, p.PostedAt.IsZero(), p.SourceID)
	}
}

func TestWorkdayRequestsAPOSTWithThePagesOffset(t *testing.T) {
	t.Parallel()
	a, _ := For("workday")
	r, ok := a.(Requester)
	require.True(t, ok, "the fetcher POSTs Workday's list")
	method, body, ctype := r.Request(workdayURL)
	require.Equal(t, "POST", method)
	require.Equal(t, "application/json", ctype)
	require.JSONEq(t, `{"appliedFacets":{},"limit":20,"offset":0,"searchText":""}`, string(body))
	_, body, _ = r.Request(workdayURL + "#offset=40&total=57")
	require.JSONEq(t, `{"appliedFacets":{},"limit":20,"offset":40,"searchText":""}`, string(body))
}

// workdayPage is a list page of n postings numbered from first, with the given total.
func workdayPage(first, n, total int) []byte {
	type posting struct {
		Title        string   `json:"title"`
		ExternalPath string   `json:"externalPath"`
		PostedOn     string   `json:"postedOn"`
		BulletFields []string `json:"bulletFields"`
	}
	ps := []posting{}
	for i := first; i < first+n; i++ {
		id := "JR" + strconv.Itoa(1000+i)
		ps = append(ps, posting{Title: "Engineer " + strconv.Itoa(i), ExternalPath: "/job/Berlin/Engineer_" + id, PostedOn: "Posted Today", BulletFields: []string{id}})
	}
	b, _ := json.Marshal(map[string]any{"total": total, "jobPostings": ps})
	return b
}

func TestWorkdayPagesByOffsetAndCarriesTheFirstPagesTotal(t *testing.T) {
	t.Parallel()
	p0 := mustParse(t, "workday", workdayPage(0, 20, 45), workdayURL)
	require.Equal(t, workdayURL+"#offset=20&total=45", p0.NextURL)
	// Later pages say total 0: the total rides in the URL.
	p1 := mustParse(t, "workday", workdayPage(20, 20, 0), p0.NextURL)
	require.Equal(t, workdayURL+"#offset=40&total=45", p1.NextURL)
	p2 := mustParse(t, "workday", workdayPage(40, 5, 0), p1.NextURL)
	require.Empty(t, p2.NextURL)
	require.Equal(t, "https://acme.wd5.myworkdayjobs.com/External/job/Berlin/Engineer_JR1040", p2.Postings[0].URL)

	// With no total known, a full page asks for the next one and a short one ends.
	require.Equal(t, workdayURL+"#offset=20", mustParse(t, "workday", workdayPage(0, 20, 0), workdayURL).NextURL)
	require.Empty(t, mustParse(t, "workday", workdayPage(0, 7, 0), workdayURL).NextURL)
	require.Empty(t, mustParse(t, "workday", []byte(`{"total":0,"jobPostings":[]}`), workdayURL).NextURL)
	require.Empty(t, mustParse(t, "workday", workdayPage(0, 20, 20), workdayURL).NextURL)
}

func TestWorkdayLinksOnTheSimulatorsPaths(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "workday", workdayPage(0, 1, 1), "http://127.0.0.1:7070/workday/wd103/wday/cxs/acme/Careers_Site/jobs")
	require.Equal(t, "https://acme.wd103.myworkdayjobs.com/Careers_Site/job/Berlin/Engineer_JR1000", page.Postings[0].URL)
	page = mustParse(t, "workday", workdayPage(0, 1, 1), "http://127.0.0.1:7070/elsewhere/jobs")
	require.Empty(t, page.Postings[0].URL, "no site in the URL, no link")
}

func TestWorkdayPostedOnWording(t *testing.T) {
	t.Parallel()
	served := time.Date(2026, 3, 2, 23, 59, 0, 0, time.FixedZone("", -5*3600)) // 2026-03-03 04:59 UTC
	for in, want := range map[string]string{
		"Posted Today":         "2026-03-03T00:00:00Z",
		"posted today":         "2026-03-03T00:00:00Z",
		"Posted Yesterday":     "2026-03-02T00:00:00Z",
		"Posted 1 Day Ago":     "2026-03-02T00:00:00Z",
		"Posted 3 Days Ago":    "2026-02-28T00:00:00Z",
		" Posted  29 Days Ago": "2026-02-02T00:00:00Z",
	} {
		require.Equal(t, ts(want), workdayPostedAt(in, served), in)
	}
	for _, in := range []string{"", "Posted 30+ Days Ago", "Publié aujourd'hui", "Posted Recently", "Today"} {
		require.True(t, workdayPostedAt(in, served).IsZero(), in)
	}
	require.True(t, workdayPostedAt("Posted Today", time.Time{}).IsZero())
}

func TestWorkdayBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", `{"errorCode":"S21","message":"not found"}`, `{"jobPostings":"x"}`, `{"total":3,"jobPostings":[{"title":"A"`, `[]`} {
		parseErr(t, "workday", []byte(body))
	}
	page := mustParse(t, "workday", []byte(`{"total":2,"jobPostings":[{"title":"A","externalPath":"https://evil.example/x"},{"title":"B","externalPath":"/job/../../x"}]}`), workdayURL)
	require.Equal(t, 2, page.Malformed, "a path that is not a /job/ path of the site")
	require.False(t, strings.Contains(page.NextURL, "evil"))
}
