package discovery

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/pipeline"
)

// page is one URL of a fake web: a body (HTML unless ctype says otherwise), a redirect, or a
// failure.
type page struct {
	status   int
	body     string
	ctype    string
	redirect string
	err      error
}

// web is a fake Getter over pages; a URL it does not hold answers 404. It counts what was asked.
type web struct {
	pages map[string]page
	mu    sync.Mutex
	asked []string
}

func (w *web) Get(_ context.Context, raw string) (pipeline.Response, error) {
	var resp pipeline.Response
	for range 5 {
		w.mu.Lock()
		w.asked = append(w.asked, raw)
		w.mu.Unlock()
		resp.FinalURL = raw
		p, ok := w.pages[raw]
		switch {
		case !ok:
			resp.Status, resp.Body = http.StatusNotFound, []byte("not found")
			return resp, nil
		case p.err != nil:
			return resp, p.err
		case p.redirect != "":
			resp.Redirects = append(resp.Redirects, p.redirect)
			raw = p.redirect
			continue
		}
		resp.Status = max(p.status, http.StatusOK)
		resp.Body = []byte(p.body)
		resp.Header = http.Header{"Content-Type": {cmpOr(p.ctype, "text/html; charset=utf-8")}}
		return resp, nil
	}
	return resp, fmt.Errorf("too many redirects")
}

func (w *web) wasAsked(raw string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Contains(w.asked, raw)
}

func htmlPage(body string) page {
	return page{body: "<!DOCTYPE html><html><body>" + body + "</body></html>"}
}
func jsonPage(body string) page {
	return page{body: body, ctype: "application/json"}
}

const (
	home    = "https://acme.com/"
	robots  = "https://acme.com/robots.txt"
	careers = "https://acme.com/careers"
	ghAcme  = "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true"
	lvAcme  = "https://api.lever.co/v0/postings/acme?mode=json&skip=0&limit=100"
)

func ghJobs(name string) page {
	return jsonPage(`{"jobs":[{"id":1,"title":"Engineer","absolute_url":"https://job-boards.greenhouse.io/acme/jobs/1","location":{"name":"Berlin, Germany"},"company_name":"` +
		name + `","updated_at":"2026-01-05T00:00:00Z"}],"meta":{"total":1}}`)
}

const leverJobs = `[{"id":"a1","text":"Backend Engineer","categories":{"location":"Berlin"},"country":"DE","createdAt":1767225600000,"hostedUrl":"https://jobs.lever.co/acme/a1"}]`

// site is a company site whose home page links /careers, which holds careersBody.
func site(careersBody string, more map[string]page) *web {
	w := &web{pages: map[string]page{
		robots:  {body: "User-agent: *\nAllow: /\n", ctype: "text/plain"},
		home:    htmlPage(`<nav><a href="/about">About</a> <a href="/careers">Careers</a></nav>`),
		careers: htmlPage(careersBody),
	}}
	for k, v := range more {
		w.pages[k] = v
	}
	return w
}

var acme = Company{Domain: "acme.com", Name: "Acme Inc."}

func active(res Result) []string {
	out := []string{}
	for _, f := range res.Found {
		if f.Active {
			out = append(out, f.Vendor+":"+f.Tenant+f.URL)
		}
	}
	return out
}

func TestDiscoverKeepsABoardTheSiteLinks(t *testing.T) {
	t.Parallel()
	// An empty board is valid when the company's own site names it (Lever states no name).
	w := site(`<a href="https://jobs.lever.co/acme">Open roles</a>`, map[string]page{lvAcme: jsonPage(`[]`)})
	res := Discover(context.Background(), w, acme, Options{})
	require.Equal(t, OutcomeCovered, res.Outcome, res.Reason)
	require.Len(t, res.Found, 1)
	f := res.Found[0]
	require.True(t, f.Active)
	require.Equal(t, Found{Kind: KindATSTenant, Vendor: "lever", Tenant: "acme", URL: lvAcme, Active: true,
		Evidence: Evidence{Via: ViaLink, FoundOn: careers, CheckedURL: lvAcme, FinalURL: lvAcme, Status: 200}}, f)
	require.Empty(t, res.Reason)
	require.Equal(t, []string{robots, home, careers, lvAcme}, w.asked, "reading stops at the first board kept: no common path, no guess")
	require.Equal(t, 4, res.Requests)
	require.Len(t, res.Tried, 4)
	require.Equal(t, Step{URL: careers, Status: 200, Note: "linked from " + home}, res.Tried[2])
}

