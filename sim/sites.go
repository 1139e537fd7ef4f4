package sim

import (
	"html"
	"net/http"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

// Careers sites: every company's own domain (and www.) serves a small site built from the seed,
// for discovery (pipeline/discovery) to read: a home page, a few plain pages, robots.txt with a
// Sitemap line (most sites), sitemap.xml, and a careers page whose kind is drawn per company:
//
//   - embed: Greenhouse's embed script (boards.greenhouse.io/embed/job_board/js?for={token} and
//     #grnhse_app) or Ashby's (jobs.ashbyhq.com/{name}/embed and #ashby_embed); companies on
//     another vendor get an iframe instead;
//   - link, iframe: a link to, or an iframe of, the tenant's board page (atsurl.BoardPage; for
//     JOIN, whose tenant is a number, the company page join.com/companies/{slug}, whose data
//     states the number);
//   - redirect: the careers page answers 302 to the board page;
//   - jsonld: no ATS named: the careers page lists the company's live reqs (the same logical
//     reqs its ATS tenant carries) as JobPosting JSON-LD, one block each;
//   - lookalike: the board link, beside links and a script on look-alike hosts
//     (job-boards.greenhouse.io.mirror-jobs.example, job-boards-greenhouse.io) naming another
//     company's tenant;
//   - demo: a link to the vendor's demo tenant (demoTenants), whose feed answers with the demo
//     company's name (only vendors with a known demo tenant; a company on another gets link);
//   - vendor_home: a link to a tenant the vendor no longer has ({tenant}-2019), whose board page
//     and feed redirect to the vendor's home page (atsurl.HomePage; only vendors known to send a
//     gone tenant there, goneHome; a company on another gets link);
//   - robots: robots.txt disallows the careers page and the common careers paths;
//   - unlinked: no careers page and no link (only companies on Greenhouse or Workable, whose
//     tenant is the domain's label and whose feed states the company's name: a guess finds it);
//   - down: every path of both hosts, robots.txt included, answers 503;
//   - none: a company with no ATS tenant publishes nothing (half of them a careers page saying
//     so).
//
// Half the sites redirect the apex to www.; most link the careers page from the home page (with
// words such as "Careers" or "Work with us", sometimes on a path that says neither), the others
// only list it in the sitemap or keep it at /careers or /jobs. A Config.RobotsDisallow entry for
// a site's host disallows the whole site. DiscoveryTruth says, per company and tick, which sources
// are truly its own and whether discovery can find one.

// Site kinds (SiteTruth.Site).
const (
	SiteEmbed      = "embed"
	SiteLink       = "link"
	SiteIframe     = "iframe"
	SiteRedirect   = "redirect"
	SiteJSONLD     = "jsonld"
	SiteLookalike  = "lookalike"
	SiteDemo       = "demo"
	SiteVendorHome = "vendor_home"
	SiteRobots     = "robots"
	SiteUnlinked   = "unlinked"
	SiteDown       = "down"
	SiteNone       = "none"
)

// Why a company's own sources cannot be discovered (SiteTruth.Why).
const (
	UndiscoverableRobots      = "robots"            // robots.txt disallows its careers pages
	UndiscoverableDown        = "down"              // its site answers 5xx
	UndiscoverableUnpublished = "nothing_published" // its site names no source of its own and no guess finds one
)

const (
	kEmbed = iota
	kLink
	kIframe
	kRedirect
	kJSONLD
	kLookalike
	kDemo
	kVendorHome
	kRobots
	kUnlinked
	kDown
	kNone
)

var siteKindNames = [...]string{SiteEmbed, SiteLink, SiteIframe, SiteRedirect, SiteJSONLD, SiteLookalike, SiteDemo, SiteVendorHome, SiteRobots, SiteUnlinked, SiteDown, SiteNone}

// siteWeights are the shares of the kinds of covered companies' sites (kEmbed..kDown).
var siteWeights = []float64{0.18, 0.22, 0.08, 0.08, 0.08, 0.05, 0.05, 0.05, 0.06, 0.10, 0.05}

// Careers paths: linked from the home page (any of them), or unlinked (the common ones, or one
// only the sitemap lists).
var (
	linkedPaths   = []string{"/careers", "/jobs", "/join-us", "/company/careers", "/about/work-with-us", "/en/careers", "/team"}
	linkTexts     = []string{"Careers", "Jobs", "Join us", "Work with us", "We're hiring", "Open positions"}
	unlinkedPaths = []string{"/careers", "/jobs", sitemapOnlyPath}
	robotsPaths   = []string{"/careers", "/jobs", "/join-us", "/about/careers", "/company/careers"}
)

const sitemapOnlyPath = "/company/open-positions"

// goneSuffix ends the tenant a vendor_home site links: the vendor redirects any tenant ending so
// to its home page. Generated tenants have no digits, so no company's tenant ends so.
const goneSuffix = "-2019"

// demoTenants are the vendors' demo tenants and the company names their feeds state: only the
// ones a vendor documents or serves publicly (the other vendors have none here).
var demoTenants = [numVendors]struct{ tenant, name string }{
	vGreenhouse:      {"vaulttec", "Vault-Tec"},
	vLever:           {"leverdemo", "Lever Demo"},
	vAshby:           {"democompany", "Demo Company"},
	vWorkable:        {"demo-company", "Demo Company"},
	vSmartRecruiters: {"SmartRecruitersDemo", "SmartRecruiters Demo"},
	vRecruitee:       {"demo", "Demo Company"},
	vPersonio:        {"demo", "Demo GmbH"},
}

// site is how one company's site is laid out (static: drawn from its key).
type site struct {
	kind     uint8
	www      bool   // the apex redirects to www.
	sitemap  bool   // robots.txt names /sitemap.xml
	homeLink bool   // the home page links the careers page
	direct   bool   // (link) the home page links the board page itself
	empty    bool   // (none) a careers page saying there is no opening
	path     string // the careers page
	text     string // the home page's link text
}

func (w *World) siteOf(c *company) site {
	r := rng{h2(c.key, saltSite)}
	var s site
	if c.vendor == vNone {
		s.kind = kNone
		if r.chance(0.1) {
			s.kind = kDown
		}
	} else {
		s.kind = uint8(r.pick(siteWeights))
		if s.kind == kUnlinked && c.vendor != vGreenhouse && c.vendor != vWorkable {
			s.kind = kLink
		}
	}
	s.www = r.chance(0.5)
	s.sitemap = r.chance(0.7)
	s.homeLink = r.chance(0.85)
	if s.homeLink {
		s.path = linkedPaths[r.intn(len(linkedPaths))]
		s.text = linkTexts[r.intn(len(linkTexts))]
	} else {
		s.path = unlinkedPaths[r.intn(len(unlinkedPaths))]
		if s.path == sitemapOnlyPath {
			s.sitemap = true
		}
	}
	s.direct = s.kind == kLink && s.homeLink && r.chance(0.3)
	s.empty = s.kind == kNone && r.chance(0.5)
	return s
}

// kindAt is the kind the site renders at tick: an embed for a company on a vendor without one
// (after a migration, say) is an iframe, and a demo or vendor_home site of a company on a vendor
// without a demo tenant, or that answers a gone tenant otherwise, is a link.
func (s site) kindAt(c *company, tick int) uint8 {
	v := c.vendorAt(tick)
	switch s.kind {
	case kEmbed:
		if v != vGreenhouse && v != vAshby {
			return kIframe
		}
	case kDemo:
		if demoTenants[v].tenant == "" {
			return kLink
		}
	case kVendorHome:
		if !goneHome(v) {
			return kLink
		}
	}
	return s.kind
}

// goneHome reports whether vendor v redirects a tenant it does not have to its home page (the
// old seven as modelled, BambooHR to www.bamboohr.com and Breezy to breezy.hr as measured); the
// others answer 404.
func goneHome(v uint8) bool {
	return v >= vGreenhouse && v <= vPersonio || v == vBambooHR || v == vBreezy
}

// boardPageOf is the public board page of c's tenant on v as its careers site names it:
// atsurl.BoardPage of tenant, or for JOIN the company page of c's slug (a JOIN tenant is a number
// no page URL names). ok is false when v has none.
func boardPageOf(c *company, v uint8, tenant string) (string, bool) {
	var u string
	var err error
	if v == vJoin {
		u, err = atsurl.JoinCompanyPage(joinSlug(c))
	} else {
		u, err = atsurl.BoardPage(vendorNames[v], tenant, atsurl.VariantDefault)
	}
	return u, err == nil
}

// hasCareersPage reports whether the site serves its careers page at s.path (a redirect counts).
func (s site) hasCareersPage(kind uint8) bool {
	return kind != kUnlinked && kind != kDown && (kind != kNone || s.empty)
}

func (w *World) siteHost(c *company, s site) string {
	if s.www {
		return "www." + c.domain
	}
	return c.domain
}

// siteCompany returns the company whose site host is (its domain or www. its domain).
func (w *World) siteCompany(host string) (*company, bool) {
	i, ok := w.domains[strings.TrimPrefix(host, "www.")]
	if !ok {
		return nil, false
	}
	return &w.companies[i], true
}

// ServesSite reports whether host is a company's own site (its domain or www.): a TLS server for
// the world issues these certificates on demand (testca's GetCertificate), as no wildcard covers
// them.
func (w *World) ServesSite(host string) bool {
	_, ok := w.siteCompany(strings.ToLower(strings.TrimSuffix(host, ".")))
	return ok
}

// serveSite serves a request to company c's site on host.
func (w *World) serveSite(rw http.ResponseWriter, r *http.Request, c *company, host string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		rw.Header().Set("Allow", "GET, HEAD")
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	tick := w.CurrentTick()
	s := w.siteOf(c)
	kind := s.kindAt(c, tick)
	if kind == kDown {
		rw.Header().Set("Content-Type", ctHTML)
		rw.WriteHeader(http.StatusServiceUnavailable)
		rw.Write([]byte("<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1></body></html>\n"))
		return
	}
	p := r.URL.Path
	if p == "/robots.txt" {
		w.serveSiteRobots(rw, r, c, s, kind, host)
		return
	}
	canonical := w.siteHost(c, s)
	if s.www && host == c.domain {
		http.Redirect(rw, r, "https://"+canonical+r.URL.RequestURI(), http.StatusMovedPermanently)
		return
	}
	switch {
	case p == "/":
		w.writeBody(rw, r, w.renderHome(c, s, kind, tick), ctHTML)
	case p == "/about" || p == "/blog" || p == "/contact":
		w.writeBody(rw, r, sitePage(c, strings.TrimPrefix(p, "/"), "<p>"+html.EscapeString(c.core)+" makes things people use.</p>"), ctHTML)
	case p == "/sitemap.xml":
		w.writeBody(rw, r, w.renderSitemap(c, s, kind, canonical), ctXML)
	case p == s.path && s.hasCareersPage(kind):
		if kind == kRedirect {
			v := c.vendorAt(tick)
			if u, ok := boardPageOf(c, v, c.tenant(v)); ok {
				http.Redirect(rw, r, u, http.StatusFound)
				return
			}
		}
		w.writeBody(rw, r, w.renderCareers(c, s, kind, tick, canonical), ctHTML)
	default:
		rw.Header().Set("Content-Type", ctHTML)
		rw.WriteHeader(http.StatusNotFound)
		rw.Write(sitePage(c, "not found", "<p>This page does not exist.</p>"))
	}
}

// serveSiteRobots serves a site's robots.txt: everything allowed but, on a robots site, the
// careers page and the common careers paths; a Sitemap line on most sites; everything
// disallowed when Config.RobotsDisallow names the host.
func (w *World) serveSiteRobots(rw http.ResponseWriter, r *http.Request, c *company, s site, kind uint8, host string) {
	if hostMatches(w.cfg.RobotsDisallow, host) {
		w.writeBody(rw, r, []byte(robotsDisallow), "text/plain; charset=utf-8")
		return
	}
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	if kind == kRobots {
		b.WriteString("Disallow: " + s.path + "\n")
		for _, p := range robotsPaths {
			if p != s.path {
				b.WriteString("Disallow: " + p + "\n")
			}
		}
	}
	b.WriteString("Allow: /\n")
	if s.sitemap {
		b.WriteString("\nSitemap: https://" + w.siteHost(c, s) + "/sitemap.xml\n")
	}
	w.writeBody(rw, r, []byte(b.String()), "text/plain; charset=utf-8")
}

func sitePage(c *company, title, body string) []byte {
	return []byte("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html.EscapeString(c.core) + " – " + title +
		"</title>\n<link rel=\"stylesheet\" href=\"/assets/site.css\">\n</head>\n<body>\n<nav><a href=\"/\">Home</a> <a href=\"/about\">About</a></nav>\n<main>\n" +
		body + "\n</main>\n</body>\n</html>\n")
}

// renderHome renders the home page: navigation (with the careers link, unless the site keeps it
// out of the home page or has none), a blurb, and links elsewhere that are not careers links.
func (w *World) renderHome(c *company, s site, kind uint8, tick int) []byte {
	name := html.EscapeString(c.core)
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + name + "</title>\n")
	b.WriteString("<link rel=\"stylesheet\" href=\"/assets/site.css\">\n<script src=\"/assets/app.js\" defer></script>\n</head>\n<body>\n<header><nav>\n")
	b.WriteString("<a href=\"/\">Home</a>\n<a href=\"/about\">About</a>\n<a href=\"/blog\">Blog</a>\n")
	if s.homeLink && s.hasCareersPage(kind) {
		href := s.path
		if s.direct {
			v := c.vendorAt(tick)
			if u, ok := boardPageOf(c, v, c.tenant(v)); ok {
				href = u
			}
		}
		b.WriteString("<a class=\"nav-link\" href=\"" + html.EscapeString(href) + "\"><span>" + html.EscapeString(s.text) + "</span></a>\n")
	}
	b.WriteString("<a href=\"/contact\">Contact</a>\n</nav></header>\n<main>\n<h1>" + name + "</h1>\n<p>" + name + " builds tools teams rely on every day.</p>\n</main>\n")
	b.WriteString("<footer>\n<a href=\"mailto:hello@" + c.domain + "\">hello@" + c.domain + "</a>\n")
	b.WriteString("<a href=\"https://www.linkedin.com/company/" + c.slug + "\">LinkedIn</a>\n<a href=\"https://twitter.com/" + c.slug + "\">Twitter</a>\n</footer>\n</body>\n</html>\n")
	return []byte(b.String())
}

