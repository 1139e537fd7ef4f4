package egress

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

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

	// Names resolving to non-public addresses; every address counts.
	f("https://internal.example.io/", "private_address")
	f("https://meta.example.io/", "private_address")
	f("https://v6loop.example.io/", "private_address")
	f("https://mapped.example.io/", "private_address")
	f("https://rebind.example.com/", "private_address")
	f("https://nonexistent.example.net/", "unresolvable")
	f("https://empty.example.io/", "unresolvable")
}

func TestCheckURLDev(t *testing.T) {
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
	f("http://u:p@localhost/", "credentials")
}

func TestCheckURLResolutionCutShort(t *testing.T) {
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
	require.Equal(t, "unresolvable", reasonOf(t, err))
}
