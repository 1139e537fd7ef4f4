package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testca"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// capturedFeed is one vendor's tenant as the crawl reads it on the vendor's real host: the
// registry row that names it, the pages the vendor answers (captured payloads in
// testdata/payloads, else the adapters' fixture of that name in pipeline/ats/testdata) and the posting URLs its live reqs must serve, one per req ("" for a req
// whose record carries no link: the API serves url null).
type capturedFeed struct {
	vendor, tenant        string
	domain, name, country string
	host                  string
	pages                 map[string]string // path and query of a request → file in testdata/payloads
	contentType           string
	urls                  []string
	// described are the URLs (of urls) of the reqs whose posting's record carries a description:
	// jobs/role serves each its cleaned text, and every other req none.
	described []string
}

// capturedFeeds are one tenant per templated vendor, each its own company, with the tenant the
// payload's links name (boards.greenhouse.io/acme → acme; Workable's links name no tenant; JOIN's
// tenant is the company's number in its API URL). The first page's path and query are the ones
// atsurl.FirstPage renders; SmartRecruiters' captured page is the first of two (offset 0, limit 3,
// totalFound 5), so its vendor also answers the next page the adapter asks for,
// smartrecruiters_page2.json, written here to end the paging; JOIN's first page says pageCount 2,
// so its vendor answers page 2 too; iCIMS's is the first of two too ("Page 1 of 2"), its next
// page asked with pr=1. Workday's list is POSTed to its one path (its total, 5, fits a page).
var capturedFeeds = []capturedFeed{
	{vendor: "greenhouse", tenant: "acme", domain: "acme.com", name: "Acme", country: "US",
		host: "boards-api.greenhouse.io", pages: map[string]string{"/v1/boards/acme/jobs?content=true": "greenhouse_jobs.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://boards.greenhouse.io/acme/jobs/4012345678", "https://boards.greenhouse.io/acme/jobs/4012345679",
			""}, // Data Analyst (4012345682) has no absolute_url
		described: []string{"https://boards.greenhouse.io/acme/jobs/4012345678"}},
	{vendor: "lever", tenant: "acme", domain: "acmeworks.io", name: "Acme Works", country: "DE",
		host: "api.lever.co", pages: map[string]string{"/v0/postings/acme?mode=json&skip=0&limit=100": "lever_postings.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://jobs.lever.co/acme/5ac2b1e0-6f0e-4c1d-9a52-2f1f3c7d9e01", "https://jobs.lever.co/acme/7d8e9f00-1111-2222-3333-444455556666",
			"https://jobs.lever.co/acme/aaaa0000-bbbb-cccc-dddd-eeeeffff0000"},
		described: []string{"https://jobs.lever.co/acme/5ac2b1e0-6f0e-4c1d-9a52-2f1f3c7d9e01"}},
	{vendor: "ashby", tenant: "acme", domain: "acmehq.com", name: "Acme HQ", country: "US",
		host: "api.ashbyhq.com", pages: map[string]string{"/posting-api/job-board/acme?includeCompensation=true": "ashby_jobs.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://jobs.ashbyhq.com/acme/0f3c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b", // Houston and San Francisco: one US req
			"https://jobs.ashbyhq.com/acme/1a2b3c4d-0000-0000-0000-000000000002", "https://jobs.ashbyhq.com/acme/1a2b3c4d-0000-0000-0000-000000000003"},
		described: []string{"https://jobs.ashbyhq.com/acme/0f3c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b"}},
	{vendor: "workable", tenant: "acme-logistics", domain: "acmelogistics.com", name: "Acme Logistics", country: "DE",
		host: "apply.workable.com", pages: map[string]string{"/api/v1/widget/accounts/acme-logistics?details=true": "workable_account.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://apply.workable.com/j/9F1A2B3C4D", "https://apply.workable.com/j/9F1A2B3C4D", // Berlin and Rotterdam: two countries, two reqs
			"https://apply.workable.com/j/AB12CD34EF"}}, // the list without details=true: no description
	{vendor: "smartrecruiters", tenant: "AcmeInc", domain: "acmeinc.com", name: "Acme Inc", country: "US",
		host: "api.smartrecruiters.com", pages: map[string]string{
			"/v1/companies/AcmeInc/postings?limit=100&offset=0": "smartrecruiters_page1.json",
			"/v1/companies/AcmeInc/postings?limit=100&offset=3": "smartrecruiters_page2.json"},
		contentType: "application/json;charset=UTF-8",
		urls: []string{"https://jobs.smartrecruiters.com/AcmeInc/744000012345678", "https://jobs.smartrecruiters.com/AcmeInc/744000012345679",
			"https://jobs.smartrecruiters.com/AcmeInc/744000012345681", "https://jobs.smartrecruiters.com/AcmeInc/744000012345682"}},
	{vendor: "recruitee", tenant: "acme", domain: "acme.nl", name: "Acme B.V.", country: "NL",
		host: "acme.recruitee.com", pages: map[string]string{"/api/offers/": "recruitee_offers.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://acme.recruitee.com/o/backend-engineer", "https://acme.recruitee.com/o/office-manager",
			"https://acme.recruitee.com/o/student-assistant"},
		described: []string{"https://acme.recruitee.com/o/backend-engineer"}},
	{vendor: "personio", tenant: "acme", domain: "acme.de", name: "Acme GmbH", country: "DE",
		host: "acme.jobs.personio.de", pages: map[string]string{"/xml?language=en": "personio_positions.xml"},
		contentType: "text/xml;charset=UTF-8",
		urls: []string{"https://acme.jobs.personio.de/job/1234567", // Berlin and Munich: one req
			"https://acme.jobs.personio.de/job/1234568", "https://acme.jobs.personio.de/job/1234569"},
		described: []string{"https://acme.jobs.personio.de/job/1234567", "https://acme.jobs.personio.de/job/1234568"}},
	{vendor: "teamtailor", tenant: "acme", domain: "acme.se", name: "Acme AB", country: "SE",
		host: "acme.teamtailor.com", pages: map[string]string{"/jobs.rss?per_page=200&offset=0": "teamtailor_jobs.rss"},
		contentType: "application/rss+xml; charset=utf-8",
		urls: []string{"https://acme.teamtailor.com/jobs/7308188-backend-engineer",
			"https://acme.teamtailor.com/jobs/8191515-global-partnerships-lead", "https://acme.teamtailor.com/jobs/8191515-global-partnerships-lead", // Stockholm and London: two reqs
			"https://acme.teamtailor.com/fr-CA/jobs/8384421-designer-ux", "https://careers.acme.se/jobs/office-coordinator"},
		described: []string{"https://acme.teamtailor.com/jobs/7308188-backend-engineer", "https://acme.teamtailor.com/jobs/8191515-global-partnerships-lead",
			"https://acme.teamtailor.com/jobs/8191515-global-partnerships-lead", "https://careers.acme.se/jobs/office-coordinator"}},
	{vendor: "bamboohr", tenant: "acme", domain: "acmeworks.ca", name: "Acme Works Ltd", country: "CA",
		host: "acme.bamboohr.com", pages: map[string]string{"/careers/list": "bamboohr_list.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://acme.bamboohr.com/careers/232", "https://acme.bamboohr.com/careers/241", // the list has no link: built from the tenant
			"https://acme.bamboohr.com/careers/245", "https://acme.bamboohr.com/careers/317"}},
	{vendor: "breezy", tenant: "acme", domain: "acmelabs.com", name: "Acme Labs", country: "US",
		host: "acme.breezy.hr", pages: map[string]string{"/json": "breezy_positions.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://acme.breezy.hr/p/9fdd4744af8f-backend-engineer", "https://acme.breezy.hr/p/9fdd4744af8f-backend-engineer", // Columbus and Toronto: two reqs
			"https://acme.breezy.hr/p/9aa01a0d81cd-support-agent", "https://acme.breezy.hr/p/4512f54c796a-account-manager-berlin",
			"https://acme.breezy.hr/p/60cec77079df-data-engineer", "https://acme.breezy.hr/p/12b3ed96c30c-data-engineer-intern",
			"https://acme.breezy.hr/p/d447666d8ce4-cfo"}},
	{vendor: "pinpoint", tenant: "acme", domain: "acmeplatforms.co.uk", name: "Acme Platforms Ltd", country: "GB",
		host: "acme.pinpointhq.com", pages: map[string]string{"/postings.json": "pinpoint_postings.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://acme.pinpointhq.com/en/postings/142f2b86-97ea-478f-9727-69e5049873ce",
			"https://acme.pinpointhq.com/en/postings/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
			"https://acme.pinpointhq.com/en/postings/0f0e0d0c-0b0a-0908-0706-050403020100", // url null: the tenant's host and path
			"https://acme.pinpointhq.com/en/postings/11111111-2222-3333-4444-555555555555"},
		described: []string{"https://acme.pinpointhq.com/en/postings/142f2b86-97ea-478f-9727-69e5049873ce",
			"https://acme.pinpointhq.com/en/postings/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"}},
	{vendor: "join", tenant: "310", domain: "acmesoftware.de", name: "Acme Software GmbH", country: "DE",
		host: "join.com", pages: map[string]string{
			"/api/public/companies/310/jobs?page=1&pageSize=5": "join_jobs_page1.json",
			"/api/public/companies/310/jobs?page=2&pageSize=5": "join_jobs_page2.json"},
		contentType: "application/json; charset=utf-8",
		urls: []string{"https://join.com/jobs/9134723", "https://join.com/jobs/9134724", "https://join.com/jobs/9134725",
			"https://join.com/jobs/9134727", "https://join.com/jobs/9134728"}},
	{vendor: "workday", tenant: "acme/wd5/External", domain: "acme-corp.com", name: "Acme Corporation", country: "US",
		host: "acme.wd5.myworkdayjobs.com", pages: map[string]string{"/wday/cxs/acme/External/jobs": "workday_jobs.json"}, // POSTed
		contentType: "application/json;charset=UTF-8",
		urls: []string{"https://acme.wd5.myworkdayjobs.com/External/job/US-CA-Santa-Clara/Senior-Software-Engineer_JR1998765",
			"https://acme.wd5.myworkdayjobs.com/External/job/TORONTO-Ontario-Canada/XMLNAME-Technology-Analyst-Intern--8-Months-_R-0000187520-1",
			"https://acme.wd5.myworkdayjobs.com/External/job/US-TX-Austin/Data-Center-Technician_JR2001234",
			"https://acme.wd5.myworkdayjobs.com/External/job/Remote---United-States/Account-Executive_JR2000555"}},
	{vendor: "icims", tenant: "careers-acme", domain: "acmebank.com", name: "Acme Bank", country: "US",
		host: "careers-acme.icims.com", pages: map[string]string{
			"/jobs/search?ss=1&in_iframe=1":      "icims_search_page1.html",
			"/jobs/search?ss=1&in_iframe=1&pr=1": "icims_search_page2.html"},
		contentType: "text/html;charset=UTF-8",
		urls: []string{"https://careers-acme.icims.com/jobs/15550/head-of-financial-crime-prevention/job", // New York and Berlin: two reqs
			"https://careers-acme.icims.com/jobs/15550/head-of-financial-crime-prevention/job",
			"https://careers-acme.icims.com/jobs/15479/aml-advisory-team-lead/job", "https://careers-acme.icims.com/jobs/15503/linux-engineer/job",
			"https://careers-acme.icims.com/jobs/15601/payroll-specialist/job"},
		described: []string{"https://careers-acme.icims.com/jobs/15550/head-of-financial-crime-prevention/job", // the card's opening
			"https://careers-acme.icims.com/jobs/15550/head-of-financial-crime-prevention/job"}},
	{vendor: "jobvite", tenant: "acme", domain: "acme.co", name: "Acme Co", country: "DE",
		host: "jobs.jobvite.com", pages: map[string]string{"/acme/search/": "jobvite_search.html"},
		contentType: "text/html;charset=UTF-8",
		urls:        []string{"https://jobs.jobvite.com/acme/job/oD2jAfwi", "https://jobs.jobvite.com/acme/job/oXk9Pfwq", "https://jobs.jobvite.com/acme/job/oBuy3fwR"}},
	{vendor: "jazzhr", tenant: "acmelogistics", domain: "acmefreight.com", name: "Acme Freight", country: "US",
		host: "acmelogistics.applytojob.com", pages: map[string]string{"/apply": "jazzhr_apply.html"},
		contentType: "text/html; charset=UTF-8",
		urls: []string{"https://acmelogistics.applytojob.com/apply/evgnhR5LkV/Electrical-Engineer-PCB",
			"https://acmelogistics.applytojob.com/apply/XyZ123abcD/Software-Engineer",
			"https://acmelogistics.applytojob.com/apply/RHnK3IiNee/Import-Compliance-Specialist"}},
	{vendor: "rippling", tenant: "acme", domain: "acme.dev", name: "Acme Dev", country: "US",
		host: "ats.rippling.com", pages: map[string]string{"/api/v2/board/acme/jobs?page=0&pageSize=50": "rippling_jobs.json"},
		contentType: "application/json",
		urls: []string{"https://ats.rippling.com/acme/jobs/5f0c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b", // San Francisco and New York: one req
			"https://ats.rippling.com/acme/jobs/7a1b2c3d-0000-4000-8000-000000000002", "https://ats.rippling.com/acme/jobs/7a1b2c3d-0000-4000-8000-000000000003"}},
}

