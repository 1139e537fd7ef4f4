package atsurl

import (
	"errors"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFirstPageRendersTheVendorsRealEndpoints(t *testing.T) {
	t.Parallel()
	f := func(vendor, tenant, variant, want string) {
		t.Helper()
		got, err := FirstPage(vendor, tenant, variant)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	f(Greenhouse, "acme", "", "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true")
	f(Greenhouse, "acme", VariantEU, "https://boards-api.eu.greenhouse.io/v1/boards/acme/jobs?content=true")
	f(Lever, "acme", "", "https://api.lever.co/v0/postings/acme?mode=json&skip=0&limit=100")
	f(Lever, "acme", VariantEU, "https://api.eu.lever.co/v0/postings/acme?mode=json&skip=0&limit=100")
	f(Ashby, "Acme", "", "https://api.ashbyhq.com/posting-api/job-board/Acme?includeCompensation=true")
	f(Workable, "acme", "", "https://apply.workable.com/api/v1/widget/accounts/acme?details=true")
	f(SmartRecruiters, "AcmeGroup1", "", "https://api.smartrecruiters.com/v1/companies/AcmeGroup1/postings?limit=100&offset=0")
	f(Recruitee, "Acme", "", "https://acme.recruitee.com/api/offers/")
	f(Personio, "acme-gmbh", "", "https://acme-gmbh.jobs.personio.de/xml?language=en")
	f(Personio, "acme-gmbh", VariantCom, "https://acme-gmbh.jobs.personio.com/xml?language=en")
	f(Teamtailor, "Acme", "", "https://acme.teamtailor.com/jobs.rss?per_page=200&offset=0")
	f(Teamtailor, "acme", VariantNA, "https://acme.na.teamtailor.com/jobs.rss?per_page=200&offset=0")
	f(BambooHR, "acme", "", "https://acme.bamboohr.com/careers/list")
	f(Breezy, "acme-labs", "", "https://acme-labs.breezy.hr/json")
	f(Pinpoint, "acme", "", "https://acme.pinpointhq.com/postings.json")
	f(Join, "123456", "", "https://join.com/api/public/companies/123456/jobs?page=1&pageSize=5")
	f(Workday, "Acme/WD5/External_Careers", "", "https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/External_Careers/jobs")
	f(ICIMS, "Careers-Acme", "", "https://careers-acme.icims.com/jobs/search?ss=1&in_iframe=1")
	f(Jobvite, "acme-co", "", "https://jobs.jobvite.com/acme-co/search/")
	f(JazzHR, "acme", "", "https://acme.applytojob.com/apply")
	f(Rippling, "acme-inc", "", "https://ats.rippling.com/api/v2/board/acme-inc/jobs?page=0&pageSize=50")

	b, err := BoardURL(Greenhouse, "acme", "")
	require.NoError(t, err)
	require.Equal(t, "https://boards-api.greenhouse.io/v1/boards/acme", b)
}

func TestATenantThatCouldMoveTheURLIsRefused(t *testing.T) {
	t.Parallel()
	f := func(vendor, tenant string) {
		t.Helper()
		u, err := FirstPage(vendor, tenant, "")
		require.ErrorIs(t, err, ErrTenant, "%s %q rendered %q", vendor, tenant, u)
	}
	for _, v := range []string{Greenhouse, Lever, Ashby, Workable, SmartRecruiters, Jobvite, Rippling} {
		f(v, "")
		f(v, "..")
		f(v, ".hidden")
		f(v, "acme/../../admin")
		f(v, "acme?x=1")
		f(v, "acme#x")
		f(v, "acme%2f..")
		f(v, "user@evil.example")
		f(v, "acme corp")
		f(v, string(make([]byte, 101)))
	}
	for _, v := range []string{Recruitee, Personio, Teamtailor, BambooHR, Breezy, Pinpoint, ICIMS, JazzHR} {
		f(v, "evil.example/x")
		f(v, "evil.example#")
		f(v, "a.b")
		f(v, "-acme")
		f(v, "acme-")
		f(v, "acme_corp")
	}
	// JOIN's tenant is the company's number: its name, anything else, or a number that is not
	// one (a sign, a leading zero, thirteen digits) is refused.
	for _, tenant := range []string{"", "acme", "123/../1", "12?x=1", "12#", "12%2f", "-12", "+12", "012", "1 2", "1234567890123", "١٢"} {
		f(Join, tenant)
	}
	// A Workday tenant's three parts are checked each on its own: the slashes only separate them.
	for _, tenant := range []string{"", "acme", "acme/wd5", "acme/wd5/External/x", "acme/wd5/..", "acme/wd5/.", "../wd5/External",
		"acme/../External", "acme/wd5/", "acme/wd0/External", "acme/wd1234/External", "acme/ab5/External", "evil.example/wd5/External",
		"acme/wd5/Ext?x=1", "acme/wd5/Ext#x", "acme/wd5/Ext%2f..", "acme/wd5/Ext.site", "user@evil/wd5/External", "acme /wd5/External",
		"acme/wd5/" + string(make([]byte, 101))} {
		f(Workday, tenant)
	}
}

func TestAWorkdayTenantIsCompanyDataCentreAndSite(t *testing.T) {
	t.Parallel()
	got, err := Tenant(Workday, "NVIDIA/wd5/NVIDIAExternalCareerSite")
	require.NoError(t, err)
	require.Equal(t, "nvidia/wd5/NVIDIAExternalCareerSite", got, "company and data centre lower-cased, the site kept")
	company, dc, site, ok := WorkdayParts(got)
	require.True(t, ok)
	require.Equal(t, []string{"nvidia", "wd5", "NVIDIAExternalCareerSite"}, []string{company, dc, site})
	u, err := FirstPage(Workday, "salesforce/wd12/External_Career_Site", "")
	require.NoError(t, err)
	pu, err := url.Parse(u)
	require.NoError(t, err)
	require.Equal(t, "salesforce.wd12.myworkdayjobs.com", pu.Host)
	require.Equal(t, "/wday/cxs/salesforce/External_Career_Site/jobs", pu.Path)
	require.Empty(t, pu.RawQuery, "the page position rides in the POST body")
	require.Equal(t, "workday:salesforce/wd12/External_Career_Site", SourceKey(Workday, "salesforce/wd12/External_Career_Site", "", ""))
}

func TestVendorAndVariantErrorsListTheChoices(t *testing.T) {
	t.Parallel()
	_, err := FirstPage("taleo", "acme", "")
	require.ErrorContains(t, err, `unknown vendor "taleo": use one of aggregator, ashby, bamboohr, breezy, greenhouse, icims, jazzhr, jobvite, join, jsonld, lever, personio, pinpoint, recruitee, rippling, smartrecruiters, teamtailor, workable, workday`)
	_, err = FirstPage(Ashby, "acme", VariantEU)
	require.ErrorContains(t, err, `unknown variant "eu" for ashby`)
	_, err = FirstPage(JSONLD, "acme", "")
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrTenant))
}

