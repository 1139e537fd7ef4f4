package egress

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeDNS answers lookups from a table; a missing name is "no such host".
func fakeDNS(table map[string][]string) func(context.Context, string, string) ([]netip.Addr, error) {
	return func(_ context.Context, _, host string) ([]netip.Addr, error) {
		addrs, ok := table[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

var testDNS = map[string][]string{
	"example.com":         {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
	"hooks.example.com":   {"93.184.216.34"},
	"rebind.example.com":  {"93.184.216.34", "10.0.0.7"},
	"internal.example.io": {"192.168.1.10"},
	"meta.example.io":     {"169.254.169.254"},
	"v6loop.example.io":   {"::1"},
	"mapped.example.io":   {"::ffff:127.0.0.1"},
	"empty.example.io":    {},
	"my_host.example.com": {"93.184.216.34"},
}

func reasonOf(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var r *Refusal
	require.True(t, errors.As(err, &r), "error %v is not a *Refusal", err)
	require.NotEmpty(t, r.Msg)
	return r.Reason
}

func TestCheckURLProduction(t *testing.T) {
	t.Parallel()
	p := Policy{LookupNetIP: fakeDNS(testDNS)}
	f := func(in, want string) {
		t.Helper()
		u, err := p.CheckURL(context.Background(), in)
		require.Equal(t, want, reasonOf(t, err), "CheckURL(%q): %v", in, err)
		if want == "" {
			require.NotNil(t, u)
			require.Equal(t, "https", u.Scheme)
		} else {
			require.Nil(t, u)
			require.NotContains(t, err.Error(), "secret-token", "a refusal must not echo the URL")
		}
	}
	// Public addresses and names pass.
	f("https://93.184.216.34/hook", "")
	f("https://[2606:4700::1111]/x", "")
	f("https://example.com/hooks?token=abc", "")
	f("HTTPS://Example.COM./hooks", "")
	f("https://hooks.example.com:8443/h", "")
	f("https://my_host.example.com/", "")
	f("https://8.8.8.8:443/", "")
	f("https://[2002:5db8:d822::1]/", "") // 6to4 of 93.184.216.34

	// Shape.
	f("https://example.com/"+strings.Repeat("a", MaxURLLength), "too_long")
	f("http://example.com/hooks", "not_https")
	f("ftp://example.com/", "not_https")
	f("javascript:alert(1)", "not_absolute")
	f("https:example.com", "not_absolute")
	f("https:/example.com", "not_absolute")
	f("/hooks", "not_absolute")
	f("example.com/hooks", "not_absolute")
	f("", "not_absolute")
	f("https://user:secret-token@example.com/", "credentials")
	f("https://user@example.com/", "credentials")
	f("https:///hooks", "no_host")
	f("https://:443/hooks", "no_host")
	f("https://example.com:0/", "bad_port")
	f("https://example.com:70000/", "bad_port")
	f("https://example.com:port/", "invalid_url")
	f("https://exa mple.com/", "invalid_url")
	f("https://example.com/a b", "invalid_url")
	f("https://bücher.de/", "invalid_url")
	f("https://example.com/\n", "invalid_url")
	f("https://[::1/", "invalid_url")
	f("https://exa*mple.com/", "invalid_host")
	f("https://"+strings.Repeat("a", 64)+".com/", "invalid_host")
	f("https://a..com/", "invalid_host")
	f("https://256.1.1.1/", "invalid_host")
	f("https://93.184.216.34./", "invalid_host") // an address with a trailing dot is dialed as a name
	f("https://1.2.3.4.5/", "invalid_host")
	f("https://0x100000000/", "invalid_host")
	f("https://foo.0x/", "invalid_host")
	f("https://1.1.1.08/", "invalid_host")       // 08 is not octal
	f("https://0x5db8d822/", "invalid_host")     // public, but not written canonically
	f("https://93.184.216.034/", "invalid_host") // octal 034 is 28: not what it looks like

	// Loopback in every spelling.
	f("https://127.0.0.1/", "private_address")
	f("https://127.1/", "private_address")
	f("https://127.0.1/", "private_address")
	f("https://2130706433/", "private_address")
	f("https://0x7f000001/", "private_address")
	f("https://0X7F000001/", "private_address")
	f("https://0177.0.0.1/", "private_address")
	f("https://0x7f.1/", "private_address")
	f("https://127.0.0.1./", "private_address")
	f("https://%31%32%37.0.0.1/", "invalid_url") // Go refuses escapes of ASCII in a host
	f("https://[::1]/", "private_address")
	f("https://[0:0:0:0:0:0:0:1]:8443/", "private_address")
	f("https://[::ffff:127.0.0.1]/", "private_address")
	f("https://[::ffff:7f00:1]/", "private_address")
	f("https://[::127.0.0.1]/", "private_address")     // IPv4-compatible
	f("https://[64:ff9b::7f00:1]/", "private_address") // NAT64
	f("https://[2002:7f00:1::1]/", "private_address")  // 6to4 of 127.0.0.1
	f("https://localhost/", "private_address")
	f("https://LOCALHOST./", "private_address")
	f("https://localhost:8080/", "private_address")
	f("https://foo.localhost/", "private_address")
	f("https://printer.local/", "private_address")
	f("https://db.internal/", "private_address")
	f("https://router.home.arpa/", "private_address")

	// Unspecified, link-local, metadata, CGNAT, private, unique-local, multicast, broadcast.
	f("https://0.0.0.0/", "private_address")
	f("https://0/", "private_address")
	f("https://[::]/", "private_address")
	f("https://169.254.169.254/latest/meta-data/", "private_address")
	f("https://[fe80::1%25eth0]/", "private_address")
	f("https://[fe80::1]/", "private_address")
	f("https://100.64.0.1/", "private_address")
	f("https://10.0.0.1/", "private_address")
	f("https://172.16.0.1/", "private_address")
	f("https://192.168.0.1/", "private_address")
	f("https://3232235521/", "private_address") // 192.168.0.1
	f("https://[fd00::1]/", "private_address")
	f("https://[fc00::1]/", "private_address")
	f("https://224.0.0.1/", "private_address")
	f("https://[ff02::1]/", "private_address")
	f("https://255.255.255.255/", "private_address")
	f("https://192.0.2.1/", "private_address")
	f("https://[2001:db8::1]/", "private_address")

	// Names resolving to non-public addresses (every address counts) and names that do not
	// resolve: one reason.
	f("https://internal.example.io/", "no_public_address")
	f("https://meta.example.io/", "no_public_address")
	f("https://v6loop.example.io/", "no_public_address")
	f("https://mapped.example.io/", "no_public_address")
	f("https://rebind.example.com/", "no_public_address")
	f("https://nonexistent.example.net/", "no_public_address")
	f("https://empty.example.io/", "no_public_address")

	// Single labels are never looked up.
	f("https://postgres/", "private_address")
	f("https://postgres./", "private_address")
	f("https://redis:6379/", "private_address")
	f("https://com/", "private_address")
}

func TestCheckURLDev(t *testing.T) {
	t.Parallel()
	p := Policy{AllowHTTP: true, AllowPrivate: true, LookupNetIP: fakeDNS(map[string][]string{
		"localhost": {"127.0.0.1", "::1"}, "internal.example.io": {"192.168.1.10"},
	})}
	f := func(in, want string) {
		t.Helper()
		_, err := p.CheckURL(context.Background(), in)
		require.Equal(t, want, reasonOf(t, err), "CheckURL(%q): %v", in, err)
	}
	f("http://127.0.0.1:9000/hook", "")
	f("http://localhost:9000/hook", "")
	f("https://[::1]/", "")
	f("http://internal.example.io/", "")
	f("http://[fe80::1%25eth0]/", "")
	f("http://127.1/", "invalid_host") // allowed, but written canonically
	f("ftp://127.0.0.1/", "not_https")
	f("http://nonexistent.example.net/", "unresolvable")
	f("http://postgres/", "unresolvable") // a single label is looked up in dev: here it has no address
	f("http://u:p@localhost/", "credentials")
}

func TestCheckURLResolutionCutShort(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := Policy{LookupNetIP: func(ctx context.Context, _, host string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: ctx.Err().Error(), Name: host}
	}}
	_, err := p.CheckURL(ctx, "https://example.com/")
	require.ErrorIs(t, err, context.Canceled)

	p.LookupNetIP = func(context.Context, string, string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "server misbehaving", Name: "example.com", IsTemporary: true}
	}
	_, err = p.CheckURL(context.Background(), "https://example.com/")
	require.Equal(t, "no_public_address", reasonOf(t, err))
	p.AllowPrivate = true
	_, err = p.CheckURL(context.Background(), "https://example.com/")
	require.Equal(t, "unresolvable", reasonOf(t, err))
}

// Any key (the demo key too, through GET /v1/onboarding?webhook_url=) has URLs checked, and the
// refusal must not tell which names the service's resolver knows: a single label (postgres,
// redis) is refused before any lookup, and a name with a private address is answered exactly as
// one without an address, or whose lookup failed (the difference is kept in Cause, for logs).
func TestRefusalsDoNotMapInternalDNS(t *testing.T) {
	t.Parallel()
	looked := 0
	p := Policy{LookupNetIP: func(context.Context, string, string) ([]netip.Addr, error) {
		looked++
		return []netip.Addr{netip.MustParseAddr("10.0.0.5")}, nil
	}}
	for _, raw := range []string{"https://postgres/", "https://postgres:5432/x", "https://POSTGRES./"} {
		_, err := p.CheckURL(context.Background(), raw)
		require.Equal(t, ReasonPrivateAddress, reasonOf(t, err), raw)
	}
	require.Zero(t, looked, "a single label is never looked up")

	const url = "https://db.corp.example/hook"
	answers := map[string]func(context.Context, string, string) ([]netip.Addr, error){
		CausePrivateAddress: fakeDNS(map[string][]string{"db.corp.example": {"10.0.0.5"}}),
		"mixed":             fakeDNS(map[string][]string{"db.corp.example": {"93.184.216.34", "fd00::5"}}),
		CauseNoAddress:      fakeDNS(map[string][]string{}),
		"empty":             fakeDNS(map[string][]string{"db.corp.example": {}}),
		CauseLookupFailed: func(context.Context, string, string) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "server misbehaving", Name: "db.corp.example", IsTemporary: true}
		},
	}
	var first *Refusal
	for name, lookup := range answers {
		_, err := Policy{LookupNetIP: lookup}.CheckURL(context.Background(), url)
		var r *Refusal
		require.True(t, errors.As(err, &r), "%s: %v", name, err)
		require.Equal(t, ReasonNoPublicAddress, r.Reason, name)
		require.NotContains(t, r.Msg, "10.0.0.5", name)
		require.NotContains(t, r.Msg, "fd00", name)
		if first == nil {
			first = r
		}
		require.Equal(t, first.Msg, r.Msg, "%s is answered like the others", name)
		switch name {
		case "mixed":
			require.Equal(t, CausePrivateAddress, r.Cause)
		case "empty":
			require.Equal(t, CauseNoAddress, r.Cause)
		default:
			require.Equal(t, name, r.Cause)
		}
	}
}

