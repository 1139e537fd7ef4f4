package ats

import (
	"testing"
)

// Each fuzz target feeds arbitrary bodies and page URLs to one adapter and checks that Parse
// never panics and that any page it returns satisfies checkPage (NextURL "" or absolute,
// postings with an id and a title, salaries with a known period and finite amounts).
//
// Seeds are kept to a few hundred bytes: the engine minimizes every input that finds new
// coverage before it fuzzes on, and minimizing costs about the square of the input's length in
// executions, none of them counted. Seeded with the multi-kilobyte fixtures, a target spent its
// whole -fuzztime minimizing its first finds (about 25 execs in 9 s). Each compact seed has every
// field its adapter reads, in the fixture's shapes. checkPage also holds the terms a posting states
// (employment type, workplace type, seniority, years) to normalize's vocabularies.

func fuzzAdapter(f *testing.F, vendor, pageURL string, seeds ...[]byte) {
	a, ok := For(vendor)
	if !ok {
		f.Fatalf("no adapter %q", vendor)
	}
	for _, s := range seeds {
		f.Add(s, pageURL)
		f.Add(s, "")
	}
	f.Add([]byte{}, pageURL)
	f.Fuzz(func(t *testing.T, body []byte, pageURL string) {
		page, err := a.Parse(body, pageURL)
		if err != nil {
			return
		}
		checkPage(t, page)
	})
}

func FuzzParseGreenhouse(f *testing.F) {
	fuzzAdapter(f, "greenhouse", ghURL, fixture(f, "greenhouse_jobs.json"), greenhouseBenchBody(2),
		[]byte(`{"jobs":[{"id":1,"title":"A","pay_input_ranges":[{"min_cents":"100","max_cents":1e400,"currency_type":"usd"}]}]}`))
}

func FuzzParseLever(f *testing.F) {
	fuzzAdapter(f, "lever", "http://127.0.0.1:7070/lever/v0/postings/acme?mode=json&skip=0&limit=2",
		fixture(f, "lever_postings.json"), leverBody(2), []byte(`[{"id":"a","text":"A","salaryRange":{"interval":"2 WEEK","min":"1","max":2}}]`))
}

func FuzzParseAshby(f *testing.F) {
	fuzzAdapter(f, "ashby", ashbyURL, []byte(`{"jobs":[{"id":"a1","title":"PM","location":"Houston, TX","team":"G",`+
		`"secondaryLocations":[{"location":"SF","address":{"postalAddress":{"addressLocality":"SF","addressCountry":"USA"}}}],`+
		`"isListed":true,"isRemote":false,"workplaceType":"OnSite","publishedAt":"2021-04-30T16:21:55.393+00:00",`+
		`"address":{"postalAddress":{"addressLocality":"Houston","addressCountry":"USA"}},"jobUrl":"https://j.example/a1",`+
		`"compensation":{"compensationTiers":[{"components":[{"compensationType":"Salary","interval":"1 YEAR",`+
		`"currencyCode":"USD","minValue":81000,"maxValue":87000}]}]}},{"id":"b","title":"U","isListed":false}]}`))
}

func FuzzParseWorkable(f *testing.F) {
	fuzzAdapter(f, "workable", workableURL, []byte(`{"name":"Acme","jobs":[{"title":"Ops","shortcode":"9F","code":"O-1",`+
		`"telecommuting":false,"remote":false,"workplace":"on_site","department":"Ops","url":"https://apply.workable.com/j/9F",`+
		`"shortlink":"https://apply.workable.com/j/9F","application_url":"https://apply.workable.com/j/9F/apply",`+
		`"published_on":"2026-01-12","created_at":"2026-01-10","country":"Germany","city":"Berlin","state":"Berlin",`+
		`"locations":[{"country":"Germany","countryCode":"DE","city":"Berlin","region":"Berlin"}]}]}`))
}

func FuzzParseSmartRecruiters(f *testing.F) {
	fuzzAdapter(f, "smartrecruiters", srBase+"?limit=3&offset=0", fixture(f, "smartrecruiters_page1.json"),
		[]byte(`{"offset":"9223372036854775807","limit":1,"totalFound":1e300,"content":[{"id":"1","name":"A"}]}`))
}

func FuzzParseRecruitee(f *testing.F) {
	fuzzAdapter(f, "recruitee", recruiteeURL, []byte(`{"offers":[{"id":1234567,"title":"Backend Engineer","status":"published",`+
		`"company_name":"Acme B.V.","department":"Eng","location":"Amsterdam, Netherlands","city":"Amsterdam",`+
		`"country":"Netherlands","country_code":"NL","remote":false,"created_at":"2026-08-18 14:20:01 UTC",`+
		`"published_at":"2026-08-19 09:02:14 UTC","careers_url":"https://acme.recruitee.com/o/be","url":"https://acme.recruitee.com/o/be",`+
		`"salary":{"min":"50000","max":"65,000.00","period":"year","currency":"eur"}},{"id":2,"title":"Draft","status":"draft"}]}`))
}

