package ats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const ldURL = "http://127.0.0.1:7070/boards/jobsnorth/jobs?page=1"

func TestJSONLDParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "jsonld", fixture(t, "jsonld_page1.html"), ldURL)
	require.Equal(t, 2, page.Malformed, "one invalid JSON block, one JobPosting without title")
	require.Equal(t, "http://127.0.0.1:7070/boards/jobsnorth/jobs?page=2&sort=new", page.NextURL,
		"relative href resolved, &amp; decoded, uppercase tag and single quotes accepted")
	m := bySourceID(t, page)
	require.Len(t, m, 7, "the second jobLocation of jn-88124 is its own posting")
	require.NotContains(t, m, "x", "commented-out block ignored")
	require.Equal(t, "Leeds", m["jn-88124#1"].City)
	require.Equal(t, "GB", m["jn-88124#1"].Country)

	require.Equal(t, Posting{
		SourceID:       "jn-88123",
		Title:          "Senior Backend Engineer",
		CompanyName:    "Acme Inc.",
		CompanyDomain:  "acme.com",
		Location:       "Berlin, BE, DE",
		City:           "Berlin",
		Country:        "DE",
		EmploymentType: "full_time", // FULL_TIME
		URL:            "https://jobsnorth.example/jobs/jn-88123",
		PostedAt:       ts("2026-01-05T00:00:00Z"),
		Salary:         &Salary{Min: 70000, Max: 90000, Currency: "EUR", Period: "year"},
		Description:    "<p>We build things.</p>",
	}, m["jn-88123"])

	p := m["jn-88124"] // array block, @type array, string hiringOrganization, jobLocation array, Country object
	require.Equal(t, "Registered Nurse", p.Title)
	require.Equal(t, "Northwind Health", p.CompanyName)
	require.Empty(t, p.CompanyDomain)
	require.Equal(t, "Manchester", p.City, "first jobLocation")
	require.Equal(t, "United Kingdom", p.Country)
	require.Equal(t, &Salary{Min: 38000, Max: 38000, Currency: "GBP", Period: "year"}, p.Salary, "value as a plain number, unitText on MonetaryAmount")
	require.Equal(t, ts("2026-01-06T08:30:00Z"), p.PostedAt)

	p = m["88125"] // numeric identifier, TELECOMMUTE, sameAs array with a social profile first
	require.True(t, p.Remote)
	require.Equal(t, "USA", p.Country, "from applicantLocationRequirements")
	require.Equal(t, "helpful.co", p.CompanyDomain)
	require.Equal(t, &Salary{Min: 24.5, Max: 24.5, Currency: "USD", Period: "hour"}, p.Salary)

	p = m["https://jobsnorth.example/jobs/jn-88126"] // in @graph, full-IRI @type, @id as the id, entities in text
	require.Equal(t, "R&D Engineer", p.Title)
	require.Equal(t, "Fab & Co", p.CompanyName)
	require.Equal(t, "fab.example", p.CompanyDomain, "Organization url when there is no sameAs")
	require.Equal(t, "Eindhoven, Netherlands", p.Location, "address as a plain string")

	p = m["jn-88129"] // the whole block HTML-escaped, unquoted type attribute
	require.Equal(t, "Warehouse Lead", p.Title)
	require.Equal(t, "Lyon", p.City)
	require.Equal(t, "FR", p.Country)

	p = m["jn-88130"] // raw newline inside a JSON string
	require.Equal(t, "Line Cook", p.Title)
	require.True(t, p.PostedAt.IsZero(), "2026/01/09 is not a supported style")
}

func TestJSONLDLastPageAndRealHost(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "jsonld", fixture(t, "jsonld_last.html"), "https://jobsnorth.example/boards/jobsnorth/jobs?page=3")
	require.Empty(t, page.NextURL)
	require.Len(t, page.Postings, 1)
	require.Equal(t, "jn-90001", page.Postings[0].SourceID)
	require.Equal(t, "sparks.example", page.Postings[0].CompanyDomain)
	require.Equal(t, "IE", page.Postings[0].Country)

	page = mustParse(t, "jsonld", fixture(t, "jsonld_page1.html"), "https://jobsnorth.example/boards/jobsnorth/jobs?page=1")
	require.Equal(t, "https://jobsnorth.example/boards/jobsnorth/jobs?page=2&sort=new", page.NextURL)
}