func TestDiscoverLeavesAmbiguityToAnOperator(t *testing.T) {
	t.Parallel()
	// Two tenants of one vendor on one site: both wait as candidates.
	w := site(`<a href="https://boards.greenhouse.io/acme">Jobs</a> <a href="https://boards.greenhouse.io/acmelabs">Labs jobs</a>`, map[string]page{
		ghAcme: ghJobs("Acme Inc."),
		"https://boards-api.greenhouse.io/v1/boards/acmelabs/jobs?content=true": ghJobs("Acme"),
	})
	res := Discover(context.Background(), w, acme, Options{})
	require.Equal(t, OutcomeCandidates, res.Outcome)
	require.Empty(t, active(res))
	require.Len(t, res.Found, 2)
	for _, f := range res.Found {
		require.Empty(t, f.Rejected)
		require.True(t, f.Evidence.NameMatches)
	}
	require.Contains(t, res.Reason, "the site names 2 greenhouse tenants")

	// A linked board that states another company's name waits too.
	w = site(`<a href="https://boards.greenhouse.io/acme">Jobs</a>`, map[string]page{ghAcme: ghJobs("Zenith Corp")})
	res = Discover(context.Background(), w, acme, Options{})
	require.Equal(t, OutcomeCandidates, res.Outcome)
	require.Len(t, res.Found, 1)
	require.False(t, res.Found[0].Active)
	require.Equal(t, "Zenith Corp", res.Found[0].Evidence.DetectedName)
	require.False(t, res.Found[0].Evidence.NameMatches)
	require.Contains(t, res.Reason, `states the name "Zenith Corp"`)

	// Without the company's name, the site's word is enough for a link.
	w = site(`<a href="https://boards.greenhouse.io/acme">Jobs</a>`, map[string]page{ghAcme: ghJobs("Zenith Corp")})
	res = Discover(context.Background(), w, Company{Domain: "acme.com"}, Options{})
	require.Equal(t, OutcomeCovered, res.Outcome)
}

func TestDiscoverGuessesOnlyWhenNothingIsFound(t *testing.T) {
	t.Parallel()
	bare := map[string]page{robots: {body: "User-agent: *\nAllow: /\n", ctype: "text/plain"}, home: htmlPage(`<a href="/about">About</a>`)}
	with := func(extra map[string]page) *web {
		w := &web{pages: map[string]page{}}
		for k, v := range bare {
			w.pages[k] = v
		}
		for k, v := range extra {
			w.pages[k] = v
		}
		return w
	}

	// Greenhouse confirms the guess by name: active, and no later vendor is asked.
	w := with(map[string]page{ghAcme: ghJobs("ACME, Inc")})
	res := Discover(context.Background(), w, acme, Options{})
	require.Equal(t, OutcomeCovered, res.Outcome)
	require.Equal(t, []string{"greenhouse:acme" + ghAcme}, active(res))
	require.Equal(t, ViaGuess, res.Found[0].Evidence.Via)
	require.Empty(t, res.Found[0].Evidence.FoundOn)
	require.False(t, w.wasAsked(lvAcme))
	for _, p := range CommonPaths {
		require.True(t, w.wasAsked("https://acme.com"+p), "the common paths were tried first: %s", p)
	}

	// Lever states no name: a guessed Lever board waits for an operator.
	w = with(map[string]page{lvAcme: jsonPage(leverJobs)})
	res = Discover(context.Background(), w, acme, Options{})
	require.Equal(t, OutcomeCandidates, res.Outcome)
	require.Empty(t, active(res))
	require.Contains(t, res.Reason, "the guessed lever tenant acme states no company name")

	// A guessed board naming another company, or an empty one, is rejected.
	w = with(map[string]page{ghAcme: ghJobs("Acme Plumbing"), lvAcme: jsonPage(`[]`)})
	res = Discover(context.Background(), w, acme, Options{})
	require.Equal(t, OutcomeNoATS, res.Outcome)
	rejected := map[string]string{}
	for _, f := range res.Found {
		rejected[f.Vendor] = f.Rejected
	}
	require.Equal(t, RejectNameMismatch, rejected["greenhouse"])
	require.Equal(t, RejectEmpty, rejected["lever"])
	require.Equal(t, RejectNotFound, rejected["ashby"])
	require.Len(t, rejected, 10, "one guess per vendor")
	require.Contains(t, res.Reason, "guessed 10 tenant(s)")

	// NoGuess: nothing is asked of the vendors.
	w = with(nil)
	res = Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeNoATS, res.Outcome)
	require.Empty(t, res.Found)
	require.False(t, w.wasAsked(ghAcme))
}