func FuzzParsePersonio(f *testing.F) {
	fuzzAdapter(f, "personio", personioURL, fixture(f, "personio_positions.xml"),
		[]byte("<?xml version=\"1.0\" encoding=\"latin1\"?><workzag-jobs><position><id>1</id><name>K\xf6</name></position></workzag-jobs>"))
}

func FuzzParseTeamtailor(f *testing.F) {
	fuzzAdapter(f, "teamtailor", "https://acme.teamtailor.com/jobs.rss?per_page=2&offset=0", []byte(`<?xml version="1.0"?>`+
		`<rss version="2.0" xmlns:tt="https://teamtailor.com/locations"><channel><title>Acme AB</title>`+
		`<item><title>Eng</title><pubDate>Fri, 27 Feb 2026 19:59:48 +0100</pubDate><link>https://acme.teamtailor.com/jobs/73-eng</link>`+
		`<remoteStatus>fully</remoteStatus><guid>g1</guid><tt:locations><tt:location><tt:name>HQ</tt:name><tt:city>Oslo</tt:city>`+
		`<tt:country>Norway</tt:country></tt:location><tt:location><tt:name>Remote</tt:name></tt:location></tt:locations>`+
		`<tt:department>Eng &amp; Ops</tt:department><tt:division>P</tt:division></item><item><title>B</title><guid>g2</guid></item></channel></rss>`))
}

func FuzzParseBambooHR(f *testing.F) {
	fuzzAdapter(f, "bamboohr", bambooURL, []byte(`{"meta":{"totalCount":2},"result":[{"id":"232","jobOpeningName":"Tech",`+
		`"departmentLabel":"Eng","location":{"city":"Toronto","state":"Ontario","addressCountry":"Canada"},`+
		`"atsLocation":{"country":"Canada","state":null,"province":"ON","city":null},"isRemote":null,"locationType":"1",`+
		`"jobOpeningShareUrl":"https://acme.bamboohr.com/careers/232","datePosted":"2026-09-28"},{"id":7,"jobOpeningName":"B"}]}`),
		[]byte(`[{"id":"5","jobOpeningName":"A","atsLocation":{"city":"X","country":"US"}}]`))
}

func FuzzParseBreezy(f *testing.F) {
	fuzzAdapter(f, "breezy", breezyURL, []byte(`[{"id":"9fdd","friendly_id":"9fdd-eng","name":"Eng","url":"https://acme.breezy.hr/p/9fdd-eng",`+
		`"published_date":"2026-06-04T15:01:39.320Z","type":{"id":"fullTime","name":"Full-Time"},"location":{"country":{"name":"Germany","id":"DE"},`+
		`"state":{"name":"Berlin","id":"BE"},"city":"Berlin","is_remote":true,"name":"Berlin, DE"},"locations":[{"city":"Oslo","country":{"id":"NO"}}],`+
		`"department":{"name":"Eng"},"salary":"CA$1.250,5 – 2 000k / year","company":{"name":"Acme"}}]`),
		[]byte(`{"positions":[{"_id":"a","friendly_id":"a-b","name":"N","department":"D","salary":"€5 / hour"}]}`))
}

func FuzzParsePinpoint(f *testing.F) {
	fuzzAdapter(f, "pinpoint", pinpointURL, []byte(`{"data":[{"id":"5","title":"Eng","url":null,"path":"/en/postings/u",`+
		`"location":{"name":"","city":"Leeds","province":"West Yorkshire","country":"GB"},"workplace_type":"remote",`+
		`"compensation_visible":true,"compensation_minimum":"80,000","compensation_maximum":1e308,"compensation_currency":"gbp",`+
		`"compensation_frequency":"per year","first_published_at":"2026-10-01","job":{"requisition_id":"R-1","department":{"name":"E"}}}]}`))
}

func FuzzParseJoin(f *testing.F) {
	fuzzAdapter(f, "join", joinURL, []byte(`{"items":[{"id":91,"idParam":"91-eng","title":"Eng","createdAt":"2026-01-05T09:12:44.907Z",`+
		`"publishedAt":null,"workplaceType":"REMOTE","city":{"cityName":"Wien","regionName":"Wien","countryName":"Austria","countryCode":"AT"},`+
		`"country":{"name":"Austria"},"department":"D","category":{"name":"C"},"salaryAmountFrom":{"amount":6000000,"currency":"EUR"},`+
		`"salaryAmountTo":{"amount":"7500000","currency":"EUR"},"salaryFrequency":"PER_YEAR"}],"pagination":{"page":1,"pageCount":"9223372036854775807"}}`))
}