func TestJSONLDShapes(t *testing.T) {
	t.Parallel()
	wrap := func(blocks ...string) []byte {
		var b strings.Builder
		b.WriteString("<html><head>")
		for _, blk := range blocks {
			fmt.Fprintf(&b, "<script type=\"application/ld+json\">%s</script>\n", blk)
		}
		b.WriteString("</head><body></body></html>")
		return []byte(b.String())
	}
	cases := []struct {
		name      string
		page      []byte
		postings  int
		malformed int
		next      string
	}{
		{"no blocks is an empty page", []byte("<html><body><p>No jobs right now.</p></body></html>"), 0, 0, ""},
		{"fragment without <html>", []byte(`<div><script type="application/ld+json">{"@type":"JobPosting","title":"A","url":"https://x.example/a"}</script></div>`), 1, 0, ""},
		{"graph object (not array)", wrap(`{"@graph":{"@type":"JobPosting","title":"A","identifier":"a"}}`), 1, 0, ""},
		{"nested arrays", wrap(`[[{"@type":"JobPosting","title":"A","identifier":"a"}],{"@type":"JobPosting","title":"B","identifier":"b"}]`), 2, 0, ""},
		{"scalar in array is malformed", wrap(`[{"@type":"JobPosting","title":"A","identifier":"a"}, "junk", 7]`), 1, 2, ""},
		// a posting with no identifier, @id or url takes the page's identity (it is not malformed)
		{"no id at all takes the page's identity", wrap(`{"@type":"JobPosting","title":"A"}`, `{"@type":"JobPosting","title":"B","identifier":"b"}`), 2, 0, ""},
		{"title not a string falls back to name", wrap(`{"@type":"JobPosting","title":5,"name":"Named","identifier":"a"}`), 1, 0, ""},
		{"title not a string is malformed", wrap(`{"@type":"JobPosting","title":{"x":1},"identifier":"a"}`, `{"@type":"JobPosting","title":"B","identifier":"b"}`), 1, 1, ""},
		{"other types ignored", wrap(`{"@type":"Organization","name":"X"}`, `{"@type":["BreadcrumbList"]}`), 0, 0, ""},
		{"comment and CDATA wrappers", wrap(`<!-- {"@type":"JobPosting","title":"A","identifier":"a"} -->`, `//<![CDATA[
{"@type":"JobPosting","title":"B","identifier":"b"}
//]]>`), 2, 0, ""},
		{"next link absolute", []byte(`<html><head><link href="https://other.example/p2" rel="next"></head></html>`), 0, 0, "https://other.example/p2"},
		{"next link pointing at itself is ignored", []byte(`<html><head><link rel="next" href="?page=1"></head></html>`), 0, 0, ""},
		{"next link with javascript scheme ignored", []byte(`<html><head><link rel="next" href="javascript:void(0)"></head></html>`), 0, 0, ""},
		{"prev link ignored", []byte(`<html><head><link rel="prev" href="?page=0"><link rel=next href=/boards/jobsnorth/jobs?page=2></head></html>`), 0, 0, "http://127.0.0.1:7070/boards/jobsnorth/jobs?page=2"},
		{"quantitative value in array", wrap(`{"@type":"JobPosting","title":"A","identifier":"a","baseSalary":[{"currency":"EUR","value":{"minValue":"3.000","maxValue":"4000","unitText":"MONTH"}}]}`), 1, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := mustParse(t, "jsonld", c.page, ldURL)
			require.Len(t, page.Postings, c.postings)
			require.Equal(t, c.malformed, page.Malformed)
			require.Equal(t, c.next, page.NextURL)
		})
	}
}