func TestDiscoverRejectsDemoAndGoneTenants(t *testing.T) {
	t.Parallel()
	w := site(`<a href="https://jobs.lever.co/leverdemo">Jobs</a>
<a href="https://job-boards.greenhouse.io/vaulttec">More jobs</a>
<a href="https://jobs.ashbyhq.com/acme-2019">Old jobs</a>`, map[string]page{
		"https://boards-api.greenhouse.io/v1/boards/vaulttec/jobs?content=true":            ghJobs("Vault-Tec"),
		"https://api.ashbyhq.com/posting-api/job-board/acme-2019?includeCompensation=true": {redirect: "https://www.ashbyhq.com/"},
		"https://www.ashbyhq.com/": htmlPage(`Ashby`),
	})
	res := Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeNoATS, res.Outcome)
	why := map[string]string{}
	for _, f := range res.Found {
		why[f.Vendor+":"+f.Tenant] = f.Rejected
	}
	require.Equal(t, map[string]string{"lever:leverdemo": RejectDemo, "greenhouse:vaulttec": RejectDemo, "ashby:acme-2019": RejectVendorHome}, why)
	require.False(t, w.wasAsked("https://api.lever.co/v0/postings/leverdemo?mode=json&skip=0&limit=100"), "a tenant named a demo costs no request")
	require.Contains(t, res.Reason, "lever:leverdemo (demo_tenant)")
	require.Contains(t, res.Reason, "ashby:acme-2019 (vendor_home_redirect)")
}

func TestDiscoverTakesJSONLDWhenNoTenantIsFound(t *testing.T) {
	t.Parallel()
	const ld = `<script type="application/ld+json">{"@context":"https://schema.org/","@type":"JobPosting","title":"Engineer",
"identifier":{"@type":"PropertyValue","name":"Acme","value":"j1"},"datePosted":"2026-01-05",
"hiringOrganization":{"@type":"Organization","name":"Acme Inc.","sameAs":"https://acme.com"},
"jobLocation":{"@type":"Place","address":{"@type":"PostalAddress","addressLocality":"Berlin","addressCountry":"DE"}}}</script>`
	w := site(ld, nil)
	res := Discover(context.Background(), w, acme, Options{})
	require.Equal(t, OutcomeCovered, res.Outcome)
	require.Equal(t, []Found{{Kind: KindCareersSite, Vendor: "jsonld", URL: careers, Active: true, Evidence: Evidence{
		Via: ViaJSONLD, FoundOn: careers, CheckedURL: careers, FinalURL: careers, Status: 200, Jobs: 1, DetectedName: "Acme Inc.", NameMatches: true}}}, res.Found)
	require.False(t, w.wasAsked(ghAcme), "no guess once the site lists its jobs")

	// Beside a board the site names, the JSON-LD page is not a source of its own.
	w = site(ld+`<a href="https://jobs.lever.co/acme">All roles</a>`, map[string]page{lvAcme: jsonPage(leverJobs)})
	res = Discover(context.Background(), w, acme, Options{})
	require.Equal(t, []string{"lever:acme" + lvAcme}, active(res))
	require.Equal(t, RejectSuperseded, res.Found[len(res.Found)-1].Rejected)
}