func TestRecognizeReadsPastedBoardURLs(t *testing.T) {
	t.Parallel()
	f := func(raw string, want Board) {
		t.Helper()
		got, ok := Recognize(raw)
		require.True(t, ok, raw)
		require.Equal(t, want, got, raw)
	}
	f("https://boards.greenhouse.io/acme", Board{Greenhouse, "acme", ""})
	f("https://job-boards.greenhouse.io/acme/jobs/4012345", Board{Greenhouse, "acme", ""})
	f("https://job-boards.eu.greenhouse.io/acme", Board{Greenhouse, "acme", VariantEU})
	f("https://boards.greenhouse.io/embed/job_board/js?for=acme", Board{Greenhouse, "acme", ""})
	f("jobs.lever.co/acme/1d6f-22", Board{Lever, "acme", ""})
	f("https://jobs.eu.lever.co/acme", Board{Lever, "acme", VariantEU})
	f("https://jobs.ashbyhq.com/Acme", Board{Ashby, "Acme", ""})
	f("https://apply.workable.com/acme/", Board{Workable, "acme", ""})
	f("https://www.workable.com/api/accounts/acme", Board{Workable, "acme", ""})
	f("https://careers.smartrecruiters.com/AcmeGroup", Board{SmartRecruiters, "AcmeGroup", ""})
	f("https://acme.recruitee.com/o/engineer", Board{Recruitee, "acme", ""})
	f("https://ACME.jobs.personio.de/", Board{Personio, "acme", ""})
	f("https://acme.jobs.personio.com/job/12", Board{Personio, "acme", VariantCom})
	f("https://acme.teamtailor.com/jobs", Board{Teamtailor, "acme", ""})
	f("https://Acme.teamtailor.com/jobs/7308188-account-manager", Board{Teamtailor, "acme", ""})
	f("https://meteor-1691488970.na.teamtailor.com/jobs", Board{Teamtailor, "meteor-1691488970", VariantNA})
	f("https://career.teamtailor.com/jobs.rss", Board{Teamtailor, "career", ""}) // Teamtailor's own board is a tenant
	f("acme.bamboohr.com/careers", Board{BambooHR, "acme", ""})
	f("https://acme.bamboohr.com/careers/232", Board{BambooHR, "acme", ""})
	f("https://acme.bamboohr.com/jobs/embed2.php", Board{BambooHR, "acme", ""})
	f("https://unio-digital.breezy.hr/p/e03e9b1c94de-tier-iii-service-desk-engineer", Board{Breezy, "unio-digital", ""})
	f("https://acme.breezy.hr/", Board{Breezy, "acme", ""})
	f("https://made-tech.pinpointhq.com/en/postings/1d0e0b4a-1111-2222-3333-444455556666", Board{Pinpoint, "made-tech", ""})
	f("https://join.com/api/public/companies/310/jobs?page=2&pageSize=5", Board{Join, "310", ""})
	f("https://nvidia.wd5.myworkdayjobs.com/en-US/NVIDIAExternalCareerSite", Board{Workday, "nvidia/wd5/NVIDIAExternalCareerSite", ""})
	f("https://usbank.wd1.myworkdayjobs.com/US_Bank_Careers/job/Earth-City-MO/SWE_2026", Board{Workday, "usbank/wd1/US_Bank_Careers", ""})
	f("salesforce.wd12.myworkdayjobs.com/wday/cxs/salesforce/External_Career_Site/jobs", Board{Workday, "salesforce/wd12/External_Career_Site", ""})
	f("https://wd3.myworkdaysite.com/en-US/recruiting/acme/External", Board{Workday, "acme/wd3/External", ""})
	f("https://careers-acme.icims.com/jobs/search?ss=1", Board{ICIMS, "careers-acme", ""})
	f("https://english-stonex.icims.com/jobs/15550/head-of-analytics/job?in_iframe=1", Board{ICIMS, "english-stonex", ""})
	f("https://jobs.jobvite.com/trek-bicycle/jobs", Board{Jobvite, "trek-bicycle", ""})
	f("https://jobs.jobvite.com/careers/internetbrands/jobs", Board{Jobvite, "internetbrands", ""})
	f("https://jobs.jobvite.com/egnyte/job/oD2jAfwi", Board{Jobvite, "egnyte", ""})
	f("https://acme.applytojob.com/apply/RHnK3IiNee/Import-Compliance-Specialist", Board{JazzHR, "acme", ""})
	f("https://ats.rippling.com/careers-at-harver/jobs", Board{Rippling, "careers-at-harver", ""})
	f("https://ats.rippling.com/en-GB/acme/jobs/5f0c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b", Board{Rippling, "acme", ""})
	f("https://api.rippling.com/platform/api/ats/v1/board/acme/jobs", Board{Rippling, "acme", ""})

	for _, raw := range []string{
		"https://boards.greenhouse.io.evil.example/acme",
		"https://evilgreenhouse.io/acme",
		"https://boards.greenhouse.io/",
		"https://boards.greenhouse.io/embed/job_board/js",
		"https://a.b.recruitee.com/",
		"https://recruitee.com/",
		"ftp://jobs.lever.co/acme",
		"https://www.acme.com/careers",
		"https://apply.workable.com/api/v1/",
		"https://www.teamtailor.com/jobs",
		"https://app.teamtailor.com/companies/x",
		"https://na.teamtailor.com/jobs",
		"https://teamtailor.com.evil.example/jobs",
		"https://acme.teamtailor.com.evil.example/jobs",
		"https://a.b.teamtailor.com/jobs",
		"https://www.bamboohr.com/careers",
		"https://acme.bamboohr.com.evil.example/careers/list",
		"https://www.breezy.hr/",
		"https://breezy.hr/json",
		"https://acme_x.breezy.hr/json",
		"https://developers.pinpointhq.com/",
		"https://pinpointhq.com.evil.example/postings.json",
		"https://join.com/companies/acme",
		"https://join.com/companies/acme/123-engineer",
		"https://join.com/api/public/companies/acme/jobs",
		"https://join.com.evil.example/api/public/companies/310/jobs",
		"https://evil-join.com/api/public/companies/310/jobs",
		"https://acme.wd5.myworkdayjobs.com.evil.example/External",
		"https://myworkdayjobs.com/External",
		"https://wd5.myworkdayjobs.com/External",
		"https://a.b.wd5.myworkdayjobs.com/External",
		"https://acme.wd5.myworkdayjobs.com/",
		"https://acme.wd5.myworkdayjobs.com/en-US/",
		"https://acme.wd5.myworkdayjobs.com/wday/cxs/other/External/jobs",
		"https://www.icims.com/jobs/1234/demo/job",
		"https://login.icims.com/u/login/identifier",
		"https://careers-acme.icims.com.evil.example/jobs/search",
		"https://jobs.jobvite.com/",
		"https://jobs.jobvite.com.evil.example/acme/jobs",
		"https://www.applytojob.com/apply",
		"https://ats.rippling.com/api/v1/x",
		"https://ats.rippling.com/",
	} {
		_, ok := Recognize(raw)
		require.False(t, ok, raw)
	}
}