// The real shapes, from schema.org's JobPosting and Google's job posting
// guidance: job pages whose JobPosting has no identifier, @id or url (the page is the
// posting: its canonical link, else the page URL), hiringOrganization.sameAs pointing at the
// board's own company page, and jobLocation arrays of several countries.
func TestJSONLDJobPages(t *testing.T) {
	t.Parallel()
	page := func(head, posting string) []byte {
		return []byte(`<!DOCTYPE html><html><head>` + head + `</head><body><script type="application/ld+json">` + posting + `</script></body></html>`)
	}
	const jobURL = "https://uk.jobboard.example/viewjob?jk=abc123"
	posting := `{"@context":"https://schema.org/","@type":"JobPosting","title":"Office Manager","datePosted":"2026-01-05",
	  "hiringOrganization":{"@type":"Organization","name":"Northwind Ltd","sameAs":"https://www.jobboard.example/cmp/northwind"},
	  "jobLocation":[{"@type":"Place","address":{"@type":"PostalAddress","addressLocality":"London","addressCountry":"GB"}},
	                 {"@type":"Place","address":{"@type":"PostalAddress","addressLocality":"Dublin","addressCountry":"IE"}}]}`
	f := func(head, pageURL, wantID string) {
		t.Helper()
		got := mustParse(t, "jsonld", page(head, posting), pageURL)
		require.Zero(t, got.Malformed)
		require.Len(t, got.Postings, 2)
		p, q := got.Postings[0], got.Postings[1]
		require.Equal(t, wantID, p.SourceID)
		require.Equal(t, wantID, p.URL, "the page is the link")
		require.Equal(t, "Northwind Ltd", p.CompanyName)
		require.Empty(t, p.CompanyDomain, "the board's own company page is not the employer's website")
		require.Equal(t, [3]string{"London", "London, GB", "GB"}, [3]string{p.City, p.Location, p.Country})
		require.Equal(t, wantID+"#1", q.SourceID, "a further place is its own posting")
		require.Equal(t, wantID, q.URL)
		require.Equal(t, [3]string{"Dublin", "Dublin, IE", "IE"}, [3]string{q.City, q.Location, q.Country})
	}
	f(`<link rel="canonical" href="`+jobURL+`">`, jobURL+"&from=serp", jobURL)
	f(`<link rel="canonical" href="/viewjob?jk=abc123">`, "https://uk.jobboard.example/rc/clk?jk=abc123", jobURL) // relative canonical
	f(``, jobURL, jobURL)                                                                                         // no canonical: the page URL
	f(``, "https://jobboard.example/viewjob?jk=abc123", "https://jobboard.example/viewjob?jk=abc123")

	// A well-known board's host never becomes the employer's domain, wherever the page lives.
	got := mustParse(t, "jsonld", page("", `{"@type":"JobPosting","title":"A","identifier":"a",
	  "hiringOrganization":{"name":"Acme","sameAs":["https://de.indeed.com/cmp/Acme","https://acme.example"]}}`), ldURL)
	require.Equal(t, "acme.example", got.Postings[0].CompanyDomain)
	got = mustParse(t, "jsonld", page("", `{"@type":"JobPosting","title":"A","identifier":"a","hiringOrganization":{"name":"Acme","sameAs":"https://www.indeed.com/cmp/Acme"}}`), ldURL)
	require.Empty(t, got.Postings[0].CompanyDomain)
	require.Equal(t, ldURL, got.Postings[0].URL, "no url: the page links the posting")

	// Two postings without identity on one page stay distinct.
	got = mustParse(t, "jsonld", page(`<link rel=canonical href="`+jobURL+`">`, `[{"@type":"JobPosting","title":"A"},{"@type":"JobPosting","title":"B"}]`), ldURL)
	require.Equal(t, []string{jobURL, jobURL + "#job2"}, []string{got.Postings[0].SourceID, got.Postings[1].SourceID})
}