// vendorServer answers the captured pages on the vendors' real hostnames over TLS, robots.txt
// allowing all on every host and 404 for anything else, and records every Host and request URI
// it was asked for.
type vendorServer struct {
	*httptest.Server
	mu      sync.Mutex
	asked   []string          // Host + request URI, in order
	methods map[string]string // Host + request URI → the method it was last asked with
}

func newVendorServer(t *testing.T, ca *testca.CA, feeds []capturedFeed) *vendorServer {
	t.Helper()
	type page struct {
		body        []byte
		contentType string
	}
	pages := map[string]page{}
	for _, f := range feeds {
		for uri, file := range f.pages {
			// A payload the adapters' tests also parse is theirs (pipeline/ats/testdata); only the
			// pages that differ from a fixture live here.
			b, err := os.ReadFile(filepath.Join("testdata", "payloads", file))
			if errors.Is(err, fs.ErrNotExist) {
				b, err = os.ReadFile(filepath.Join("..", "..", "pipeline", "ats", "testdata", file))
			}
			require.NoError(t, err)
			pages[f.host+uri] = page{body: b, contentType: f.contentType}
		}
	}
	leaf, err := ca.Leaf(append(atsurl.Hosts(), "127.0.0.1"))
	require.NoError(t, err)
	s := &vendorServer{methods: map[string]string{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked = append(s.asked, r.Host+r.URL.RequestURI())
		s.methods[r.Host+r.URL.RequestURI()] = r.Method
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "User-agent: *\nAllow: /\n")
			return
		}
		p, ok := pages[r.Host+r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", p.contentType)
		w.Write(p.body)
	}))
	s.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *vendorServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// TestCrawlCapturedPayloadsOnRealHostnames runs the binary as an operator would against the