func TestRecognizeReadsEveryRenderedFirstPage(t *testing.T) {
	t.Parallel()
	for _, b := range []Board{
		{Greenhouse, "acme", ""}, {Greenhouse, "acme", VariantEU}, {Lever, "acme", ""}, {Lever, "acme", VariantEU},
		{Ashby, "Acme", ""}, {Workable, "acme", ""}, {SmartRecruiters, "AcmeGroup", ""}, {Recruitee, "acme", ""},
		{Personio, "acme", ""}, {Personio, "acme", VariantCom},
		{Teamtailor, "acme", ""}, {Teamtailor, "acme", VariantNA}, {BambooHR, "acme", ""}, {Breezy, "acme-labs", ""},
		{Pinpoint, "acme", ""}, {Join, "310", ""}, {Workday, "acme/wd5/External", ""}, {Workday, "acme/wd103/Careers_Site", ""},
		{ICIMS, "careers-acme", ""}, {Jobvite, "acme", ""}, {JazzHR, "acme", ""}, {Rippling, "acme-inc", ""},
	} {
		u, err := FirstPage(b.Vendor, b.Tenant, b.Variant)
		require.NoError(t, err)
		got, ok := Recognize(u)
		require.True(t, ok, u)
		require.Equal(t, b, got)
		pu, err := url.Parse(u)
		require.NoError(t, err)
		require.True(t, hostListed(pu.Hostname()), "%s is not in Hosts()", pu.Hostname())
	}
}