// renderSitemap lists the site's pages, the careers page among them when it has one.
func (w *World) renderSitemap(c *company, s site, kind uint8, host string) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	paths := []string{"/", "/about", "/blog", "/contact"}
	if s.hasCareersPage(kind) {
		paths = append(paths, s.path)
	}
	for _, p := range paths {
		b.WriteString("  <url><loc>https://" + host + p + "</loc></url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

// renderCareers renders the careers page of kind.
func (w *World) renderCareers(c *company, s site, kind uint8, tick int, host string) []byte {
	v := c.vendorAt(tick)
	board := func(tenant string) string {
		u, _ := boardPageOf(c, v, tenant)
		return html.EscapeString(u)
	}
	var b strings.Builder
	switch kind {
	case kEmbed:
		t := html.EscapeString(c.tenant(v))
		if v == vGreenhouse {
			b.WriteString("<div id=\"grnhse_app\"></div>\n<script src=\"https://boards.greenhouse.io/embed/job_board/js?for=" + t + "\"></script>\n")
		} else {
			b.WriteString("<div id=\"ashby_embed\"></div>\n<script src=\"https://jobs.ashbyhq.com/" + t + "/embed?version=2\" async></script>\n")
		}
	case kIframe:
		b.WriteString("<iframe src=\"" + board(c.tenant(v)) + "?embed=true\" title=\"Open positions\" width=\"100%\" height=\"800\"></iframe>\n")
	case kLink, kRobots:
		b.WriteString("<p><a href=\"" + board(c.tenant(v)) + "\">See all open positions</a></p>\n")
	case kLookalike:
		for _, u := range w.lookalikes(c, tick) {
			b.WriteString("<p><a href=\"" + html.EscapeString(u) + "\">Jobs at our partners</a></p>\n")
		}
		b.WriteString("<p><a href=\"" + board(c.tenant(v)) + "\">See all open positions</a></p>\n")
	case kDemo:
		b.WriteString("<p><a href=\"" + board(demoTenants[v].tenant) + "\">See all open positions</a></p>\n")
	case kVendorHome:
		b.WriteString("<p><a href=\"" + board(c.tenant(v)+goneSuffix) + "\">See all open positions</a></p>\n")
	case kJSONLD:
		gens := w.liveGens(c, tick)
		b.WriteString("<ul>\n")
		for i := range gens {
			b.WriteString("<li>" + html.EscapeString(w.titles[gens[i].title].name) + "</li>\n")
		}
		b.WriteString("</ul>\n")
		for i := range gens {
			b.Write(w.appendCareersPosting(nil, c, &gens[i], host, s.path))
		}
	case kNone:
		b.WriteString("<p>We have no open positions right now. Check back soon.</p>\n")
	}
	return sitePage(c, "careers", "<h1>Careers at "+html.EscapeString(c.core)+"</h1>\n"+b.String())
}

// lookalikes are links and a script on hosts that look like a vendor's, naming the tenant of the
// next company with a board page: a discoverer that trusts them attributes another company's
// board. The look-alike hosts are the board page's host under a mirror's domain, and the board
// page's host with the dot before the vendor's domain made a hyphen
// (job-boards-greenhouse.io, acme.wd5-myworkdayjobs.com): never the vendor's own domain.
func (w *World) lookalikes(c *company, tick int) []string {
	n := len(w.companies)
	for j := 1; j < n; j++ {
		o := &w.companies[(int(c.idx)+j)%n]
		v := o.vendorAt(tick)
		if v == vNone {
			continue
		}
		u, err := atsurl.BoardPage(vendorNames[v], o.tenant(v), atsurl.VariantDefault)
		if err != nil {
			continue
		}
		rest := strings.TrimPrefix(u, "https://")
		host, path, _ := strings.Cut(rest, "/")
		hyphen := host
		if i := strings.LastIndexByte(host[:strings.LastIndexByte(host, '.')], '.'); i >= 0 {
			hyphen = host[:i] + "-" + host[i+1:]
		}
		return []string{
			"https://" + host + ".mirror-jobs.example/" + path,
			"https://" + hyphen + "/" + path,
			"https://boards.greenhouse.io.cdn-mirror.example/embed/job_board/js?for=" + o.tenant(v),
		}
	}
	return nil
}

// appendCareersPosting appends one live req of c as a JobPosting block of its own careers page.
func (w *World) appendCareersPosting(b []byte, c *company, g *gen, host, path string) []byte {
	cd := &countries[g.country]
	id := "job-" + strconv.FormatUint(uint64(atsID32(c, vJSONLD, g)), 36)
	b = append(b, `<script type="application/ld+json">{"@context":"https://schema.org/","@type":"JobPosting","title":`...)
	b = appendStr(b, w.titles[g.title].name)
	b = append(b, `,"identifier":{"@type":"PropertyValue","name":`...)
	b = appendStr(b, c.name)
	b = append(b, `,"value":"`...)
	b = append(b, id...)
	b = append(b, `"},"datePosted":`...)
	b = appendTime(b, w.postedAt(g, saltSite).UTC(), "2006-01-02")
	b = append(b, `,"hiringOrganization":{"@type":"Organization","name":`...)
	b = appendStr(b, c.name)
	b = append(b, `,"sameAs":"https://`...)
	b = append(b, c.domain...)
	b = append(b, `"},"jobLocation":{"@type":"Place","address":{"@type":"PostalAddress",`...)
	if !g.remote {
		b = append(b, `"addressLocality":`...)
		b = appendStr(b, cd.cities[g.city])
		b = append(b, ',')
	}
	b = append(b, `"addressCountry":`...)
	b = appendStr(b, cd.a2)
	b = append(b, "}}"...)
	if g.remote {
		b = append(b, `,"jobLocationType":"TELECOMMUTE","applicantLocationRequirements":{"@type":"Country","name":`...)
		b = appendStr(b, cd.name)
		b = append(b, '}')
	}
	b = append(b, `,"url":"https://`...)
	b = append(b, host...)
	b = append(b, path...)
	b = append(b, '/')
	b = append(b, id...)
	return append(b, "\"}</script>\n"...)
}

// Vendors' own pages in host mode: a tenant's board page (atsurl.BoardPage), the demo tenants'
// feeds and pages, gone tenants redirected to the vendor's home page, and the home page itself.

// serveBoardPage serves the public board page of c's tenant on vendor v.
func (w *World) serveBoardPage(rw http.ResponseWriter, r *http.Request, c *company) {
	name := html.EscapeString(atsCompanyName(c))
	body := "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Jobs at " + name + "</title>\n</head>\n<body>\n<h1>" + name +
		"</h1>\n<p>Current openings at " + name + ".</p>\n</body>\n</html>\n"
	w.writeBody(rw, r, []byte(body), ctHTML)
}

// serveVendorHome serves vendor v's home page.
func (w *World) serveVendorHome(rw http.ResponseWriter, r *http.Request, v uint8) {
	body := "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + vendorNames[v] +
		" – hiring software</title>\n</head>\n<body>\n<h1>Hire better with " + vendorNames[v] + "</h1>\n<p><a href=\"/pricing\">Pricing</a></p>\n</body>\n</html>\n"
	w.writeBody(rw, r, []byte(body), ctHTML)
}

// vendorHomeHost returns the vendor whose home page is on host (vNone when none).
func vendorHomeHost(host string) uint8 {
	for v := vGreenhouse; v <= lastATS; v++ {
		home, err := atsurl.HomePage(vendorNames[v])
		if err == nil && strings.TrimSuffix(strings.TrimPrefix(home, "https://"), "/") == host {
			return uint8(v)
		}
	}
	return vNone
}

// demoCompany is vendor v's demo company: a small company of its own, outside the world's
// companies, truth and directory, whose feed the vendor serves for its demo tenant.
func (w *World) demoCompany(v uint8) company {
	d := demoTenants[v]
	c := company{
		idx: int32(len(w.companies)) + int32(v), key: h2(w.seed^saltSite, 1000+uint64(v)),
		core: d.name, slug: d.tenant, camel: d.tenant, kebab: d.tenant, name: d.name, domain: "demo.example",
		atsName: 1, vendor: v, nBase: 4, permMul: 1, hqOnly: v == vPersonio,
	}
	c.region = uint8(countries[c.country].region)
	return c
}

// demoOf returns the demo company of vendor v when tenant is v's demo tenant.
func (w *World) demoOf(v uint8, tenant string) (*company, bool) {
	if v < vGreenhouse || v > lastATS || demoTenants[v].tenant == "" || !strings.EqualFold(demoTenants[v].tenant, tenant) {
		return nil, false
	}
	return &w.demos[v], true
}

// serveJoinCompany serves JOIN's company page of slug (join.com/companies/{slug}) while its
// company is on JOIN: the company's name and live jobs, and the page's data naming the company
// as JOIN's does, `"company":{"id","name","domain"}` with its number, the tenant its API takes.
func (w *World) serveJoinCompany(rw http.ResponseWriter, r *http.Request, slug string) {
	tick := w.CurrentTick()
	idx, ok := w.joinSlugs[slug]
	if !ok || w.companies[idx].vendorAt(tick) != vJoin {
		notFound(rw)
		return
	}
	c := &w.companies[idx]
	name := atsCompanyName(c)
	var b []byte
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Jobs at "...)
	b = append(b, html.EscapeString(name)...)
	b = append(b, " | JOIN</title>\n</head>\n<body>\n<div id=\"__next\"><main><h1>"...)
	b = append(b, html.EscapeString(name)...)
	b = append(b, "</h1>\n<ul>\n"...)
	gens := w.liveGens(c, tick)
	for i := range gens {
		b = append(b, "<li>"...)
		b = append(b, html.EscapeString(w.titles[gens[i].title].name)...)
		b = append(b, "</li>\n"...)
	}
	b = append(b, "</ul></main></div>\n<script id=\"__NEXT_DATA__\" type=\"application/json\">{\"props\":{\"pageProps\":{\"company\":{\"id\":"...)
	b = append(b, joinCompanyID(c)...)
	b = append(b, `,"name":`...)
	b = appendStr(b, name)
	b = append(b, `,"domain":`...)
	b = appendStr(b, slug)
	b = append(b, `,"isActive":true}}},"page":"/companies/[companySlug]","query":{"companySlug":`...)
	b = appendStr(b, slug)
	b = append(b, "}}</script>\n</body>\n</html>\n"...)
	w.writeBody(rw, r, b, ctHTML)
}

// SiteTruth is the discovery truth of one company at a tick: what its own site publishes and
// which sources are truly its own.
type SiteTruth struct {
	Domain string `json:"domain"`
	Name   string `json:"name"`
	Site   string `json:"site"` // Site* kind rendered at the tick
	// Own are the source keys (atsurl.SourceKey) that are truly the company's at the tick: its ATS
	// tenant then, and the careers page of a jsonld site.
	Own []string `json:"own"`
	// Discoverable: its site publishes one of Own where a reader allowed by robots.txt finds it
	// (a link, embed, iframe, redirect, or JobPosting JSON-LD of a live req), or its tenant is
	// the domain's first label on a vendor whose feed states its name (a guess confirms it).
	Discoverable bool   `json:"discoverable"`
	Why          string `json:"why,omitempty"` // Undiscoverable* when not discoverable
}

// DiscoveryTruth returns the discovery truth of every company at tick, in company order.
func (w *World) DiscoveryTruth(tick int) []SiteTruth {
	out := make([]SiteTruth, 0, len(w.companies))
	for i := range w.companies {
		c := &w.companies[i]
		s := w.siteOf(c)
		kind := s.kindAt(c, tick)
		t := SiteTruth{Domain: c.domain, Name: c.name, Site: siteKindNames[kind], Own: []string{}}
		v := c.vendorAt(tick)
		live := 0
		if v != vNone {
			t.Own = append(t.Own, tenantKey(c, v))
			live = len(w.liveGens(c, tick))
		}
		if kind == kJSONLD {
			t.Own = append(t.Own, atsurl.SourceKey(atsurl.JSONLD, "", "", "https://"+w.siteHost(c, s)+s.path))
		}
		published := false
		switch kind {
		case kEmbed, kLink, kIframe, kRedirect, kLookalike:
			published = true
		case kJSONLD:
			published = live > 0
		}
		switch {
		case hostMatches(w.cfg.RobotsDisallow, w.siteHost(c, s)) || hostMatches(w.cfg.RobotsDisallow, c.domain) || kind == kRobots:
			t.Why = UndiscoverableRobots
		case kind == kDown:
			t.Why = UndiscoverableDown
		case published || w.guessable(c, v, live):
			t.Discoverable = true
		default:
			t.Why = UndiscoverableUnpublished
		}
		out = append(out, t)
	}
	return out
}

// guessable reports whether a guess finds c's tenant on v: the tenant is the domain's first
// label and v's feed states the company's name (Greenhouse's board endpoint and Workable's
// account always; SmartRecruiters, Recruitee, Personio, Teamtailor, Breezy and Jobvite on each
// posting, so only with live ones; the others never).
func (w *World) guessable(c *company, v uint8, live int) bool {
	if v == vNone {
		return false
	}
	label, _, _ := strings.Cut(c.domain, ".")
	if c.tenant(v) != label {
		return false
	}
	switch v {
	case vGreenhouse, vWorkable:
		return true
	case vSmartRecruiters, vRecruitee, vPersonio, vTeamtailor, vBreezy, vJobvite:
		return live > 0
	}
	return false
}
