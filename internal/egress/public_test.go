package egress

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPublic(t *testing.T) {
	t.Parallel()
	f := func(in string, want bool) {
		t.Helper()
		require.Equal(t, want, Public(netip.MustParseAddr(in)), in)
	}
	f("93.184.216.34", true)
	f("8.8.8.8", true)
	f("1.1.1.1", true)
	f("100.63.255.255", true)
	f("100.128.0.0", true)
	f("172.15.255.255", true)
	f("172.32.0.0", true)
	f("223.255.255.255", true)
	f("2606:4700::1111", true)
	f("2a00:1450:4001:82a::200e", true)
	f("::ffff:93.184.216.34", true)
	f("2002:5db8:d822::1", true)

	f("0.0.0.0", false)
	f("0.1.2.3", false)
	f("10.255.255.255", false)
	f("100.64.0.1", false)
	f("100.127.255.255", false)
	f("127.0.0.1", false)
	f("127.255.255.254", false)
	f("169.254.169.254", false)
	f("172.16.0.1", false)
	f("172.31.255.255", false)
	f("192.0.0.8", false)
	f("192.0.2.1", false)
	f("192.88.99.1", false)
	f("192.168.1.1", false)
	f("198.18.0.1", false)
	f("198.19.255.255", false)
	f("198.51.100.1", false)
	f("203.0.113.1", false)
	f("224.0.0.1", false)
	f("239.255.255.250", false)
	f("240.0.0.1", false)
	f("255.255.255.255", false)

	f("::", false)
	f("::1", false)
	f("::ffff:127.0.0.1", false)
	f("::ffff:10.0.0.1", false)
	f("::ffff:169.254.169.254", false)
	f("::127.0.0.1", false)
	f("::93.184.216.34", false) // IPv4-compatible: deprecated, refused whatever it carries
	f("64:ff9b::7f00:1", false)
	f("64:ff9b::5db8:d822", false)
	f("64:ff9b:1::1", false)
	f("100::1", false)
	f("2001::1", false) // Teredo
	f("2001:2::1", false)
	f("2001:db8::1", false)
	f("2002:7f00:1::1", false)
	f("2002:a00:1::", false)
	f("3fff::1", false)
	f("5f00::1", false)
	f("fc00::1", false)
	f("fd00::1", false)
	f("fe80::1", false)
	f("fe80::1%eth0", false)
	f("fec0::1", false)
	f("ff02::1", false)
	f("2606:4700::1111%eth0", false) // a zone only means something on a local link
	require.False(t, Public(netip.Addr{}))
}

func TestParseIPv4(t *testing.T) {
	t.Parallel()
	f := func(in, want string) {
		t.Helper()
		ip, ok := parseIPv4(in)
		if want == "" {
			require.False(t, ok, "%s parsed as %s", in, ip)
			return
		}
		require.True(t, ok, in)
		require.Equal(t, want, ip.String(), in)
	}
	f("127.0.0.1", "127.0.0.1")
	f("127.1", "127.0.0.1")
	f("127.0.1", "127.0.0.1")
	f("2130706433", "127.0.0.1")
	f("0x7f000001", "127.0.0.1")
	f("0177.0.0.1", "127.0.0.1")
	f("0x7f.0.0.1", "127.0.0.1")
	f("0x7f.1", "127.0.0.1")
	f("017700000001", "127.0.0.1")
	f("127.0.0.1.", "127.0.0.1")
	f("0", "0.0.0.0")
	f("0x", "0.0.0.0")
	f("4294967295", "255.255.255.255")
	f("1.16777215", "1.255.255.255")
	f("4294967296", "")
	f("1.16777216", "")
	f("256.0.0.1", "")
	f("1.2.3.4.5", "")
	f("1..2", "")
	f("09", "")
	f("0xg", "")
	f("", "")
	f(".", "")
	f("99999999999999999999999", "")

	g := func(in string, want bool) {
		t.Helper()
		require.Equal(t, want, endsInNumber(in), in)
	}
	g("127.1", true)
	g("foo.123", true)
	g("foo.0x1f", true)
	g("foo.0x", true)
	g("1.2.3.4.", true)
	g("example.com", false)
	g("123.example", false)
	g("foo.0xg", false)
	g("0x1g", false)
	g(".", false)
}