func hostListed(host string) bool {
	for _, h := range Hosts() {
		if h == host {
			return true
		}
		if len(h) > 2 && h[:2] == "*." {
			suffix := h[1:]
			if len(host) > len(suffix) && host[len(host)-len(suffix):] == suffix {
				return true
			}
		}
	}
	return false
}

func TestSourceURLIsAbsoluteHTTPSWithoutUserInfo(t *testing.T) {
	t.Parallel()
	got, err := SourceURL(JSONLD, "https://www.jobsnorth.example/jobs?page=1", false)
	require.NoError(t, err)
	require.Equal(t, "https://www.jobsnorth.example/jobs?page=1", got)
	_, err = SourceURL(JSONLD, "http://www.jobsnorth.example/jobs", false)
	require.ErrorContains(t, err, "https")
	_, err = SourceURL(JSONLD, "http://127.0.0.1:7070/boards/x/jobs", true)
	require.NoError(t, err)
	for _, raw := range []string{"https://user:pw@x.example/", "https:///x", "https://x.example/#f", "javascript:alert(1)", "/relative"} {
		_, err := SourceURL(Aggregator, raw, true)
		require.Error(t, err, raw)
	}
	_, err = SourceURL(Greenhouse, "https://boards-api.greenhouse.io/v1/boards/acme/jobs", false)
	require.ErrorContains(t, err, "give the tenant")
}

func TestSourceKey(t *testing.T) {
	t.Parallel()
	require.Equal(t, "greenhouse:acme", SourceKey(Greenhouse, "acme", "", ""))
	require.Equal(t, "lever:acme:eu", SourceKey(Lever, "acme", VariantEU, ""))
	require.Equal(t, "jsonld:www.jobsnorth.example/jobs?page=1", SourceKey(JSONLD, "", "", "https://www.jobsnorth.example/jobs?page=1"))
	require.Equal(t, "aggregator:feed.example/v1/feed?region=na", SourceKey(Aggregator, "", "", "https://feed.example/v1/feed?region=na"))
}

