package discovery

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/ats"
)

// Getter reads one URL with the crawl's politeness (robots.txt, the host's gate and rate, the
// egress policy, redirects recorded, a bounded body): pipeline.Fetcher.Get. An error means no
// answer; pipeline.ErrRobotsDisallow and pipeline.ErrRobotsUnavailable say robots.txt kept it
// from asking.
type Getter interface {
	Get(ctx context.Context, rawURL string) (pipeline.Response, error)
}

// Poster is a Getter that also sends a POST with Get's politeness (pipeline.Fetcher.Post): a
// vendor whose list answers a POST only (Workday's) is validated through it. Through a Getter
// without it such a tenant is asked with a GET, which its endpoint refuses.
type Poster interface {
	Post(ctx context.Context, rawURL, contentType string, body []byte) (pipeline.Response, error)
}

// Options bound one run. The zero value takes the defaults.
type Options struct {
	// PageBudget is the most pages of the company's own site read (home, careers pages, common
	// paths, sitemaps; robots.txt not counted). Default DefaultPageBudget.
	PageBudget int
	// RequestBudget is the most requests of the run, validation and guesses included (a redirect
	// hop is a request; the robots.txt the Getter reads for its own rules is not). Default
	// DefaultRequestBudget.
	RequestBudget int
	// Timeout bounds the run (default 2 min).
	Timeout time.Duration
	// NoGuess skips the tenant guesses.
	NoGuess bool
	// Now is the clock of Started and Took (default time.Now).
	Now func() time.Time
}

// Budgets: eight pages are the home page, the careers page it links, a deeper one, the sitemap
// and the four common paths; twenty requests are those, robots.txt, a www. hop, a validation or
// two, and the guesses (one per vendor in guessVendors, while the budget lasts).
const (
	DefaultPageBudget    = 8
	DefaultRequestBudget = 20
	// maxValidations is the most tenants named on the site that are validated in one run; more
	// are recorded as not checked.
	maxValidations = 6
)

// CommonPaths are tried on the company's site when no link and no sitemap entry led to a careers
// page that answered: five, so a site with none costs at most five requests here. "/careers/"
// is left out: a site that serves it redirects "/careers" there (or the reverse), so it would
// cost a request and find nothing new.
var CommonPaths = []string{"/careers", "/jobs", "/join-us", "/about/careers", "/company/careers"}

// guessVendors are the vendors a tenant is guessed on, in order: those whose feed states the
// company's name, which is what confirms a guess (Greenhouse's board endpoint and Workable's
// account; the postings of SmartRecruiters, Recruitee, Personio, Teamtailor, Breezy and Jobvite),
// and Lever and Ashby, which never confirm one but are kept as candidates. BambooHR, Pinpoint,
// iCIMS, JazzHR, Rippling and Workday state no name and JOIN's tenant is a number, so a guess
// there could confirm nothing.
var guessVendors = []string{atsurl.Greenhouse, atsurl.Lever, atsurl.Ashby, atsurl.Workable, atsurl.SmartRecruiters, atsurl.Recruitee, atsurl.Personio,
	atsurl.Teamtailor, atsurl.Breezy, atsurl.Jobvite}

// Why a candidate was rejected (Found.Rejected); "status_NNN" for another status of the
// vendor's endpoint.
const (
	RejectDemo         = "demo_tenant"
	RejectVendorHome   = "vendor_home_redirect"
	RejectNameMismatch = "name_mismatch"
	RejectNotFound     = "not_found"
	RejectEmpty        = "empty"
	RejectUnparsable   = "unparsable"
	RejectUnreachable  = "unreachable"
	RejectRobots       = "robots_disallow"
	RejectNotChecked   = "not_checked" // the request budget was spent first
	RejectSuperseded   = "ats_tenant_found"
	RejectInvalid      = "invalid_tenant"
)

var errBudget = errors.New("request budget spent")