func FuzzParseWorkday(f *testing.F) {
	fuzzAdapter(f, "workday", workdayURL+"#offset=20&total=45", fixture(f, "workday_jobs.json"), []byte(`{"total":45,"jobPostings":[{"title":"Engineer",`+
		`"externalPath":"/job/US-CA-Santa-Clara/Engineer_JR1-1","locationsText":"3 Locations","postedOn":"Posted 3 Days Ago",`+
		`"remoteType":"Fully Remote","bulletFields":["Full time","JR1"]},{"bulletFields":["10151065"]}]}`))
}

func FuzzParseICIMS(f *testing.F) {
	fuzzAdapter(f, "icims", icimsURL+"&pr=1", fixture(f, "icims_search_page2.html"), []byte(`<html><body><h2 class="iCIMS_SubHeader_Jobs">Search Results Page 2 of 3</h2>`+
		`<ul class="iCIMS_JobsTable"><li class="iCIMS_JobCardItem"><div class="row"><div class="col-xs-6 header left">`+
		`<span class="sr-only field-label">Job Locations</span><span>US-NY-New York | DE-Berlin</span></div>`+
		`<div class="col-xs-6 header right"><span class="sr-only field-label">Posted Date</span><span title="10/4/2026 10:33 AM">2 days ago</span></div>`+
		`<div class="col-xs-12 title"><a href="https://careers-acme.icims.com/jobs/15550/x/job?in_iframe=1"><h3>Analyst</h3></a></div>`+
		`<dl class="iCIMS_JobHeaderGroup"><div class="iCIMS_JobHeaderTag"><dt>Requisition ID</dt><dd><span>2026-15550</span></dd></div>`+
		`<div class="iCIMS_JobHeaderTag"><dt>Category</dt><dd><span>Finance</span></dd></div></dl></div></li></ul></body></html>`))
}

func FuzzParseJobvite(f *testing.F) {
	fuzzAdapter(f, "jobvite", jobviteURL+"?p=1", fixture(f, "jobvite_search.html"), []byte(`<html><head><title>Acme Careers</title></head><body><h3>Sales</h3>`+
		`<table class="jv-job-list"><tr><td class="jv-job-list-name"><a href="/acme/job/oD2jAfwi">Backend Engineer</a></td>`+
		`<td class="jv-job-list-location">Berlin, Germany</td></tr><tr><td class="jv-job-list-name"><a href="/careers/acme/job/oB">`+
		`<div class="title">Buyer</div><div class="jv-job-list-location">2 Locations</div></a></td></tr></table>`+
		`<div class="jv-pagination-text">51-100 of 120</div></body></html>`))
}

func FuzzParseJazzHR(f *testing.F) {
	fuzzAdapter(f, "jazzhr", jazzURL, fixture(f, "jazzhr_apply.html"), []byte(`<html><body><ul class="list-group"><li class="list-group-item">`+
		`<div class="department-heading"><h3>Ops</h3></div></li><li class="list-group-item"><h3 class="list-group-item-heading">`+
		`<a href="https://acme.applytojob.com/apply/evgnhR5LkV/Engineer">Engineer</a></h3><ul class="list-inline list-group-item-text">`+
		`<li><i class="fa fa-map-marker"></i>Austin, TX</li><li><i class="fa fa-sitemap"></i>Hardware</li></ul></li></ul></body></html>`))
}

func FuzzParseRippling(f *testing.F) {
	fuzzAdapter(f, "rippling", ripplingURL, fixture(f, "rippling_jobs.json"), []byte(`{"items":[{"id":"a","name":"PM","url":"https://ats.rippling.com/acme/jobs/a",`+
		`"department":{"name":"Ops"},"locations":[{"name":"New York, NY","city":"New York","country":"United States",`+
		`"countryCode":"US","workplaceType":"REMOTE"}]},{"id":"a","name":"PM","locations":[{"name":"SF","city":"SF"}]},`+
		`{"id":"b","name":null}],"page":0,"pageSize":2,"totalItems":3,"totalPages":2}`),
		[]byte(`[{"uuid":"u1","name":"SE","department":"Eng","workLocation":{"label":"Remote (US)"}}]`))
}

func FuzzParseJSONLD(f *testing.F) {
	fuzzAdapter(f, "jsonld", ldURL, fixture(f, "jsonld_page1.html"), fixture(f, "jsonld_last.html"), jsonldBenchBody(1),
		[]byte(`<link rel=next href="//other.example/x"><script type=application/ld+json>{"@graph":[[[{"@type":"JobPosting","title":"A","url":"u"}]]]}</script>`))
}

func FuzzParseAggregator(f *testing.F) {
	fuzzAdapter(f, "aggregator", aggURL, fixture(f, "aggregator_feed.json"))
}