// dnsServer is a DNS server over the connections a net.Resolver's Dial hook hands out: it answers
// every question "no such name" and records the names asked.
type dnsServer struct {
	mu    sync.Mutex
	names []string
}

func (s *dnsServer) dial(context.Context, string, string) (net.Conn, error) {
	client, server := net.Pipe()
	go func() {
		defer server.Close()
		for {
			var n [2]byte // a stream connection: each message after its 2-byte length
			if _, err := io.ReadFull(server, n[:]); err != nil {
				return
			}
			q := make([]byte, binary.BigEndian.Uint16(n[:]))
			if _, err := io.ReadFull(server, q); err != nil || len(q) < 12 {
				return
			}
			// The question's name: length-prefixed labels from byte 12, then type and class.
			i, name := 12, ""
			for i < len(q) && q[i] != 0 {
				l := int(q[i])
				if i+1+l > len(q) {
					return
				}
				name += string(q[i+1:i+1+l]) + "."
				i += 1 + l
			}
			end := i + 5
			if end > len(q) {
				return
			}
			s.mu.Lock()
			s.names = append(s.names, name)
			s.mu.Unlock()
			resp := append([]byte{}, q[:end]...)
			resp[2], resp[3] = 0x81, 0x83            // a response, recursion desired and available, NXDOMAIN
			binary.BigEndian.PutUint16(resp[4:], 1)  // the question
			binary.BigEndian.PutUint32(resp[6:], 0)  // no answer, no authority
			binary.BigEndian.PutUint16(resp[10:], 0) // no additional record
			out := binary.BigEndian.AppendUint16(nil, uint16(len(resp)))
			if _, err := server.Write(append(out, resp...)); err != nil {
				return
			}
		}
	}()
	return client, nil
}

func (s *dnsServer) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(s.names)))
}

// Outside dev a name is asked of the resolver fully qualified (a trailing dot), at save time and
// when a delivery dials it, so the resolver's search domains never turn db.svc into an internal
// db.svc.cluster.local. A dev policy asks the name as written.
func TestNamesAreResolvedFullyQualified(t *testing.T) {
	t.Parallel()
	var dns dnsServer
	r := &net.Resolver{PreferGo: true, Dial: dns.dial}
	_, err := Policy{Resolver: r}.CheckURL(context.Background(), "https://db.svc/hook")
	require.Equal(t, ReasonNoPublicAddress, reasonOf(t, err))
	require.Equal(t, []string{"db.svc."}, dns.asked())

	dns = dnsServer{}
	client := &http.Client{Transport: Policy{Resolver: r}.Transport(5 * time.Second)}
	_, err = client.Get("https://hooks.svc/hook")
	require.Error(t, err)
	require.Equal(t, []string{"hooks.svc."}, dns.asked())
}
