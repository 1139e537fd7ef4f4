// Package egress decides which addresses the service may send webhooks to: once when a URL is
// saved (CheckURL) and again on the address actually dialled (Control, Transport), so a name
// that resolves to a public address at save time and to a private one later (DNS rebinding)
// still cannot reach the service's own network.
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
	Resolver     *net.Resolver // nil: net.DefaultResolver

	// LookupNetIP resolves a host name for CheckURL; nil: Resolver.LookupNetIP with network "ip".
	// Tests set it to answer without DNS.
	LookupNetIP func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Refusal is why a URL or address is refused. Reason is a stable code; Msg is a sentence saying
// what to change. Neither repeats the URL (it may carry a token), only its host.
type Refusal struct{ Reason, Msg string }

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
	ReasonPrivateAddress = "private_address" // the host is, or resolves to, a non-public address
	ReasonUnresolvable   = "unresolvable"    // the name has no address
)

func refuse(reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// CheckURL validates a webhook URL at save time: a parseable absolute https URL (http too when
// AllowHTTP) of at most MaxURLLength printable ASCII characters, with a host and no user info.
// An IP host is read the way browsers and inet_aton read it (127.1, 2130706433, 0x7f000001 and
// 0177.0.0.1 are all 127.0.0.1) and must then be written in canonical form. Unless AllowPrivate,
// a host that is a non-public address, a localhost or private-use name, or a name any of whose
// addresses is non-public (see Public) is refused. A name must resolve, in every mode. Returns the
// parsed URL, a *Refusal, or ctx's error when resolution was cut short.
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
		if ip.String() != strings.TrimSuffix(host, ".") {
			return refuse(ReasonInvalidHost, "write the webhook URL's IPv4 address as four decimal numbers: %s", ip)
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
	addrs, err := p.lookup(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if isNotFound(err) {
			return refuse(ReasonUnresolvable, "the webhook URL's host %q does not resolve to an address; check the name", host)
		}
		return refuse(ReasonUnresolvable, "the webhook URL's host %q could not be resolved now; check the name or try again", host)
	}
	if len(addrs) == 0 {
		return refuse(ReasonUnresolvable, "the webhook URL's host %q does not resolve to an address; check the name", host)
	}
	if p.AllowPrivate {
		return nil
	}
	for _, a := range addrs {
		if !Public(a) {
			// The address is not named: it would tell callers what internal names resolve to.
			return refuse(ReasonPrivateAddress, "the webhook URL's host %q resolves to a loopback, private or otherwise non-public address; use a host with public addresses only", host)
		}
	}
	return nil
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
	return r.LookupNetIP(ctx, "ip", name)
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
