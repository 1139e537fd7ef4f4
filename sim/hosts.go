package sim

import (
	"net"
	"net/http"
	"strings"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

// Host routing: the world answers on the real hostnames, so a crawler reads the URLs it reads in
// production (atsurl.FirstPage, the boards' and the aggregator's own URLs) with a dial override to
// the simulator and a test CA. ServeMux host patterns cannot express wildcard subdomains
// ({t}.recruitee.com), so the router reads Host itself:
//
//   - the vendors' API hosts (atsurl.Hosts): the tenant named by atsurl.Recognize, when the path
//     is exactly the vendor's feed endpoint (FirstPage's path; Recruitee and JazzHR with or
//     without the trailing slash), or Greenhouse's board endpoint /v1/boards/{token}, or the
//     tenant's board page (atsurl.BoardPage); anything else 404s. Workday's list answers POST
//     only, every other feed and page GET and HEAD (a 405 else). The world's tenants are all on
//     the vendors' main hosts, so the EU, .com and Teamtailor's na variants 404; on join.com,
//     a company page /companies/{slug} (sites.go);
//   - a board's host: /jobs?page=N and, on a job-page board, /job/{id};
//   - AggregatorFeedHost: /v1/feed?region=R[&cursor=C];
//   - any other host: the simulator's own paths (/greenhouse/v1/boards/{t}/jobs, ...).
//
// /robots.txt and /_sim/* are served on every host.

// routeHosts puts the host router in front of mux (the simulator's own paths).
func (w *World) routeHosts(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/robots.txt" || strings.HasPrefix(p, "/_sim/") {
			mux.ServeHTTP(rw, r)
			return
		}
		host := requestHost(r)
		bi, onBoard := w.boardHosts[host]
		vendorHost := hostMatches(w.apiHosts, host)
		if !onBoard && !vendorHost && host != AggregatorFeedHost {
			if c, ok := w.siteCompany(host); ok {
				w.serveSite(rw, r, c, host)
				return
			}
			mux.ServeHTTP(rw, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !(vendorHost && r.Method == http.MethodPost) {
			rw.Header().Set("Allow", "GET, HEAD")
			http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		switch {
		case onBoard:
			switch id, isJob := strings.CutPrefix(p, "/job/"); {
			case p == "/jobs":
				w.serveBoard(rw, r, bi)
			case isJob && id != "" && !strings.Contains(id, "/"):
				w.serveJobPage(rw, r, bi, id)
			default:
				notFound(rw)
			}
		case host == AggregatorFeedHost:
			if p != "/v1/feed" {
				notFound(rw)
				return
			}
			w.serveAggregator(rw, r)
		default:
			w.serveVendorHost(rw, r, host)
		}
	})
}

// serveVendorHost serves a request to one of the vendors' hosts: a tenant's feed, Greenhouse's
// board endpoint and a tenant's board page (for the world's tenants and the vendors' demo
// tenants), JOIN's company pages, a redirect to the vendor's home page for a gone tenant (ending
// goneSuffix) of a vendor that sends one there, and the vendor's home page.
func (w *World) serveVendorHost(rw http.ResponseWriter, r *http.Request, host string) {
	p := r.URL.Path
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	if hv := vendorHomeHost(host); hv != vNone && p == "/" {
		if !get {
			rw.Header().Set("Allow", "GET, HEAD")
			http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.serveVendorHome(rw, r, hv)
		return
	}
	if slug, ok := atsurl.JoinCompanySlug("https://" + host + p); ok && host == "join.com" && strings.TrimSuffix(p, "/") == "/companies/"+slug {
		if !get {
			rw.Header().Set("Allow", "GET, HEAD")
			http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.serveJoinCompany(rw, r, slug)
		return
	}
	b, ok := atsurl.Recognize("https://" + host + p)
	if !ok || b.Variant != atsurl.VariantDefault {
		notFound(rw)
		return
	}
	v := vendorNamed(b.Vendor)
	first, err := atsurl.FirstPage(b.Vendor, b.Tenant, b.Variant)
	if v == vNone || err != nil {
		notFound(rw)
		return
	}
	want := first[len("https://"+host):]
	if i := strings.IndexByte(want, '?'); i >= 0 {
		want = want[:i]
	}
	var pageHost, pagePath string
	if page, err := atsurl.BoardPage(b.Vendor, b.Tenant, b.Variant); err == nil {
		pageHost, pagePath, _ = strings.Cut(strings.TrimPrefix(page, "https://"), "/")
		pagePath = "/" + pagePath
	}
	onPage := pageHost != "" && (host == pageHost || v == vGreenhouse && host == "boards.greenhouse.io") &&
		(p == pagePath || p+"/" == pagePath || p == pagePath+"/")
	onFeed := p == want || v == vRecruitee && p+"/" == want || v == vJazzHR && p == want+"/"
	onBoard := v == vGreenhouse && p == "/v1/boards/"+b.Tenant
	if !onPage && !onFeed && !onBoard {
		notFound(rw)
		return
	}
	// Workday's list is a POST; every other feed, and every page, a GET.
	switch {
	case onFeed && v == vWorkday && r.Method != http.MethodPost:
		rw.Header().Set("Allow", http.MethodPost)
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	case (!onFeed || v != vWorkday) && !get:
		rw.Header().Set("Allow", "GET, HEAD")
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if strings.HasSuffix(b.Tenant, goneSuffix) && goneHome(v) {
		home, _ := atsurl.HomePage(b.Vendor)
		http.Redirect(rw, r, home, http.StatusFound)
		return
	}
	tick := w.CurrentTick()
	c, demo := w.demoOf(v, b.Tenant)
	if !demo {
		idx, ok := w.tenants[v][b.Tenant]
		if !ok || w.companies[idx].vendorAt(tick) != v {
			notFound(rw)
			return
		}
		c = &w.companies[idx]
	}
	key := ""
	if !demo {
		key = tenantKey(c, v)
	}
	switch {
	case onFeed:
		w.serveFeed(rw, r, v, c, tick, key)
	case onBoard:
		w.serveBoardOf(rw, r, c)
	default:
		w.serveBoardPage(rw, r, c)
	}
}

// vendorNamed returns the vendor code of an atsurl vendor name (vNone when unknown).
func vendorNamed(name string) uint8 {
	for v, n := range vendorNames {
		if n == name && n != "" {
			return uint8(v)
		}
	}
	return vNone
}

// requestHost is r's host, lower-case, without port and trailing dot.
func requestHost(r *http.Request) string {
	h := r.Host
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ".")
	return strings.ToLower(h)
}

// hostMatches reports whether host is one of names: an exact name, or "*.suffix" for any single
// label in front of suffix.
func hostMatches(names []string, host string) bool {
	for _, n := range names {
		n = strings.ToLower(n)
		if suffix, wild := strings.CutPrefix(n, "*"); wild {
			if label, ok := strings.CutSuffix(host, suffix); ok && label != "" && !strings.Contains(label, ".") {
				return true
			}
			continue
		}
		if n == host {
			return true
		}
	}
	return false
}

const (
	robotsAllow    = "User-agent: *\nAllow: /\n"
	robotsDisallow = "User-agent: *\nDisallow: /\n"
)

// serveRobots serves /robots.txt on every host: allow everything, unless Config.RobotsDisallow
// names the host. It is never faulted.
func (w *World) serveRobots(rw http.ResponseWriter, r *http.Request) {
	if c, ok := w.siteCompany(requestHost(r)); ok && !hostMatches(w.apiHosts, requestHost(r)) {
		w.serveSite(rw, r, c, requestHost(r)) // a company's own robots.txt (sites.go)
		return
	}
	body := robotsAllow
	if hostMatches(w.cfg.RobotsDisallow, requestHost(r)) {
		body = robotsDisallow
	}
	w.writeBody(rw, r, []byte(body), "text/plain; charset=utf-8")
}

// HostNames lists every hostname the world answers on in host mode but the companies' own sites:
// the vendors' API hosts (atsurl.Hosts, wildcards included), their board and home pages
// (atsurl.PageHosts), the boards' hosts and AggregatorFeedHost. A TLS certificate for the world
// names exactly these; the companies' sites (World.ServesSite) take one each, issued on demand.
func HostNames() []string {
	out := append(atsurl.Hosts(), atsurl.PageHosts()...)
	for _, b := range boardDefs {
		out = append(out, b.host)
	}
	return append(out, AggregatorFeedHost)
}