// vendors, offline: `sources import` writes a registry of one tenant per vendor, `crawl --once`
// reads each tenant's first page at the URL atsurl renders on the vendor's real hostname
// (--connect-to routes every :443 to a local TLS server answering captured payloads, --ca-file
// trusts its certificate), and `serve` over the same stores serves each company's live reqs with
// the postings' real URLs (the links the payloads carry; for SmartRecruiters, Personio, BambooHR
// and JOIN the public posting pages the crawl derives) and, on jobs/role, the cleaned description
// of every req whose posting's record carries one.
func TestCrawlCapturedPayloadsOnRealHostnames(t *testing.T) {
	t.Parallel()
	pg := storetest.PostgresURL(t, "cmd_realpayloads")
	opts := storetest.ClickHouseOptions(t, "cmd_realpayloads")
	dir := t.TempDir()

	ca, err := testca.New()
	require.NoError(t, err)
	caFile := filepath.Join(dir, "ca.pem")
	require.NoError(t, ca.WritePEM(caFile))
	vendors := newVendorServer(t, ca, capturedFeeds)

	var csv strings.Builder
	csv.WriteString("domain,name,vendor,tenant,hq_country\n")
	for _, f := range capturedFeeds {
		fmt.Fprintf(&csv, "%s,%s,%s,%s,%s\n", f.domain, f.name, f.vendor, f.tenant, f.country)
	}
	registry := filepath.Join(dir, "registry.csv")
	require.NoError(t, os.WriteFile(registry, []byte(csv.String()), 0o600))

	env := []string{"HS_POSTGRES_URL=" + pg, "HS_CLICKHOUSE_ADDR=" + opts.Addr, "HS_LOG_LEVEL=info"}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "hiringsignal %s exits 0:\n%s", strings.Join(args, " "), out)
		return string(out)
	}
	out := run("sources", "import", registry, "--apply", "--by", "test")
	require.Regexp(t, fmt.Sprintf(`sources\s+%d\s+0\s+0`, len(capturedFeeds)), out)
	// One tenant validated by `sources add` through the same routing and roots: one fetch of its
	// real feed, a dry run that names the company the feed gives.
	out = run("sources", "add", "--vendor", "greenhouse", "--tenant", "acme", "--domain", "acme.com",
		"--connect-to", ":443="+vendors.Listener.Addr().String(), "--ca-file", caFile)
	require.Contains(t, out, "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true answered 200")

	crawlStart := time.Now()
	out = run("crawl", "--once", "--clickhouse-database", opts.Database,
		"--connect-to", ":443="+vendors.Listener.Addr().String(), "--ca-file", caFile, "--fetch-host-rate", "0")
	require.Contains(t, out, `msg="crawl done"`)
	t.Logf("crawl --once took %s", time.Since(crawlStart).Round(time.Millisecond))

	asked := vendors.requests()
	answered := map[string]bool{}
	for _, f := range capturedFeeds {
		answered[f.host+"/robots.txt"] = true
		for uri := range f.pages {
			answered[f.host+uri] = true
		}
	}
	for _, a := range asked {
		require.True(t, answered[a], "the crawl asked only for robots.txt and the vendors' pages, not %s", a)
	}
	for _, f := range capturedFeeds {
		for uri := range f.pages {
			require.Contains(t, asked, f.host+uri, "the crawl asked %s's real host for its page", f.vendor)
		}
		first, err := atsurl.FirstPage(f.vendor, f.tenant, "")
		require.NoError(t, err)
		require.Contains(t, asked, strings.TrimPrefix(first, "https://"), "the first page is the one atsurl renders")
		require.Contains(t, asked, f.host+"/robots.txt", "robots.txt asked on %s", f.host)
		method := http.MethodGet
		if f.vendor == "workday" {
			method = http.MethodPost // Workday's list is a POST
		}
		vendors.mu.Lock()
		got := vendors.methods[strings.TrimPrefix(first, "https://")]
		vendors.mu.Unlock()
		require.Equal(t, method, got, "%s's first page", f.vendor)
	}

	pool, err := pgxpool.New(context.Background(), pg)
	require.NoError(t, err)
	defer pool.Close()
	acct, err := oltp.CreateAccount(context.Background(), pool, "growth", "realpayloads@example.com")
	require.NoError(t, err)

	listen := freePort(t)
	p := start(t, env, "serve", "--listen", listen, "--clickhouse-database", opts.Database, "--metering-dir", t.TempDir(),
		"--read-refresh", "200ms", "--webhook-secret-keys", testSecretKeys)
	requireReady(t, listen, 2*time.Minute)
	base := "http://" + listen
	get := func(path string, out any) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", acct.Key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		if resp.StatusCode == http.StatusOK {
			require.NoError(t, json.Unmarshal(b, out), "GET %s: %s", path, b)
		}
		return resp.StatusCode
	}

	for _, f := range capturedFeeds {
		// Ready means a snapshot was built, after the crawl committed: the company is there at once.
		var resolved struct {
			Companies []struct {
				CompanyID      uint64 `json:"company_id"`
				Name           string `json:"name"`
				CoverageStatus string `json:"coverage_status"`
			} `json:"companies"`
		}
		require.Equal(t, http.StatusOK, get("/v1/companies/resolve?domain="+url.QueryEscape(f.domain), &resolved))
		require.Len(t, resolved.Companies, 1, "%s resolves to its company", f.domain)
		co := resolved.Companies[0]
		require.Equal(t, f.name, co.Name)
		require.Equal(t, "covered", co.CoverageStatus)

		var open struct {
			Reqs []struct {
				ReqKey     string `json:"req_key"`
				SourceType string `json:"source_type"`
			} `json:"reqs"`
			HasMore bool `json:"has_more"`
		}
		require.Equal(t, http.StatusOK, get(fmt.Sprintf("/v1/companies/%d/open-reqs?limit=100", co.CompanyID), &open))
		require.False(t, open.HasMore)
		var served, described []string
		for _, r := range open.Reqs {
			require.Equal(t, "ats_tenant", r.SourceType)
			var role struct {
				URL         *string  `json:"url"`
				Boards      []string `json:"boards"`
				Description *string  `json:"description"`
			}
			require.Equal(t, http.StatusOK, get(fmt.Sprintf("/v1/jobs/role?company_id=%d&req_key=%s", co.CompanyID, url.QueryEscape(r.ReqKey)), &role),
				"jobs/role of %s's live req %s", f.vendor, r.ReqKey)
			require.Equal(t, []string{f.vendor}, role.Boards)
			u := ""
			if role.URL != nil {
				u = *role.URL
			}
			served = append(served, u)
			if role.Description != nil {
				require.NotEmpty(t, strings.TrimSpace(*role.Description), "%s %s: a description served is text", f.vendor, u)
				described = append(described, u)
			}
		}
		require.ElementsMatch(t, f.urls, served, "%s: the live reqs serve the postings' real URLs", f.vendor)
		require.ElementsMatch(t, f.described, described, "%s: every req whose posting carries a description serves it, and only those", f.vendor)
	}
	p.stop(t)
}
