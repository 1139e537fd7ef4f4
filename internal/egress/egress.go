// Package egress decides which addresses the service may send webhooks to: once when a URL is
// saved (CheckURL) and again on the address actually dialled (Control, Transport), so a name
// that resolves to a public address at save time and to a private one later (DNS rebinding)
// still cannot reach the service's own network. The crawl's fetcher dials the sources through
// the same dial-time check (DialContext).
//
// Outside dev (AllowPrivate) a name is resolved as a fully qualified name (a trailing dot: the
// resolver's search domains never apply) and must hold a dot, and what the resolver answered is
// never told apart to the caller: a name without an address and one with a private address are
// refused alike (ReasonNoPublicAddress), so webhook URLs cannot map the service's internal DNS.
//
// It owns the rules (which schemes, hosts and address ranges are allowed) and nothing else: it
// must not store URLs, send requests or know about customers, and it holds no mutable state.
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// MaxURLLength is the longest webhook URL accepted, in bytes (URLs are ASCII).
const MaxURLLength = 2048

// Policy says what webhook URLs may name. The zero value is the production policy: https only,
// public addresses only.
type Policy struct {
	AllowHTTP    bool          // dev: http:// allowed besides https://
	AllowPrivate bool          // dev: loopback/private hosts allowed
	Resolver     *net.Resolver // for CheckURL and the Dialer; nil: net.DefaultResolver

	// LookupNetIP resolves a host name for CheckURL; nil: Resolver.LookupNetIP with network "ip"
	// and, outside dev, the name made fully qualified (a trailing dot). It is given the name
	// without a trailing dot. Tests set it to answer without DNS.
	LookupNetIP func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Refusal is why a URL or address is refused. Reason is a stable code; Msg is a sentence saying
// what to change. Neither repeats the URL (it may carry a token), only its host. Cause is for logs
// and metrics only, never for the caller: on a ReasonNoPublicAddress refusal, what the resolver
// answered (CauseNoAddress, CausePrivateAddress or CauseLookupFailed); "" otherwise.
type Refusal struct{ Reason, Msg, Cause string }

func (r *Refusal) Error() string { return r.Msg }

// The Reason codes of a Refusal.
const (
	ReasonTooLong        = "too_long"        // longer than MaxURLLength
	ReasonInvalidURL     = "invalid_url"     // not parseable, or characters that must be percent-encoded
	ReasonNotAbsolute    = "not_absolute"    // no scheme, or not scheme://host
	ReasonNotHTTPS       = "not_https"       // a scheme other than https (or http when AllowHTTP)
	ReasonCredentials    = "credentials"     // user info (user:password@) in the URL
	ReasonNoHost         = "no_host"         // empty host
	ReasonInvalidHost    = "invalid_host"    // not a DNS name or an IP address in canonical form
	ReasonBadPort        = "bad_port"        // port 0 or above 65535
	ReasonPrivateAddress = "private_address" // the host is a non-public address, or a name only a private network resolves (localhost, *.internal, a single label); dev: nothing
	// ReasonNoPublicAddress (outside dev): the name has no address, could not be resolved, or has
	// a non-public address. One reason and one message for all of them: telling them apart
	// would tell callers which internal names exist.
	ReasonNoPublicAddress = "no_public_address"
	ReasonUnresolvable    = "unresolvable" // dev only: the name has no address
)

// The Cause of a ReasonNoPublicAddress refusal: what the resolver answered.
const (
	CauseNoAddress      = "no_address"      // no such name, or no address
	CausePrivateAddress = "private_address" // an address that is not Public
	CauseLookupFailed   = "lookup_failed"   // the resolver failed (timeout, server failure)
)

func refuse(reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// CheckURL validates a webhook URL at save time: a parseable absolute https URL (http too when
// AllowHTTP) of at most MaxURLLength printable ASCII characters, with a host and no user info.
// An IP host is read the way browsers and inet_aton read it (127.1, 2130706433, 0x7f000001 and
// 0177.0.0.1 are all 127.0.0.1) and must then be written in canonical form. Unless AllowPrivate,
// a host that is a non-public address, a localhost or private-use name, a single-label name, or a
// name that does not resolve (as a fully qualified name) to public addresses only (see Public) is
// refused; the last is one refusal whatever the resolver answered. A dev policy still refuses a
// name that does not resolve (ReasonUnresolvable). Returns the parsed URL, a *Refusal, or ctx's
// error when resolution was cut short.
func (p Policy) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	if len(raw) > MaxURLLength {
		return nil, refuse(ReasonTooLong, "the webhook URL is %d characters long; at most %d are accepted", len(raw), MaxURLLength)
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] <= ' ' || raw[i] >= 0x7f {
			return nil, refuse(ReasonInvalidURL, "the webhook URL holds a space, a control or a non-ASCII character at byte %d; percent-encode it (international host names in punycode)", i)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refuse(ReasonInvalidURL, "the webhook URL cannot be parsed; send an absolute URL such as https://example.com/hooks")
	}
	if !u.IsAbs() || u.Opaque != "" || !strings.HasPrefix(raw[len(u.Scheme)+1:], "//") {
		return nil, refuse(ReasonNotAbsolute, "the webhook URL must be absolute, such as https://example.com/hooks")
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !p.AllowHTTP) {
		return nil, refuse(ReasonNotHTTPS, "the webhook URL must use https://, not %s://", u.Scheme)
	}
	if u.User != nil {
		return nil, refuse(ReasonCredentials, "the webhook URL must not carry credentials (user:password@); deliveries are authenticated by their signature")
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, refuse(ReasonNoHost, "the webhook URL has no host; send an absolute URL such as https://example.com/hooks")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, refuse(ReasonBadPort, "the webhook URL's port must be between 1 and 65535")
		}
	}
	if err := p.checkHost(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkHost applies the address rules to u's host.
func (p Policy) checkHost(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return refuse(ReasonInvalidHost, "the webhook URL's host is not a valid IPv6 address")
		}
		return p.checkAddr(host, ip)
	}
	host = strings.ToLower(host)
	if endsInNumber(host) {
		ip, ok := parseIPv4(host)
		if !ok {
			return refuse(ReasonInvalidHost, "the webhook URL's host %q is neither an IPv4 address nor a name", host)
		}
		if err := p.checkAddr(host, ip); err != nil {
			return err
		}
		// Canonical only, without a trailing dot either: "1.2.3.4." is no address to the dialer,
		// which would look it up as a name, so it would be saved as one thing and dialed as another.
		if ip.String() != host {
			return refuse(ReasonInvalidHost, "write the webhook URL's IPv4 address as four decimal numbers, with no trailing dot: %s", ip)
		}
		return nil
	}
	name := strings.TrimSuffix(host, ".")
	if !validName(name) {
		return refuse(ReasonInvalidHost, "the webhook URL's host %q is not a valid DNS name (letters, digits, hyphens and underscores in dot-separated labels of at most 63 characters; international names in punycode)", host)
	}
	if !p.AllowPrivate && privateName(name) {
		return refuse(ReasonPrivateAddress, "the webhook URL's host %q names this machine or a private network; use a public host name", host)
	}
	if !p.AllowPrivate && !strings.Contains(name, ".") {
		// Only a resolver's search domains, its hosts file or a private network give a single
		// label an address: never asked, so it cannot probe them.
		return refuse(ReasonPrivateAddress, "the webhook URL's host %q is a single label (no dot), which only a private network resolves; use a fully qualified public host name such as hooks.example.com", host)
	}
	addrs, err := p.lookup(ctx, name)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if p.AllowPrivate {
		switch {
		case err != nil && !isNotFound(err):
			return refuse(ReasonUnresolvable, "the webhook URL's host %q could not be resolved now; check the name or try again", host)
		case err != nil || len(addrs) == 0:
			return refuse(ReasonUnresolvable, "the webhook URL's host %q does not resolve to an address; check the name", host)
		}
		return nil
	}
	if cause := judge(addrs, err); cause != "" {
		// One answer whatever the resolver said, naming no address: anything else would tell
		// callers which internal names exist and what they resolve to.
		r := refuse(ReasonNoPublicAddress, "the webhook URL's host %q has no public address: it does not resolve (or could not be resolved now), "+
			"or resolves to a loopback, private or otherwise non-public address; use a host name with public addresses only, or try again later", host)
		r.Cause = cause
		return r
	}
	return nil
}

