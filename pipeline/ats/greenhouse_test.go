package ats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const ghURL = "http://127.0.0.1:7070/greenhouse/v1/boards/acme/jobs?content=true"

func TestGreenhouseParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "greenhouse", fixture(t, "greenhouse_jobs.json"), ghURL)
	require.Equal(t, 4, page.Malformed, "missing title, numeric title, non-object, null id")
	require.Empty(t, page.NextURL, "greenhouse has no paging")
	m := bySourceID(t, page)
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:      "4012345678",
		RequisitionID: "REQ-101",
		Title:         "Senior Backend Engineer",
		CompanyName:   "Acme",
		Location:      "Berlin, Germany",
		Department:    "Engineering",
		URL:           "https://boards.greenhouse.io/acme/jobs/4012345678",
		PostedAt:      ts("2026-01-02T14:00:00Z"), // first_published wins over updated_at
		Salary:        &Salary{Min: 90000, Max: 120000, Currency: "EUR", Period: "year"},
		Description:   `<div class="content-intro"><p>We build things.</p></div><h3>What you&#39;ll do</h3><ul><li>Design APIs &amp; services&nbsp;</li></ul>`,
	}, m["4012345678"])

	p := m["4012345679"] // id sent as a string, requisition_id as a number
	require.Equal(t, "50", p.RequisitionID)
	require.Equal(t, "  Account Executive, Mid-Market ", p.Title, "title kept exactly as published")
	require.Equal(t, "Remote - US", p.Location)
	require.Empty(t, p.Country, "greenhouse has no country field")
	require.Equal(t, ts("2026-01-15T08:00:00Z"), p.PostedAt)
	require.Nil(t, p.Salary)

	p = m["4012345682"] // odd field types do not sink the record
	require.Equal(t, "Data Analyst", p.Title)
	require.Empty(t, p.Location)
	require.Empty(t, p.Department)
	require.True(t, p.PostedAt.IsZero(), "unparsable timestamp → zero time")
	require.Nil(t, p.Salary, "blank pay range")
}

// The real shapes, from Greenhouse's documented Job Board API: location.name is
// free text; with content=true offices[].location carries the full place and its country.
func TestGreenhouseRealShapes(t *testing.T) {
	t.Parallel()
	f := func(job string, want ...[3]string) { // SourceID, Location, remote
		t.Helper()
		page := mustParse(t, "greenhouse", []byte(`{"jobs":[`+job+`]}`), ghURL)
		var got [][3]string
		for _, p := range page.Postings {
			require.Empty(t, p.Country, "greenhouse has no country field")
			require.Equal(t, "https://boards.greenhouse.io/acme/jobs/1", p.URL)
			got = append(got, [3]string{p.SourceID, p.Location, fmt.Sprint(p.Remote)})
		}
		require.Equal(t, want, got, job)
	}
	const head = `"id":1,"title":"Engineer","absolute_url":"https://boards.greenhouse.io/acme/jobs/1"`
	f(`{`+head+`,"location":{"name":"London"},"offices":[{"id":7,"name":"London","location":"London, England, United Kingdom"}]}`,
		[3]string{"1", "London, England, United Kingdom", "false"})
	f(`{`+head+`,"location":{"name":"Remote - United States"},"offices":[]}`,
		[3]string{"1", "Remote - United States", "true"})
	f(`{`+head+`,"location":{"name":"San Francisco, CA"}}`, [3]string{"1", "San Francisco, CA", "false"}) // no content=true
	f(`{`+head+`,"location":{"name":"London or Berlin (remote friendly)"},"offices":[
	    {"name":"London","location":"London, England, United Kingdom"},{"name":"HQ","location":null},
	    {"name":"Berlin","location":"Berlin, Berlin, Germany"}]}`,
		[3]string{"1", "London, England, United Kingdom", "true"}, [3]string{"1#1", "Berlin, Berlin, Germany", "true"}) // an office without a location is no place
}

func TestGreenhouseLargeIDsStayExact(t *testing.T) {
	t.Parallel()
	body := `{"jobs":[{"id":9007199254740993,"title":"A","requisition_id":12345678901234567890},{"id":"18446744073709551615","title":"B"}]}`
	page := mustParse(t, "greenhouse", []byte(body), ghURL)
	require.Len(t, page.Postings, 2)
	require.Equal(t, "9007199254740993", page.Postings[0].SourceID)
	require.Equal(t, "12345678901234567890", page.Postings[0].RequisitionID)
	require.Equal(t, "18446744073709551615", page.Postings[1].SourceID)
}

func TestGreenhouseBadBodies(t *testing.T) {
	t.Parallel()
	full := fixture(t, "greenhouse_jobs.json")
	for _, body := range []string{"", "   ", "not json", "<html>502 Bad Gateway</html>", "[]", `{"jobs": 5}`,
		`{"status":404,"error":"Job not found"}`, `{"jobs": null}`, string(full[:len(full)/2]), `{"jobs":[]} trailing`} {
		parseErr(t, "greenhouse", []byte(body))
	}
	page := mustParse(t, "greenhouse", []byte("\xef\xbb\xbf{\"jobs\":[],\"meta\":{\"total\":0}}"), ghURL)
	require.Empty(t, page.Postings)
	require.Zero(t, page.Malformed)
}

// greenhouseBenchBody builds a realistic ?content=true board: n jobs with HTML-escaped
// descriptions of about 2.5 KB, departments, offices, metadata and pay ranges on a third.
func greenhouseBenchBody(n int) []byte {
	desc := strings.Repeat("&lt;p&gt;You will design, build and operate services used by millions. &lt;/p&gt;", 32)
	var b strings.Builder
	b.WriteString(`{"jobs":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		pay := ""
		if i%3 == 0 {
			pay = `,"pay_input_ranges":[{"min_cents":12000000,"max_cents":15000000,"currency_type":"USD","title":"US","blurb":"Base"}]`
		}
		fmt.Fprintf(&b, `{"absolute_url":"https://boards.greenhouse.io/acme/jobs/%d","data_compliance":[{"type":"gdpr","requires_consent":false,"requires_processing_consent":false,"requires_retention_consent":false,"retention_period":null}],"internal_job_id":%d,"location":{"name":"San Francisco, CA"},"metadata":[{"id":4035,"name":"Employment Type","value":"Full-time","value_type":"single_select"}],"id":%d,"updated_at":"2026-01-14T10:55:28-05:00","requisition_id":"REQ-%d","title":"Senior Software Engineer %d","company_name":"Acme","first_published":"2026-01-02T09:00:00-05:00","language":"en","content":"%s","departments":[{"id":13583,"name":"Engineering","parent_id":null,"child_ids":[]}],"offices":[{"id":8304,"name":"San Francisco","location":"San Francisco, CA","parent_id":null,"child_ids":[]}]%s}`,
			4000000000+i, 3000000000+i, 4000000000+i, i, i, desc, pay)
	}
	fmt.Fprintf(&b, `],"meta":{"total":%d}}`, n)
	return []byte(b.String())
}

func BenchmarkParseGreenhouse(b *testing.B) {
	const n = 500
	body := greenhouseBenchBody(n)
	a, _ := For("greenhouse")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		page, err := a.Parse(body, ghURL)
		if err != nil || len(page.Postings) != n {
			b.Fatalf("parse: %v, %d postings", err, len(page.Postings))
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "postings/s")
}
