package egress

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Control is a net.Dialer Control function enforcing the policy on the address actually dialled
// (the dial-time check against DNS rebinding): unless AllowPrivate, a connection to an address
// that is not Public, or that is not an IP address and port, is refused with a *Refusal before
// it is made. With AllowPrivate it allows everything.
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	if p.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refuse(ReasonInvalidHost, "refusing to connect to %s over %s: not an IP address and port", address, network)
	}
	if !Public(ap.Addr()) {
		// The address is not named: the host may be a name the receiver's DNS points (by CNAME)
		// at an internal one, and the refusal is shown to the customer in the delivery log.
		return refuse(ReasonPrivateAddress, "refusing to connect: the host's address is a loopback, private or otherwise non-public address")
	}
	return nil
}

// Dialer returns a net.Dialer with the given connect timeout whose Control is p.Control and whose
// resolver is p.Resolver.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: p.Control, Resolver: p.Resolver}
}

// dialContext dials address through d. Outside dev a host name is resolved here, fully
// qualified (as CheckURL resolves it: the resolver's search domains never apply) and judged as
// CheckURL judges it, and the addresses judged are the ones dialled (in the resolver's order,
// the next after a failure). Whatever the resolver answered (no such name, a failure, a
// non-public address), the refusal is one ReasonNoPublicAddress sentence naming no address:
// it is shown to the customer in the delivery log, and the receiver's DNS may have been pointed
// (by CNAME) at a guessed internal name after the URL was saved, so telling the cases apart would
// say which internal names exist.
func (p Policy) dialContext(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil || p.AllowPrivate || host == "" {
			return d.DialContext(ctx, network, address)
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, address)
		}
		addrs, err := p.lookup(ctx, strings.TrimSuffix(host, "."))
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if cause := judge(addrs, err); cause != "" {
			r := refuse(ReasonNoPublicAddress, "refusing to connect: the host has no public address now (it does not resolve, could not be resolved, "+
				"or resolves to a loopback, private or otherwise non-public address)")
			r.Cause = cause
			return nil, r
		}
		var last error
		for _, a := range addrs {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			if last = err; ctx.Err() != nil {
				break
			}
		}
		return nil, last
	}
}

// DialContext is Transport's dial function on its own, for a client that builds its own
// transport (the crawl's fetcher): p.Dialer with the given connect timeout, and outside dev a
// host name resolved fully qualified and judged as CheckURL judges it, the addresses judged
// being the ones dialled. The caller still refuses proxies and checks every redirect target.
func (p Policy) DialContext(timeout time.Duration) func(ctx context.Context, network, address string) (net.Conn, error) {
	return p.dialContext(p.Dialer(timeout))
}

// Transport returns an http.Transport for webhook deliveries that dials through p.Dialer (a host
// name fully qualified outside dev, as CheckURL resolved it) and never uses a proxy (a proxy would make the dialled address the proxy's, not the receiver's). The
// caller still sets the client's per-attempt timeout and refuses redirects (CheckRedirect
// returning http.ErrUseLastResponse), since a redirect target was never checked.
func (p Policy) Transport(dialTimeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           p.dialContext(p.Dialer(dialTimeout)),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