// judge is the Cause a name's resolution (addrs, err) is refused for outside dev, "" when it
// has addresses and every one is Public.
func judge(addrs []netip.Addr, err error) string {
	switch {
	case err != nil && !isNotFound(err):
		return CauseLookupFailed
	case err != nil || len(addrs) == 0:
		return CauseNoAddress
	}
	for _, a := range addrs {
		if !Public(a) {
			return CausePrivateAddress
		}
	}
	return ""
}

func (p Policy) checkAddr(host string, ip netip.Addr) error {
	if p.AllowPrivate || Public(ip) {
		return nil
	}
	return refuse(ReasonPrivateAddress, "the webhook URL's host %s is a loopback, private or otherwise non-public address; use a public address or host name", host)
}

func (p Policy) lookup(ctx context.Context, name string) ([]netip.Addr, error) {
	if p.LookupNetIP != nil {
		return p.LookupNetIP(ctx, "ip", name)
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	return r.LookupNetIP(ctx, "ip", p.fqdn(name))
}

// fqdn is name (without a trailing dot) as the resolver is asked it: outside dev, fully qualified
// (a trailing dot), so the resolver's search domains never apply (db.svc never becomes
// db.svc.cluster.local); in dev, as written.
func (p Policy) fqdn(name string) string {
	if p.AllowPrivate {
		return name
	}
	return name + "."
}

func isNotFound(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

// privateName reports names that always mean this machine or a private network: localhost and
// its subdomains (RFC 6761), and the private-use suffixes .local (mDNS), .internal and .home.arpa.
func privateName(name string) bool {
	for _, s := range []string{"localhost", "local", "internal", "home.arpa"} {
		if name == s || strings.HasSuffix(name, "."+s) {
			return true
		}
	}
	return false
}

// validName reports whether name (lower case, no trailing dot) is a DNS name of at most 253
// characters in labels of 1 to 63 letters, digits, hyphens and underscores.
func validName(name string) bool {
	if name == "" || len(name) > 253 {
		return false
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}
