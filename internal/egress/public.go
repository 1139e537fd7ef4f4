package egress

import "net/netip"

// nonPublic4 are the IPv4 ranges no webhook may reach: this host and "this network", private
// (RFC 1918), shared CGNAT space, loopback, link-local (cloud metadata at 169.254.169.254), IETF
// protocol assignments, documentation, the deprecated 6to4 relay anycast, benchmarking, multicast
// and the reserved 240/4 (broadcast included). From the IANA IPv4 special-purpose registry.
var nonPublic4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// global6 is the IPv6 global unicast space; every address outside it (unspecified, loopback,
// IPv4-compatible, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, discard 100::/64, unique-local fc00::/7,
// link-local fe80::/10, site-local fec0::/10, multicast ff00::/8) is refused.
var global6 = netip.MustParsePrefix("2000::/3")

// nonPublic6 are the special-purpose blocks inside global6: IETF protocol assignments (Teredo and
// benchmarking included), documentation (2001:db8::/32, 3fff::/20) and SRv6 SIDs.
var nonPublic6 = []netip.Prefix{
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
	netip.MustParsePrefix("5f00::/16"),
}

// sixToFour is 2002::/16, whose addresses embed an IPv4 address in bits 16 to 47.
var sixToFour = netip.MustParsePrefix("2002::/16")

// Public reports whether ip is a public unicast address: false for loopback, private (RFC 1918),
// link-local, CGNAT 100.64/10, unique-local fc00::/7, multicast, unspecified, broadcast,
// documentation, benchmarking and reserved ranges, and for an address with a zone. An IPv4-mapped
// address (::ffff:a.b.c.d) and a 6to4 address (2002:aabb:ccdd::/48) are judged by the IPv4
// address they carry; IPv4-compatible and NAT64 addresses are refused whatever they carry.
func Public(ip netip.Addr) bool {
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	if ip.Is4In6() {
		ip = ip.Unmap()
	}
	if ip.Is4() {
		for _, p := range nonPublic4 {
			if p.Contains(ip) {
				return false
			}
		}
		return true
	}
	if !global6.Contains(ip) {
		return false
	}
	for _, p := range nonPublic6 {
		if p.Contains(ip) {
			return false
		}
	}
	if sixToFour.Contains(ip) {
		b := ip.As16()
		return Public(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	return true
}
