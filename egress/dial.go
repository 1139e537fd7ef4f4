package egress

import (
	"net"
	"net/http"
	"net/netip"
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
		return refuse(ReasonPrivateAddress, "refusing to connect to %s: a loopback, private or otherwise non-public address", ap.Addr())
	}
	return nil
}

// Dialer returns a net.Dialer with the given connect timeout whose Control is p.Control.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: p.Control}
}

// Transport returns an http.Transport for webhook deliveries that dials through p.Dialer and never
// uses a proxy (a proxy would make the dialled address the proxy's, not the receiver's). The
// caller still sets the client's per-attempt timeout and refuses redirects (CheckRedirect
// returning http.ErrUseLastResponse), since a redirect target was never checked.
func (p Policy) Transport(dialTimeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           p.Dialer(dialTimeout).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
