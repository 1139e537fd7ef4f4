package pipeline

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// maxRedirects is the most redirects followed for one page (or robots.txt).
const maxRedirects = 5

// errRefused is a failure retrying will not fix this cycle: a redirect the crawler may not
// follow, or no turn at the host before the source's deadline.
type errRefused struct{ reason string }

func (e errRefused) Error() string { return e.reason }

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// registrable is host's registrable domain (eTLD+1: boards-api.greenhouse.io → greenhouse.io,
// acme.jobs.personio.de → personio.de), lower-cased; an IP address, or a name with none
// (localhost, a public suffix itself), stands for itself.
func registrable(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if _, err := netip.ParseAddr(host); err == nil {
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

// redirectScope is where a source's redirects may go: the registrable domain of its first URL,
// and its company's (a vendor's hosted board redirecting to the employer's careers site).
func redirectScope(src *Source) []string {
	scope := []string{}
	if u, err := url.Parse(src.URL); err == nil && u.Hostname() != "" {
		scope = append(scope, registrable(u.Hostname()))
	}
	if src.CompanyDomain != "" {
		scope = append(scope, registrable(src.CompanyDomain))
	}
	return scope
}

// redirectTarget resolves the Location of the response to cur, the redirect number hops+1,
// and checks it may be followed: at most maxRedirects, http(s), no https→http, and within one of
// the registrable domains of scope. The target keeps cur's fragment (a page's place, never sent)
// and drops the Location's own. A refusal says where it tried to go.
func redirectTarget(cur *url.URL, location string, hops int, scope []string) (*url.URL, error) {
	next, err := cur.Parse(location)
	if err != nil {
		return nil, errRefused{reason: fmt.Sprintf("redirect to an unparseable Location %.100q refused", location)}
	}
	host := next.Hostname()
	switch {
	case hops+1 > maxRedirects:
		return nil, errRefused{reason: fmt.Sprintf("redirect to %s refused: more than %d redirects", host, maxRedirects)}
	case next.Scheme != "http" && next.Scheme != "https" || host == "":
		return nil, errRefused{reason: fmt.Sprintf("redirect to %.100q refused: not an http(s) URL", location)}
	case cur.Scheme == "https" && next.Scheme == "http":
		return nil, errRefused{reason: fmt.Sprintf("redirect to %s refused: https to http", host)}
	}
	reg := registrable(host)
	for _, d := range scope {
		if d == reg {
			// The fragment is the page's own (a Workday page's offset), never the Location's: the
			// redirected page keeps its place.
			next.Fragment, next.RawFragment = cur.Fragment, cur.RawFragment
			return next, nil
		}
	}
	return nil, errRefused{reason: fmt.Sprintf("redirect to %s refused: off the source's domain (%s)", host, strings.Join(scope, ", "))}
}

// shortError is err's message for a failure reason: without the request URL a transport error
// repeats (the source is named beside it), at most 200 bytes.
func shortError(err error) string {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = strings.Replace(msg, ue.Error(), ue.Err.Error(), 1)
	}
	if len(msg) > 200 {
		msg = strings.ToValidUTF8(msg[:200], "") + "…"
	}
	return msg
}