// cand is one ATS tenant discovery considers. A JOIN company page names its tenant only in its
// data: such a cand has joinSlug and no tenant until validate reads the page (joinPage, when the
// page was already read as a redirect's end), and pageName is the name the page states.
type cand struct {
	board    atsurl.Board
	joinSlug string
	joinPage *pipeline.Response
	pageName string
	via      string
	foundOn  string
	found    Found
}

// ldPage is a page of the company's own site carrying JobPosting JSON-LD.
type ldPage struct {
	url, foundOn string
	jobs         int
	name         string
}

// run is one Discover call's state.
type run struct {
	ctx     context.Context
	g       Getter
	opts    Options
	res     *Result
	domain  string
	site    string // the domain's registrable domain: pages on it are the company's own
	nameKey string // normalize.CompanyKey of the company's name ("" when unknown)

	base      *url.URL        // the origin the home page answered from
	pages     int             // site pages read
	seen      map[string]bool // site pages queued or read
	linked    []pending       // careers pages named by links and sitemaps, first found first
	sitemaps  []string        // sitemap URLs from robots.txt
	cands     []*cand         // ATS tenants, in the order found
	checked   int             // site candidates validated
	jsonld    *ldPage
	blocked   []string // paths robots.txt kept discovery from
	failures  []string // why site pages could not be read
	siteOK    bool     // a page of the site answered
	careers   bool     // a careers page named by a link or the sitemap answered
	starved   bool     // the request budget ran out
	guessed   int
	readPaths []string // the site pages read, for the reason
}

type pending struct{ url, from string }