func TestJSONLDSalaryShapes(t *testing.T) {
	t.Parallel()
	cases := map[string]*Salary{
		`{"currency":"EUR","value":{"@type":"QuantitativeValue","minValue":70000,"maxValue":90000,"unitText":"YEAR"}}`: {Min: 70000, Max: 90000, Currency: "EUR", Period: "year"},
		`{"currency":"USD","value":{"value":40,"unitText":"HOUR"}}`:                                                    {Min: 40, Max: 40, Currency: "USD", Period: "hour"},
		`{"currency":"USD","value":"4,000","unitText":"MONTH"}`:                                                        {Min: 4000, Max: 4000, Currency: "USD", Period: "month"},
		`{"currency":"USD","minValue":100,"maxValue":200,"unitText":"DAY"}`:                                            {Min: 100, Max: 200, Currency: "USD", Period: "day"},
		`{"currency":"USD","value":{"minValue":900,"unitText":"WEEK"}}`:                                                {Min: 900, Currency: "USD", Period: "week"},
		`{"currency":"USD","value":{"value":50000}}`:                                                                   nil, // no unit: scale unknown
		`{"currency":"USD","value":{"unitText":"YEAR"}}`:                                                               nil,
		`"50000 EUR"`: nil,
		`null`:        nil,
	}
	for raw, want := range cases {
		require.Equal(t, want, ldSalary([]byte(raw)), raw)
	}
}

func TestJSONLDBadBodies(t *testing.T) {
	t.Parallel()
	full := string(fixture(t, "jsonld_page1.html"))
	cut := strings.Index(full, `"Senior Backend Engineer"`)
	for _, body := range []string{
		"", "   \n", "just some text, no markup", `{"@type":"JobPosting","title":"A"}`,
		full[:cut],                        // truncated inside a script block
		full[:strings.Index(full, "<ul")], // truncated between blocks: <html> never closed
		`<html><body><script type="application/ld+json">{oops</script></body></html>`, // every block invalid
		`<html><body><div class="x`,
		`<html><body><!-- never closed`,
	} {
		parseErr(t, "jsonld", []byte(body))
	}
}

// jsonldBenchBody builds a board page with n postings, one ld+json block each, in the shape
// of a real listing page (head, navigation, per-job markup, description in the block).
func jsonldBenchBody(n int) []byte {
	desc := strings.Repeat("<p>You will design, build and operate services used by millions.</p>", 16)
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Jobs</title>` +
		`<link rel="stylesheet" href="/static/app.css"><link rel="next" href="/boards/jobsnorth/jobs?page=2">` +
		`<script src="/static/app.js" defer></script></head><body><nav><a href="/">Home</a></nav><ul class="jobs">`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<li class="job"><a href="/jobs/jn-%d">Senior Software Engineer %d</a><span>Berlin, Germany</span>`+
			`<script type="application/ld+json">{"@context":"https://schema.org/","@type":"JobPosting","title":"Senior Software Engineer %d",`+
			`"description":%q,"identifier":{"@type":"PropertyValue","name":"Jobs North","value":"jn-%d"},"url":"https://jobsnorth.example/jobs/jn-%d",`+
			`"datePosted":"2026-01-05","validThrough":"2026-03-05T00:00","employmentType":"FULL_TIME",`+
			`"hiringOrganization":{"@type":"Organization","name":"Acme Inc.","sameAs":"https://www.acme.com","logo":"https://www.acme.com/logo.png"},`+
			`"jobLocation":{"@type":"Place","address":{"@type":"PostalAddress","streetAddress":"Unter den Linden 1","addressLocality":"Berlin","addressRegion":"BE","postalCode":"10117","addressCountry":"DE"}},`+
			`"baseSalary":{"@type":"MonetaryAmount","currency":"EUR","value":{"@type":"QuantitativeValue","minValue":70000,"maxValue":90000,"unitText":"YEAR"}}}</script></li>`,
			i, i, i, desc, i, i)
	}
	b.WriteString(`</ul><footer>© Jobs North</footer></body></html>`)
	return []byte(b.String())
}

func BenchmarkParseJSONLD(b *testing.B) {
	const n = 50
	body := jsonldBenchBody(n)
	a, _ := For("jsonld")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		page, err := a.Parse(body, ldURL)
		if err != nil || len(page.Postings) != n || page.NextURL == "" {
			b.Fatalf("parse: %v, %d postings, next %q", err, len(page.Postings), page.NextURL)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "postings/s")
}
