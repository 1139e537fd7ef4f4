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
//     without the trailing slash), or Greenhouse's board endpoint /v1/boards/{token}; anything
//     else 404s. Workday's list answers POST only, every other feed GET and HEAD (a 405 else).
//     The world's tenants are all on the vendors' main hosts, so the EU and .com variants 404;
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

// serveVendorHost serves a request to one of the vendors' API hosts.
func (w *World) serveVendorHost(rw http.ResponseWriter, r *http.Request, host string) {
	b, ok := atsurl.Recognize("https://" + host + r.URL.Path)
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
	// Workday's list is a POST, every other feed a GET.
	wantMethod := r.Method == http.MethodGet || r.Method == http.MethodHead
	if v == vWorkday {
		wantMethod = r.Method == http.MethodPost
	}
	p := r.URL.Path
	feed := p == want || v == vRecruitee && p+"/" == want || v == vJazzHR && p == want+"/"
	switch {
	case feed && !wantMethod:
		allow := "GET, HEAD"
		if v == vWorkday {
			allow = "POST"
		}
		rw.Header().Set("Allow", allow)
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
	case feed:
		w.serveTenant(rw, r, v, b.Tenant)
	case v == vGreenhouse && p == "/v1/boards/"+b.Tenant && wantMethod:
		w.serveGreenhouseBoard(rw, r, b.Tenant)
	default:
		notFound(rw)
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
	body := robotsAllow
	if hostMatches(w.cfg.RobotsDisallow, requestHost(r)) {
		body = robotsDisallow
	}
	w.writeBody(rw, r, []byte(body), "text/plain; charset=utf-8")
}

// HostNames lists every hostname the world answers on in host mode: the vendors' API hosts
// (atsurl.Hosts, wildcards included), the boards' hosts and AggregatorFeedHost. A TLS certificate
// for the world names exactly these.
func HostNames() []string {
	out := atsurl.Hosts()
	for _, b := range boardDefs {
		out = append(out, b.host)
	}
	return append(out, AggregatorFeedHost)
}