// Discover finds the job sources of company c by reading its site through g: robots.txt (for its
// Sitemap lines), the home page (https://{domain}/, following a redirect to www.), careers pages
// named by links (text or URL saying careers, jobs, join, work with us), by sitemap entries, or
// at CommonPaths. Every ATS tenant a page names (embedded board, iframe, script, link, redirect)
// is validated at the vendor as soon as it is seen, and reading stops at the first kept. A page of
// the site carrying JobPosting JSON-LD gives a careers_site source when no tenant is kept. When
// nothing is kept, one tenant per vendor is guessed (the domain's first label, else the name's
// slug) and validated. Result says what was found, what was tried, and why not covered.
func Discover(ctx context.Context, g Getter, c Company, opts Options) Result {
	if opts.PageBudget <= 0 {
		opts.PageBudget = DefaultPageBudget
	}
	if opts.RequestBudget <= 0 {
		opts.RequestBudget = DefaultRequestBudget
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	res := Result{Company: c, Found: []Found{}, Tried: []Step{}, Started: opts.Now()}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	r := &run{ctx: ctx, g: g, opts: opts, res: &res, domain: normalize.DomainKey(c.Domain), nameKey: normalize.CompanyKey(c.Name), seen: map[string]bool{}}
	if r.domain == "" || strings.ContainsAny(r.domain, " /") {
		res.Outcome, res.Reason = OutcomeUnreachable, fmt.Sprintf("cannot read %q: it is not a domain", c.Domain)
		res.Took = opts.Now().Sub(res.Started)
		return res
	}
	r.site = registrableDomain(r.domain)
	r.readSite()
	if !r.keptAny() && r.jsonld == nil && !opts.NoGuess {
		r.guess()
	}
	r.decide()
	res.Took = opts.Now().Sub(res.Started)
	return res
}

func registrableDomain(host string) string {
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

// onSite reports whether u is a page of the company's own site.
func (r *run) onSite(u *url.URL) bool {
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	return h == r.site || strings.HasSuffix(h, "."+r.site)
}

func (r *run) left() int { return r.opts.RequestBudget - r.res.Requests }

// get asks g for raw and records the step.
func (r *run) get(raw, note string) (pipeline.Response, error) {
	return r.ask(raw, note, func() (pipeline.Response, error) { return r.g.Get(r.ctx, raw) })
}

// ask sends one request of raw with send and records the step.
func (r *run) ask(raw, note string, send func() (pipeline.Response, error)) (pipeline.Response, error) {
	if r.left() <= 0 {
		r.starved = true
		return pipeline.Response{}, errBudget
	}
	resp, err := send()
	sent := len(resp.Redirects)
	robots := errors.Is(err, pipeline.ErrRobotsDisallow) || errors.Is(err, pipeline.ErrRobotsUnavailable)
	if !robots {
		sent++
	}
	r.res.Requests += sent
	st := Step{URL: raw, Status: resp.Status, Note: note}
	switch {
	case err != nil:
		st.Status = 0
		st.Note = joinNote(note, shorten(err.Error()))
	case len(resp.Redirects) > 0:
		st.Note = joinNote(note, "redirected to "+resp.FinalURL)
	}
	r.res.Tried = append(r.res.Tried, st)
	return resp, err
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + ": " + b
}

func shorten(s string) string {
	if len(s) > 200 {
		return strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

// keptAny reports whether a validated ATS tenant was kept.
func (r *run) keptAny() bool {
	for _, cd := range r.cands {
		if cd.found.Evidence.Via != "" && cd.found.Rejected == "" {
			return true
		}
	}
	return false
}

// readSite reads the company's site until a tenant is kept, a JSON-LD page is found, or the
// page budget is spent.
func (r *run) readSite() {
	home := "https://" + r.domain + "/"
	r.base, _ = url.Parse(home)
	if resp, err := r.get("https://"+r.domain+"/robots.txt", "robots.txt"); err == nil && resp.Status/100 == 2 {
		r.sitemaps = sitemapLines(resp.Body, r)
	} else if err == nil && resp.Status >= 500 {
		r.failures = append(r.failures, fmt.Sprintf("robots.txt answered %d", resp.Status))
	}
	asked := home
	resp, err := r.get(home, "home page")
	r.pages++
	if err != nil && !isRobots(err) && !errors.Is(err, errBudget) && !strings.HasPrefix(r.domain, "www.") {
		// No answer at the apex (DNS, connection): the site may live on www. only.
		asked = "https://www." + r.domain + "/"
		resp, err = r.get(asked, "home page on www.")
		r.pages++
	}
	r.readPage(asked, resp, err)
	if final, perr := url.Parse(resp.FinalURL); perr == nil && err == nil && r.onSite(final) {
		r.base = &url.URL{Scheme: final.Scheme, Host: final.Host}
	}
	if !r.siteOK && len(r.blocked) == 0 {
		return // the site does not answer: nothing more to read there
	}
	r.seen[pageKey(r.base.String()+"/")] = true
	sitemapsRead := false
	fallback := slices.Clone(CommonPaths)
	for r.pages < r.opts.PageBudget && !r.keptAny() && r.jsonld == nil && r.left() > 0 {
		var next pending
		switch {
		case len(r.linked) > 0:
			next, r.linked = r.linked[0], r.linked[1:]
		case !sitemapsRead && len(r.sitemaps) > 0:
			sitemapsRead = true
			for _, sm := range r.sitemaps {
				if r.pages >= r.opts.PageBudget {
					break
				}
				r.readSitemap(sm, 0)
			}
			continue
		case len(fallback) > 0 && !r.careers:
			p := fallback[0]
			fallback = fallback[1:]
			u := r.base.ResolveReference(&url.URL{Path: p}).String()
			if r.seen[pageKey(u)] {
				continue
			}
			r.seen[pageKey(u)] = true
			next = pending{url: u, from: "common path"}
		default:
			return
		}
		resp, err := r.get(next.url, next.from)
		r.pages++
		r.readPage(next.url, resp, err)
		if err == nil && resp.Status/100 == 2 && next.from != "common path" {
			r.careers = true // the site's own careers page was read: the common paths would repeat it
		}
	}
}

func isRobots(err error) bool {
	return errors.Is(err, pipeline.ErrRobotsDisallow) || errors.Is(err, pipeline.ErrRobotsUnavailable)
}

// pageKey is what two URLs of the same page share: host, path without a trailing slash, query.
func pageKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/") + "?" + u.RawQuery
}

// readPage takes in one site page's answer: tenants its redirects name, and, for a page of the
// site, the tenants and careers links its markup names and its JobPosting JSON-LD.
func (r *run) readPage(asked string, resp pipeline.Response, err error) {
	for _, hop := range resp.Redirects {
		if b, ok := atsurl.Recognize(hop); ok {
			r.addCand(b, "", ViaRedirect, asked)
		} else if slug, ok := atsurl.JoinCompanySlug(hop); ok {
			cd := r.addCand(atsurl.Board{Vendor: atsurl.Join}, slug, ViaRedirect, asked)
			if err == nil && hop == resp.FinalURL && resp.Status == http.StatusOK && cd.joinPage == nil {
				page := resp
				cd.joinPage = &page // the redirect's end is the page: no need to ask it again
			}
		}
	}
	if err != nil {
		u, _ := url.Parse(resp.FinalURL)
		switch {
		case errors.Is(err, pipeline.ErrRobotsDisallow):
			if u != nil && r.onSite(u) {
				r.blocked = append(r.blocked, u.EscapedPath())
			}
		case errors.Is(err, errBudget):
		default:
			r.failures = append(r.failures, shorten(err.Error()))
		}
		r.validatePending()
		return
	}
	final, perr := url.Parse(resp.FinalURL)
	if perr != nil || !r.onSite(final) {
		r.validatePending()
		return
	}
	switch {
	case resp.Status >= 500:
		r.failures = append(r.failures, fmt.Sprintf("%s answered %d", final.EscapedPath(), resp.Status))
	case resp.Status/100 == 2:
		r.siteOK = true
		r.readPaths = append(r.readPaths, cmpOr(final.EscapedPath(), "/"))
		if isHTML(resp) {
			r.scanPage(asked, final, resp.Body)
		}
	default:
		r.siteOK = true // it answered (a 404 of a path that is not there)
	}
	r.validatePending()
}

func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

func isHTML(resp pipeline.Response) bool {
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	return strings.Contains(ct, "html") || (ct == "" && len(resp.Body) > 0 && strings.Contains(string(resp.Body[:min(len(resp.Body), 512)]), "<"))
}

// scanPage scans one page of the site.
func (r *run) scanPage(asked string, final *url.URL, body []byte) {
	page := final.String()
	sc := scan(body, final)
	for _, rf := range sc.refs {
		r.addCand(rf.board, rf.joinSlug, rf.via, page)
	}
	for _, l := range sc.links {
		u, err := url.Parse(l.url)
		if err != nil || !r.onSite(u) || !saysCareers(l) {
			continue
		}
		if k := pageKey(l.url); !r.seen[k] {
			r.seen[k] = true
			r.linked = append(r.linked, pending{url: l.url, from: "linked from " + page})
		}
	}
	if ad, ok := ats.For(atsurl.JSONLD); ok {
		if p, err := ad.Parse(body, page); err == nil && len(p.Postings) > 0 {
			name := ""
			for _, ps := range p.Postings {
				if ps.CompanyName != "" {
					name = ps.CompanyName
					break
				}
			}
			if r.jsonld == nil || len(p.Postings) > r.jsonld.jobs {
				r.jsonld = &ldPage{url: page, foundOn: asked, jobs: len(p.Postings), name: name}
			}
		}
	}
}

// addCand records a tenant the site names (once; its strongest evidence kept): a board, or a
// JOIN company page of joinSlug.
func (r *run) addCand(b atsurl.Board, joinSlug, via, foundOn string) *cand {
	for _, cd := range r.cands {
		if cd.joinSlug == joinSlug && (joinSlug != "" || cd.board == b) {
			if cd.found.Evidence.Via == "" && viaRank(via) < viaRank(cd.via) {
				cd.via, cd.foundOn = via, foundOn
			}
			return cd
		}
	}
	cd := &cand{board: b, joinSlug: joinSlug, via: via, foundOn: foundOn}
	r.cands = append(r.cands, cd)
	return cd
}

// validatePending validates the site's tenants not validated yet, up to maxValidations.
func (r *run) validatePending() {
	for _, cd := range r.cands {
		if cd.found.Evidence.Via != "" {
			continue
		}
		if r.checked >= maxValidations {
			r.reject(cd, RejectNotChecked)
			continue
		}
		r.checked++
		r.validate(cd)
	}
}

// readSitemap reads a sitemap (depth 0) or a sitemap it indexes (depth 1), queueing the entries
// that say careers or jobs.
func (r *run) readSitemap(raw string, depth int) {
	if r.seen[pageKey(raw)] || r.left() <= 0 {
		return
	}
	r.seen[pageKey(raw)] = true
	resp, err := r.get(raw, "sitemap")
	r.pages++
	if err != nil {
		if errors.Is(err, pipeline.ErrRobotsDisallow) {
			if u, perr := url.Parse(raw); perr == nil {
				r.blocked = append(r.blocked, u.EscapedPath())
			}
		}
		return
	}
	if resp.Status/100 != 2 {
		return
	}
	r.siteOK = true
	index, locs := sitemapLocs(resp.Body)
	for _, loc := range locs {
		u, perr := url.Parse(loc)
		if perr != nil || (u.Scheme != "https" && u.Scheme != "http") || !r.onSite(u) || !saysCareers(link{url: loc}) {
			continue
		}
		if index {
			if depth == 0 && r.pages < r.opts.PageBudget {
				r.readSitemap(loc, 1)
			}
			continue
		}
		if k := pageKey(loc); !r.seen[k] {
			r.seen[k] = true
			r.linked = append(r.linked, pending{url: loc, from: "sitemap " + raw})
		}
	}
}

// sitemapLines are the Sitemap: URLs of a robots.txt that are on the company's site (at most 3).
func sitemapLines(body []byte, r *run) []string {
	var out []string
	for _, line := range strings.Split(string(body), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "sitemap") {
			continue
		}
		u, err := url.Parse(strings.TrimSpace(v))
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || !r.onSite(u) {
			continue
		}
		if out = append(out, u.String()); len(out) == 3 {
			break
		}
	}
	return out
}

// sitemapLocs reads the <loc> entries of a sitemap (at most 10,000): index is true for a sitemap
// index (its entries are sitemaps).
func sitemapLocs(body []byte) (index bool, locs []string) {
	d := xml.NewDecoder(strings.NewReader(string(body)))
	d.Strict = false
	inLoc := false
	var text strings.Builder
	for len(locs) < 10000 {
		tok, err := d.Token()
		if err != nil { // the end, or where a broken sitemap stops making sense: keep what came before
			return index, locs
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "sitemapindex" {
				index = true
			}
			if t.Name.Local == "loc" {
				inLoc = true
				text.Reset()
			}
		case xml.CharData:
			if inLoc && text.Len() < 2048 {
				text.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local == "loc" && inLoc {
				inLoc = false
				locs = append(locs, strings.TrimSpace(text.String()))
			}
		}
	}
	return index, locs
}

// guess validates one guessed tenant per vendor, stopping at the first the vendor confirms by
// name.
func (r *run) guess() {
	label, _, _ := strings.Cut(strings.TrimPrefix(r.domain, "www."), ".")
	slug := slugOf(r.nameKey)
	for _, v := range guessVendors {
		if r.left() <= 0 {
			r.starved = true
			return
		}
		tenant := ""
		for _, t := range []string{label, slug} {
			if t == "" {
				continue
			}
			if canon, err := atsurl.Tenant(v, t); err == nil {
				tenant = canon
				break
			}
		}
		if tenant == "" || demoTenant(tenant) {
			continue
		}
		b := atsurl.Board{Vendor: v, Tenant: tenant}
		if slices.ContainsFunc(r.cands, func(cd *cand) bool { return cd.board == b && cd.joinSlug == "" }) {
			continue // validated already, as named by the site
		}
		cd := &cand{board: b, via: ViaGuess}
		r.cands = append(r.cands, cd)
		r.guessed++
		r.validate(cd)
		if cd.found.Rejected == "" && cd.found.Evidence.NameMatches && cd.found.Evidence.Jobs > 0 {
			return
		}
	}
}

// slugOf is s's letters and digits, lower-cased.
func slugOf(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func (r *run) reject(cd *cand, why string) {
	cd.found = Found{Kind: KindATSTenant, Vendor: cd.board.Vendor, Tenant: cd.board.Tenant, Variant: cd.board.Variant,
		Rejected: why, Evidence: Evidence{Via: cd.via, FoundOn: cd.foundOn}}
	if u, err := atsurl.FirstPage(cd.board.Vendor, cd.board.Tenant, cd.board.Variant); err == nil {
		cd.found.URL = u
	}
}

// candKey names cd in a reason: its source key, or the JOIN company page it was named by while
// the page was not read.
func candKey(cd *cand) string {
	if cd.joinSlug != "" && cd.board.Tenant == "" {
		u, _ := atsurl.JoinCompanyPage(cd.joinSlug)
		return strings.TrimPrefix(u, "https://")
	}
	return atsurl.SourceKey(cd.board.Vendor, cd.board.Tenant, cd.board.Variant, "")
}

// validate asks the vendor's endpoint about cd and fills cd.found: kept (Rejected "") or
// rejected with the reason. A JOIN company page is read first for the tenant it names.
func (r *run) validate(cd *cand) {
	if cd.joinSlug != "" && cd.board.Tenant == "" && !r.resolveJoin(cd) {
		return
	}
	b := cd.board
	r.reject(cd, "")
	f := &cd.found
	first, err := atsurl.FirstPage(b.Vendor, b.Tenant, b.Variant)
	if err != nil {
		f.Rejected = RejectInvalid
		return
	}
	if demoTenant(b.Tenant) {
		f.Rejected = RejectDemo // named as a demo: not worth a request
		return
	}
	ad, ok := ats.For(b.Vendor)
	if !ok {
		f.Rejected = RejectUnparsable
		return
	}
	key := atsurl.SourceKey(b.Vendor, b.Tenant, b.Variant, "")
	resp, err := r.askFirstPage(ad, first, "validate "+key)
	if r.answerRejected(f, first, resp, err) {
		return
	}
	page, err := ad.Parse(resp.Body, resp.FinalURL)
	if err != nil {
		f.Rejected = RejectUnparsable
		return
	}
	f.Evidence.Jobs = len(page.Postings)
	name := statedName(b.Vendor, resp.Body, page)
	if name == "" {
		name = cd.pageName // JOIN's list names no company; its company page did
	}
	if name == "" && b.Vendor == atsurl.Greenhouse && r.left() > 0 {
		// An empty Greenhouse board states its name on the board endpoint only.
		if bu, err := atsurl.BoardURL(b.Vendor, b.Tenant, b.Variant); err == nil {
			if bresp, err := r.get(bu, "board name "+key); err == nil && bresp.Status == http.StatusOK {
				name = jsonName(bresp.Body)
			}
		}
	}
	f.Evidence.DetectedName = name
	f.Evidence.NameMatches = name != "" && r.nameKey != "" && normalize.CompanyKey(name) == r.nameKey
	switch {
	case demoName(name):
		f.Rejected = RejectDemo
	case cd.via == ViaGuess && name != "" && r.nameKey != "" && !f.Evidence.NameMatches:
		f.Rejected = RejectNameMismatch // another company with the same slug
	case cd.via == ViaGuess && f.Evidence.Jobs == 0:
		f.Rejected = RejectEmpty // nothing shows that a guessed board is this company's
	}
}

// askFirstPage asks for a tenant's first page as its adapter would: a POST where the adapter's
// request is one (ats.Requester: Workday's list) and the Getter can send it (Poster), else a GET.
func (r *run) askFirstPage(ad ats.Adapter, first, note string) (pipeline.Response, error) {
	if rq, ok := ad.(ats.Requester); ok {
		if method, body, ctype := rq.Request(first); method == http.MethodPost {
			if p, ok := r.g.(Poster); ok {
				return r.ask(first, note, func() (pipeline.Response, error) { return p.Post(r.ctx, first, ctype, body) })
			}
		}
	}
	return r.get(first, note)
}

// answerRejected fills f's evidence of the answer to checked and, when the answer is no
// tenant's page (no answer, a redirect to the vendor's home, another status than 200), why it
// was rejected; it reports whether it was.
func (r *run) answerRejected(f *Found, checked string, resp pipeline.Response, err error) bool {
	if errors.Is(err, errBudget) {
		f.Rejected = RejectNotChecked
		return true
	}
	f.Evidence.CheckedURL, f.Evidence.FinalURL, f.Evidence.Status = checked, resp.FinalURL, resp.Status
	if err != nil {
		f.Evidence.Status = 0
	}
	for _, hop := range resp.Redirects {
		if _, home := atsurl.VendorHome(hop); home {
			f.Rejected = RejectVendorHome
			return true
		}
	}
	switch {
	case isRobots(err):
		f.Rejected = RejectRobots
	case err != nil:
		f.Rejected = RejectUnreachable
	case resp.Status == http.StatusNotFound || resp.Status == http.StatusGone:
		f.Rejected = RejectNotFound
	case resp.Status != http.StatusOK:
		f.Rejected = fmt.Sprintf("status_%d", resp.Status)
	}
	return f.Rejected != ""
}

// resolveJoin reads the JOIN company page cd names (unless a redirect already ended there) for
// the company's number, its tenant, and the name it states (ats.JoinCompany). It reports whether
// it found them; else cd is rejected with the reason.
func (r *run) resolveJoin(cd *cand) bool {
	r.reject(cd, "")
	f := &cd.found
	page, err := atsurl.JoinCompanyPage(cd.joinSlug)
	if err != nil {
		f.Rejected = RejectInvalid
		return false
	}
	var resp pipeline.Response
	if cd.joinPage != nil {
		resp = *cd.joinPage
	} else {
		resp, err = r.get(page, "company page "+page)
	}
	if r.answerRejected(f, page, resp, err) {
		return false
	}
	id, name, err := ats.JoinCompany(resp.Body, cd.joinSlug)
	if err != nil {
		f.Rejected = RejectUnparsable
		return false
	}
	cd.board.Tenant, cd.pageName = id, name
	return true
}

// statedName is the company name the vendor's answer states: a posting's company name (Greenhouse,
// Workable, SmartRecruiters, Recruitee, Personio), else Workable's account name.
func statedName(vendor string, body []byte, page ats.Page) string {
	for _, p := range page.Postings {
		if n := strings.TrimSpace(p.CompanyName); n != "" {
			return n
		}
	}
	if vendor == atsurl.Workable {
		return jsonName(body)
	}
	return ""
}

// decide sets what is active, adds the careers site, and says the outcome.
func (r *run) decide() {
	res := r.res
	perVendor := map[string]map[string]bool{}
	for _, cd := range r.cands {
		if cd.found.Rejected == "" && cd.via != ViaGuess {
			if perVendor[cd.board.Vendor] == nil {
				perVendor[cd.board.Vendor] = map[string]bool{}
			}
			perVendor[cd.board.Vendor][cd.board.Tenant+"\x00"+cd.board.Variant] = true
		}
	}
	var why []string // why kept candidates are not active
	kept := false
	for _, cd := range r.cands {
		f := &cd.found
		if f.Rejected == "" {
			kept = true
			mismatch := r.nameKey != "" && f.Evidence.DetectedName != "" && !f.Evidence.NameMatches
			switch {
			case cd.via == ViaGuess:
				f.Active = f.Evidence.NameMatches && f.Evidence.Jobs > 0
				if !f.Active {
					why = append(why, fmt.Sprintf("the guessed %s tenant %s states no company name to confirm it", f.Vendor, f.Tenant))
				}
			case len(perVendor[cd.board.Vendor]) > 1:
				why = append(why, fmt.Sprintf("the site names %d %s tenants", len(perVendor[cd.board.Vendor]), f.Vendor))
			case mismatch:
				why = append(why, fmt.Sprintf("%s tenant %s states the name %q", f.Vendor, f.Tenant, f.Evidence.DetectedName))
			default:
				f.Active = true
			}
		}
		res.Found = append(res.Found, *f)
	}
	if r.jsonld != nil {
		p := r.jsonld
		f := Found{Kind: KindCareersSite, Vendor: atsurl.JSONLD, URL: p.url, Evidence: Evidence{Via: ViaJSONLD, FoundOn: p.foundOn,
			CheckedURL: p.url, FinalURL: p.url, Status: http.StatusOK, Jobs: p.jobs, DetectedName: p.name}}
		f.Evidence.NameMatches = p.name != "" && r.nameKey != "" && normalize.CompanyKey(p.name) == r.nameKey
		switch {
		case kept:
			f.Rejected = RejectSuperseded
		case r.nameKey != "" && p.name != "" && !f.Evidence.NameMatches:
			kept = true
			why = append(why, fmt.Sprintf("the JobPostings of %s name %q", p.url, p.name))
		default:
			kept, f.Active = true, true
		}
		res.Found = append(res.Found, f)
	}
	active := slices.ContainsFunc(res.Found, func(f Found) bool { return f.Active })
	var parts []string
	if len(r.blocked) > 0 {
		parts = append(parts, fmt.Sprintf("robots.txt of %s disallows %s", r.domain, strings.Join(uniq(r.blocked), ", ")))
	}
	if !r.siteOK && len(r.blocked) == 0 {
		parts = append(parts, fmt.Sprintf("%s did not answer (%s)", r.domain, strings.Join(uniq(r.failures), "; ")))
	}
	switch {
	case active:
		res.Outcome = OutcomeCovered
		return
	case kept:
		res.Outcome = OutcomeCandidates
		parts = append([]string{"found sources an operator must confirm: " + strings.Join(uniq(why), "; ")}, parts...)
	case len(r.blocked) > 0:
		res.Outcome = OutcomeBlockedByRobots
	case !r.siteOK:
		res.Outcome = OutcomeUnreachable
	default:
		res.Outcome = OutcomeNoATS
	}
	parts = append(parts, r.tried())
	res.Reason = strings.Join(parts, "; ")
}

// tried says in one line what the run read and checked.
func (r *run) tried() string {
	var b strings.Builder
	fmt.Fprintf(&b, "read %d page(s) of %s", len(r.readPaths), r.domain)
	if len(r.readPaths) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(uniq(r.readPaths), ", "))
	}
	var rejected []string
	for _, cd := range r.cands {
		if cd.via != ViaGuess && cd.found.Rejected != "" {
			rejected = append(rejected, fmt.Sprintf("%s (%s)", candKey(cd), cd.found.Rejected))
		}
	}
	if len(rejected) > 0 {
		fmt.Fprintf(&b, ", rejected %s", strings.Join(rejected, ", "))
	} else {
		b.WriteString(", found no ATS tenant or JobPosting")
	}
	if r.guessed > 0 {
		fmt.Fprintf(&b, ", guessed %d tenant(s) and the vendors confirmed none", r.guessed)
	}
	if r.starved {
		fmt.Fprintf(&b, ", stopped at the budget of %d requests", r.opts.RequestBudget)
	}
	return b.String()
}

func uniq(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