func TestBoardPagesAreRecognizedAndServedFromListedHosts(t *testing.T) {
	t.Parallel()
	for _, b := range []Board{
		{Greenhouse, "acme", ""}, {Greenhouse, "acme", VariantEU}, {Lever, "acme", ""}, {Lever, "acme", VariantEU},
		{Ashby, "Acme", ""}, {Workable, "acme", ""}, {SmartRecruiters, "AcmeGroup", ""}, {Recruitee, "acme", ""},
		{Personio, "acme", ""}, {Personio, "acme", VariantCom},
		{Teamtailor, "acme", ""}, {Teamtailor, "acme", VariantNA}, {BambooHR, "acme", ""}, {Breezy, "acme-labs", ""},
		{Pinpoint, "acme", ""}, {Workday, "acme/wd5/External", ""}, {Workday, "acme/wd103/Careers_Site", ""},
		{ICIMS, "careers-acme", ""}, {Jobvite, "acme", ""}, {JazzHR, "acme", ""}, {Rippling, "acme-inc", ""},
	} {
		u, err := BoardPage(b.Vendor, b.Tenant, b.Variant)
		require.NoError(t, err)
		got, ok := Recognize(u)
		require.True(t, ok, u)
		require.Equal(t, b, got, u)
		_, home := VendorHome(u)
		require.False(t, home, "a tenant's board page is not the vendor's home: %s", u)
		pu, err := url.Parse(u)
		require.NoError(t, err)
		require.True(t, hostListed(pu.Hostname()) || slices.Contains(PageHosts(), pu.Hostname()), "%s is in neither Hosts() nor PageHosts()", pu.Hostname())
	}
	_, err := BoardPage(Lever, "acme/../x", "")
	require.ErrorIs(t, err, ErrTenant)
	_, err = BoardPage(JSONLD, "acme", "")
	require.Error(t, err)
	_, err = BoardPage(Join, "310", "")
	require.ErrorContains(t, err, "JoinCompanyPage", "JOIN's page names the company's slug, not its number")
	for b, want := range map[Board]string{
		{Teamtailor, "acme", ""}:           "https://acme.teamtailor.com/jobs",
		{Teamtailor, "acme", VariantNA}:    "https://acme.na.teamtailor.com/jobs",
		{BambooHR, "acme", ""}:             "https://acme.bamboohr.com/careers",
		{Breezy, "acme", ""}:               "https://acme.breezy.hr/",
		{Pinpoint, "acme", ""}:             "https://acme.pinpointhq.com/",
		{Workday, "acme/wd5/External", ""}: "https://acme.wd5.myworkdayjobs.com/External",
		{ICIMS, "careers-acme", ""}:        "https://careers-acme.icims.com/jobs",
		{Jobvite, "acme", ""}:              "https://jobs.jobvite.com/acme",
		{JazzHR, "acme", ""}:               "https://acme.applytojob.com/apply",
		{Rippling, "acme", ""}:             "https://ats.rippling.com/acme/jobs",
	} {
		got, err := BoardPage(b.Vendor, b.Tenant, b.Variant)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}

// A JOIN company page names the company's slug; the number its API takes is in the page's data,
// so JoinCompanySlug reads it and Recognize does not.
func TestJoinCompanyPageNamesTheSlug(t *testing.T) {
	t.Parallel()
	u, err := JoinCompanyPage("Acme-Software")
	require.NoError(t, err)
	require.Equal(t, "https://join.com/companies/acme-software", u)
	slug, ok := JoinCompanySlug(u)
	require.True(t, ok)
	require.Equal(t, "acme-software", slug)
	_, ok = Recognize(u)
	require.False(t, ok, "the slug is not the tenant")
	_, home := VendorHome(u)
	require.False(t, home, "a company's page is not JOIN's own")
	pu, err := url.Parse(u)
	require.NoError(t, err)
	require.True(t, hostListed(pu.Hostname()))
	for raw, want := range map[string]string{
		"join.com/companies/greenteg":                         "greenteg",
		"https://www.join.com/companies/greenteg/9134723-eng": "greenteg",
		"https://join.com/companies/Greenteg?embed=true":      "greenteg",
	} {
		got, ok := JoinCompanySlug(raw)
		require.True(t, ok, raw)
		require.Equal(t, want, got, raw)
	}
	for _, raw := range []string{
		"https://join.com/companies/", "https://join.com/companies/-acme", "https://join.com/jobs/9134723",
		"https://join.com/api/public/companies/310/jobs", "https://join.com.evil.example/companies/acme",
		"https://evil-join.com/companies/acme", "https://join.com/companies/a_b", "ftp://join.com/companies/acme",
	} {
		_, ok := JoinCompanySlug(raw)
		require.False(t, ok, raw)
	}
	for _, slug := range []string{"", "a/b", "../x", "a.b", "acme?x=1", "-acme"} {
		_, err := JoinCompanyPage(slug)
		require.ErrorIs(t, err, ErrTenant, slug)
	}
}

func TestVendorHomeIsAVendorsOwnPageWithoutATenant(t *testing.T) {
	t.Parallel()
	for _, v := range []string{Greenhouse, Lever, Ashby, Workable, SmartRecruiters, Recruitee, Personio,
		Teamtailor, BambooHR, Breezy, Pinpoint, Join, Workday, ICIMS, Jobvite, JazzHR, Rippling} {
		home, err := HomePage(v)
		require.NoError(t, err)
		got, ok := VendorHome(home)
		require.True(t, ok, home)
		require.Equal(t, v, got)
		pu, err := url.Parse(home)
		require.NoError(t, err)
		require.True(t, hostListed(pu.Hostname()) || slices.Contains(PageHosts(), pu.Hostname()), "%s is in neither Hosts() nor PageHosts()", pu.Hostname())
	}
	for raw, want := range map[string]string{
		"https://www.greenhouse.com/pricing": Greenhouse,
		"https://jobs.lever.co/":             Lever,
		"https://api.lever.co/v0/postings":   Lever,
		"https://jobs.ashbyhq.com/api/x":     Ashby,
		"https://www.bamboohr.com/careers":   BambooHR,
		"https://breezy.hr/":                 Breezy,
		"https://jobs.jobvite.com/":          Jobvite,
		"https://ats.rippling.com/":          Rippling,
		"https://www.applytojob.com/apply":   JazzHR,
		"https://join.com/jobs":              Join,
	} {
		got, ok := VendorHome(raw)
		require.True(t, ok, raw)
		require.Equal(t, want, got, raw)
	}
	for _, raw := range []string{
		"https://jobs.lever.co/acme", "https://boards-api.greenhouse.io/v1/boards/acme",
		"https://greenhouse.io.evil.example/", "https://www.acme.com/", "https://notlever.co/", "mailto:x@lever.co",
		"https://acme.teamtailor.com/jobs", "https://acme.breezy.hr/", "https://join.com/companies/acme",
		"https://acme.wd5.myworkdayjobs.com/External", "https://careers-acme.icims.com/jobs", "https://jobs.jobvite.com/acme",
		"https://ats.rippling.com/acme/jobs", "https://acme.applytojob.com/apply",
	} {
		_, ok := VendorHome(raw)
		require.False(t, ok, raw)
	}
	_, err := HomePage(JSONLD)
	require.Error(t, err)
}

func TestRecognizeNeverTakesAPathWordForATenant(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"https://boards.greenhouse.io/embed/job_board?for=",
		"https://job-boards.greenhouse.io/embed/job_board/js",
		"https://jobs.ashbyhq.com/api/non_user_jobs?organizationSlug=acme",
		"https://jobs.lever.co/embed",
		"https://jobs.ashbyhq.com/Embed",
		"https://careers.smartrecruiters.com/static/x.js",
		"https://jobs.lever.co/favicon.ico",
		"https://jobs.ashbyhq.com/embed.js",
		"https://jobs.lever.co/API",
	} {
		b, ok := Recognize(raw)
		require.False(t, ok, "%s read as %+v", raw, b)
	}
	b, ok := Recognize("https://jobs.ashbyhq.com/acme/embed?version=2")
	require.True(t, ok)
	require.Equal(t, Board{Ashby, "acme", ""}, b, "Ashby's embed script names its board first")
	for raw, embed := range map[string]bool{
		"https://jobs.ashbyhq.com/acme/embed?version=2":               true,
		"https://acme.bamboohr.com/js/embed.js":                       true,
		"https://acme.bamboohr.com/careers":                           false,
		"https://boards.greenhouse.io/embed/job_board/js?for=acme":    true,
		"https://job-boards.greenhouse.io/embed/job_board?for=acme":   true,
		"https://boards.greenhouse.io/acme":                           false,
		"https://boards-api.greenhouse.io/v1/boards/acme/jobs":        false,
		"https://boards.greenhouse.io.evil.example/embed/js?for=acme": false,
		"https://www.acme.com/embed/careers":                          false,
	} {
		require.Equal(t, embed, IsEmbed(raw), raw)
	}
}