func TestDiscoverFollowsTheSitemapAndTheWWWRedirect(t *testing.T) {
	t.Parallel()
	w := &web{pages: map[string]page{
		robots:                  {body: "User-agent: *\nAllow: /\nSitemap: https://www.acme.com/sitemap.xml\nSitemap: https://evil.example/sitemap.xml\n", ctype: "text/plain"},
		home:                    {redirect: "https://www.acme.com/"},
		"https://www.acme.com/": htmlPage(`<a href="/about">About</a>`),
		"https://www.acme.com/sitemap.xml": {ctype: "application/xml", body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://www.acme.com/</loc></url><url><loc>https://www.acme.com/blog</loc></url>
<url><loc>https://www.acme.com/company/open-positions</loc></url><url><loc>https://other.example/jobs</loc></url></urlset>`},
		"https://www.acme.com/company/open-positions": htmlPage(`<iframe src="https://acme.jobs.personio.de/?display=en"></iframe>`),
		"https://acme.jobs.personio.de/xml?language=en": {ctype: "application/xml", body: `<?xml version="1.0" encoding="UTF-8"?>
<workzag-jobs><position><id>1</id><subcompany>Acme Inc.</subcompany><office>Berlin</office><name>Engineer</name><createdAt>2026-01-05T00:00:00+00:00</createdAt></position></workzag-jobs>`},
	}}
	res := Discover(context.Background(), w, acme, Options{})
	require.Equal(t, OutcomeCovered, res.Outcome, res.Reason)
	f := res.Found[0]
	require.Equal(t, "personio:acme", f.Vendor+":"+f.Tenant)
	require.Equal(t, ViaIframe, f.Evidence.Via)
	require.Equal(t, "https://www.acme.com/company/open-positions", f.Evidence.FoundOn)
	require.True(t, f.Evidence.NameMatches)
	require.False(t, w.wasAsked("https://evil.example/sitemap.xml"), "a sitemap off the company's site is not read")
	require.False(t, w.wasAsked("https://other.example/jobs"))
	require.False(t, w.wasAsked("https://www.acme.com/careers"), "the sitemap found the careers page before the common paths")
}

func TestDiscoverExplainsWhatItCouldNotRead(t *testing.T) {
	t.Parallel()
	disallow := func(p string) page {
		return page{err: fmt.Errorf("robots.txt disallows %s: %w", p, pipeline.ErrRobotsDisallow)}
	}
	w := site("", map[string]page{careers: disallow("/careers")})
	for _, p := range CommonPaths[1:] {
		w.pages["https://acme.com"+p] = disallow(p)
	}
	res := Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeBlockedByRobots, res.Outcome)
	require.Contains(t, res.Reason, "robots.txt of acme.com disallows /careers, /jobs")
	require.Equal(t, 2, res.Requests, "robots.txt and the home page: nothing was sent for a disallowed page")

	w = &web{pages: map[string]page{
		robots: {status: 503, body: "down"},
		home:   {err: fmt.Errorf("robots.txt unavailable (status 503): %w", pipeline.ErrRobotsUnavailable)},
	}}
	res = Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeUnreachable, res.Outcome)
	require.Contains(t, res.Reason, "acme.com did not answer (robots.txt answered 503; robots.txt unavailable (status 503)")
	require.Equal(t, []string{robots, home}, w.asked, "nothing more is read of a site that does not answer")

	// A connection failure at the apex tries www. before giving up.
	w = &web{pages: map[string]page{home: {err: fmt.Errorf("cannot get https://acme.com/: connection refused")}}}
	res = Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.True(t, w.wasAsked("https://www.acme.com/"))
	require.Equal(t, OutcomeNoATS, res.Outcome, "www. answered (404): the site was read")

	res = Discover(context.Background(), w, Company{Domain: " "}, Options{})
	require.Equal(t, OutcomeUnreachable, res.Outcome)
	require.Contains(t, res.Reason, "not a domain")
}

func TestDiscoverStaysWithinItsBudgets(t *testing.T) {
	t.Parallel()
	var links strings.Builder
	for i := range 30 {
		fmt.Fprintf(&links, `<a href="/careers/team-%d">Jobs in team %d</a>`, i, i)
	}
	w := site(links.String(), nil)
	res := Discover(context.Background(), w, acme, Options{})
	pages := 0
	for _, u := range w.asked {
		if strings.HasPrefix(u, "https://acme.com/") && u != robots {
			pages++
		}
	}
	require.Equal(t, DefaultPageBudget, pages, "the page budget holds however many careers links a site has")
	require.LessOrEqual(t, res.Requests, DefaultRequestBudget)

	w = site(links.String(), nil)
	res = Discover(context.Background(), w, acme, Options{RequestBudget: 5})
	require.Equal(t, 5, res.Requests)
	require.Len(t, w.asked, 5)
	require.Contains(t, res.Reason, "stopped at the budget of 5 requests")
}

// postWeb is a web that also POSTs (a Poster): a POST answers postPages, and a URL it does not
// hold answers 405, as Workday's list answers a GET.
type postWeb struct {
	*web
	postPages map[string]page
	posted    []string
}

func (w *postWeb) Post(_ context.Context, raw, ctype string, body []byte) (pipeline.Response, error) {
	w.mu.Lock()
	w.posted = append(w.posted, raw+" "+ctype+" "+string(body))
	w.mu.Unlock()
	p, ok := w.postPages[raw]
	if !ok {
		return pipeline.Response{FinalURL: raw, Status: http.StatusMethodNotAllowed}, nil
	}
	return pipeline.Response{FinalURL: raw, Status: max(p.status, http.StatusOK), Body: []byte(p.body),
		Header: http.Header{"Content-Type": {cmpOr(p.ctype, "application/json")}}}, nil
}

const workdayJobs = `{"total":1,"jobPostings":[{"title":"Engineer","externalPath":"/job/Berlin/Engineer_R1","locationsText":"Berlin, Germany","postedOn":"Posted Today","bulletFields":["R1"]}]}`

