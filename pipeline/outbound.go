package pipeline

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/internal/egress"
)

// DefaultUserAgent is the User-Agent sent when FetchConfig.UserAgent is empty: fine for the
// simulator, not for real hosts, which should be told who crawls them and how to reach them.
const DefaultUserAgent = "hiringsignal-crawler/0.1 (+https://hiringsignal.example/bot)"

// ConnectRoute is one parsed FetchConfig.ConnectTo entry: a dial for Host:Port (either empty:
// any) goes to Addr (ADDR:PORT) instead.
type ConnectRoute struct {
	Host, Port string
	Addr       string
}

// ParseConnectTo parses ConnectTo entries, each HOST:PORT=ADDR:PORT or curl's HOST:PORT:ADDR:PORT
// (an IPv6 address in brackets). HOST and PORT on the left may be empty (any host, any port);
// ADDR and PORT on the right may not. The error names the bad entry and the expected form.
func ParseConnectTo(entries []string) ([]ConnectRoute, error) {
	out := make([]ConnectRoute, 0, len(entries))
	for _, e := range entries {
		r, err := parseConnectRoute(strings.TrimSpace(e))
		if err != nil {
			return nil, fmt.Errorf("cannot parse connect-to entry %q: %s; write HOST:PORT=ADDR:PORT (or curl's HOST:PORT:ADDR:PORT), "+
				"e.g. boards-api.greenhouse.io:443=127.0.0.1:8443, an empty HOST or PORT on the left matching any", e, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseConnectRoute(e string) (ConnectRoute, error) {
	var r ConnectRoute
	left, right, ok := strings.Cut(e, "=")
	if !ok {
		// curl's form: HOST:PORT:ADDR:PORT, where HOST may be [v6].
		var err error
		if r.Host, right, err = cutHost(e); err != nil {
			return r, err
		}
		var found bool
		if r.Port, right, found = strings.Cut(right, ":"); !found {
			return r, fmt.Errorf("no ADDR:PORT after HOST:PORT")
		}
	} else {
		var err error
		var rest string
		if r.Host, rest, err = cutHost(left); err != nil {
			return r, err
		}
		r.Port = rest
		if strings.Contains(r.Port, ":") {
			return r, fmt.Errorf("%q is not HOST:PORT", left)
		}
	}
	if r.Port != "" {
		if n, err := strconv.Atoi(r.Port); err != nil || n < 1 || n > 65535 {
			return r, fmt.Errorf("port %q is not a number from 1 to 65535", r.Port)
		}
	}
	addr, port, err := net.SplitHostPort(right)
	if err != nil || addr == "" {
		return r, fmt.Errorf("%q is not ADDR:PORT", right)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return r, fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	r.Host = strings.ToLower(strings.TrimSuffix(r.Host, "."))
	r.Addr = net.JoinHostPort(addr, port)
	return r, nil
}

// cutHost splits "HOST:rest" (HOST possibly [v6] or empty) at the colon after HOST.
func cutHost(s string) (host, rest string, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 || len(s) == end+1 || s[end+1] != ':' {
			return "", "", fmt.Errorf("%q has no ]: after an IPv6 host", s)
		}
		return s[1:end], s[end+2:], nil
	}
	host, rest, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", fmt.Errorf("%q has no :PORT after HOST", s)
	}
	return host, rest, nil
}

// Matches reports whether the route maps a dial of host and port.
func (r ConnectRoute) Matches(host, port string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return (r.Host == "" || r.Host == host) && (r.Port == "" || r.Port == port)
}

// route is where a dial of address goes: the first matching route's Addr, or address itself
// (mapped false).
func route(routes []ConnectRoute, address string) (to string, mapped bool) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return address, false
	}
	for _, r := range routes {
		if r.Matches(host, port) {
			return r.Addr, true
		}
	}
	return address, false
}

// newTransport builds the fetcher's transport: no proxy; dials through the egress policy
// (AllowPrivate: anything) unless a ConnectTo route maps the address, in which case the route's
// address is dialled as given; TLS trusts the system roots and CAFile's certificates.
func newTransport(cfg FetchConfig) (*http.Transport, error) {
	routes, err := ParseConnectTo(cfg.ConnectTo)
	if err != nil {
		return nil, err
	}
	var tlsConf *tls.Config
	if cfg.CAFile != "" {
		roots, err := loadCAFile(cfg.CAFile)
		if err != nil {
			return nil, err
		}
		tlsConf = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	const dialTimeout = 5 * time.Second
	checked := egress.Policy{AllowHTTP: true, AllowPrivate: cfg.AllowPrivate}.DialContext(dialTimeout)
	direct := (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		if to, mapped := route(routes, address); mapped {
			return direct(ctx, network, to) // the operator's explicit choice: no egress check
		}
		return checked(ctx, network, address)
	}
	return &http.Transport{
		Proxy:               nil,
		DialContext:         dial,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConns:        cfg.PerHost * 4,
		MaxIdleConnsPerHost: cfg.PerHost,
		MaxConnsPerHost:     cfg.PerHost,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // we ask for gzip ourselves and decode with klauspost/compress
	}, nil
}

// loadCAFile is the system roots plus the certificates of the PEM bundle at path.
func loadCAFile(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the CA file %s: %w", path, err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("the CA file %s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", path)
	}
	return roots, nil
}
