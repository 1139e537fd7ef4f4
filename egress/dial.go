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

// dialContext dials address through d, a host name in it made fully qualified outside dev (as
// CheckURL resolves it: the resolver's search domains never apply).
func (p Policy) dialContext(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(address); err == nil && !p.AllowPrivate && host != "" && !strings.HasSuffix(host, ".") {
			if _, err := netip.ParseAddr(host); err != nil {
				address = net.JoinHostPort(p.fqdn(host), port)
			}
		}
		return d.DialContext(ctx, network, address)
	}
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