// A Workday career site names company/wdN/site; its list answers a POST only, so the tenant is
// validated with the POST the crawl sends, and through a Getter that cannot POST it is not kept.
func TestDiscoverValidatesAWorkdaySiteWithItsPost(t *testing.T) {
	t.Parallel()
	const cxs = "https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/External/jobs"
	w := site(`<a href="https://acme.wd5.myworkdayjobs.com/en-US/External">Open roles</a>`, nil)
	pw := &postWeb{web: w, postPages: map[string]page{cxs: jsonPage(workdayJobs)}}
	res := Discover(context.Background(), pw, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeCovered, res.Outcome, res.Reason)
	require.Equal(t, []string{"workday:acme/wd5/External" + cxs}, active(res))
	require.Equal(t, 1, res.Found[0].Evidence.Jobs)
	require.Equal(t, []string{cxs + ` application/json {"appliedFacets":{},"limit":20,"offset":0,"searchText":""}`}, pw.posted)
	require.False(t, w.wasAsked(cxs), "never a GET of a list that answers a POST")

	getOnly := site(`<a href="https://acme.wd5.myworkdayjobs.com/External">Open roles</a>`, map[string]page{cxs: {status: http.StatusMethodNotAllowed}})
	res = Discover(context.Background(), getOnly, acme, Options{NoGuess: true})
	require.Empty(t, active(res), "a GET of the list is refused")
	require.Equal(t, "status_405", res.Found[0].Rejected)
}

// A JOIN company page names the company's slug; discovery reads the page for the number JOIN's
// API takes, validates that tenant, and checks the name the page states. A redirect that ends on
// the page is not asked again.
func TestDiscoverReadsAJoinCompanyPageForItsNumber(t *testing.T) {
	t.Parallel()
	const (
		joinPage = "https://join.com/companies/acme"
		joinAPI  = "https://join.com/api/public/companies/310/jobs?page=1&pageSize=5"
		joinJobs = `{"items":[{"id":9134723,"title":"Engineer","city":{"cityName":"Berlin","countryName":"Germany"}}],"pagination":{"page":1,"pageCount":1}}`
	)
	companyPage := func(name, slug string) page {
		return htmlPage(`<h1>` + name + `</h1><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"company":{"id":310,"name":"` +
			name + `","domain":"` + slug + `"}}}}</script>`)
	}
	w := site(`<a href="`+joinPage+`?embed=true">Open roles</a>`, map[string]page{joinPage: companyPage("Acme Inc.", "acme"), joinAPI: jsonPage(joinJobs)})
	res := Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeCovered, res.Outcome, res.Reason)
	require.Equal(t, []string{"join:310" + joinAPI}, active(res))
	require.Equal(t, "Acme Inc.", res.Found[0].Evidence.DetectedName)
	require.True(t, res.Found[0].Evidence.NameMatches)

	// The page of another company's name is kept for an operator, not made active.
	w = site(`<a href="`+joinPage+`">Open roles</a>`, map[string]page{joinPage: companyPage("Acme Plumbing", "acme"), joinAPI: jsonPage(joinJobs)})
	res = Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeCandidates, res.Outcome, res.Reason)
	require.Contains(t, res.Reason, `join tenant 310 states the name "Acme Plumbing"`)

	// A placeholder page of another slug names no tenant of this one.
	w = site(`<a href="`+joinPage+`">Open roles</a>`, map[string]page{joinPage: companyPage("Greenteg", "greenteg"), joinAPI: jsonPage(joinJobs)})
	res = Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeNoATS, res.Outcome)
	require.Equal(t, RejectUnparsable, res.Found[0].Rejected)
	require.Contains(t, res.Reason, "join.com/companies/acme (unparsable)")
	require.False(t, w.wasAsked(joinAPI))

	// The careers page redirects to the company page: its answer is read once.
	w = &web{pages: map[string]page{
		robots:   {body: "User-agent: *\nAllow: /\n", ctype: "text/plain"},
		home:     htmlPage(`<a href="/careers">Careers</a>`),
		careers:  {redirect: joinPage},
		joinPage: companyPage("Acme Inc.", "acme"),
		joinAPI:  jsonPage(joinJobs),
	}}
	res = Discover(context.Background(), w, acme, Options{NoGuess: true})
	require.Equal(t, OutcomeCovered, res.Outcome, res.Reason)
	require.Equal(t, ViaRedirect, res.Found[0].Evidence.Via)
	n := 0
	for _, s := range res.Tried {
		if s.URL == joinPage {
			n++
		}
	}
	require.Zero(t, n, "the company page was the redirect's end, not asked on its own")
}
