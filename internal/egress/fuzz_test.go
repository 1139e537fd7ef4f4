package egress

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// FuzzCheckURL: no input panics; every refusal is a *Refusal that does not repeat the URL's
// path or query; and an accepted URL's host is a name or a canonical public address, never a
// private one in some spelling the parser let through. Names "resolve" to 10.0.0.1 unless they
// end in ".pub", so an accepted name must be one of those. No single label is ever looked up.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.pub/hook", "https://127.1/", "https://2130706433/", "https://0x7f000001/",
		"https://[::ffff:127.0.0.1]/", "https://[fe80::1%25eth0]/", "https://user:pw@example.pub/", "http://example.pub/",
		"https://93.184.216.34/x?token=secret", "https://LOCALHOST./", "https://a.localhost/", "https://%31%32%37.0.0.1/"} {
		f.Add(s)
	}
	var looked []string // fuzz functions run one at a time in a worker
	p := Policy{LookupNetIP: func(_ context.Context, _, host string) ([]netip.Addr, error) {
		looked = append(looked, host)
		if strings.HasSuffix(strings.ToLower(host), ".pub") {
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("10.0.0.1")}, nil
	}}
	f.Fuzz(func(t *testing.T, raw string) {
		looked = looked[:0]
		u, err := p.CheckURL(context.Background(), raw)
		for _, h := range looked {
			if !strings.Contains(h, ".") {
				t.Fatalf("CheckURL(%q) looked up the single label %q", raw, h)
			}
		}
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("CheckURL(%q): error %v is not a *Refusal", raw, err)
			}
			if i := strings.Index(raw, "?"); i >= 0 && len(raw)-i > 8 && strings.Contains(r.Msg, raw[i:]) {
				t.Fatalf("CheckURL(%q): the refusal repeats the query: %q", raw, r.Msg)
			}
			return
		}
		if u.Scheme != "https" || u.User != nil {
			t.Fatalf("CheckURL(%q) accepted scheme %q / user info", raw, u.Scheme)
		}
		host := u.Hostname()
		if ip, perr := netip.ParseAddr(host); perr == nil {
			if !Public(ip) {
				t.Fatalf("CheckURL(%q) accepted the non-public address %s", raw, ip)
			}
			return
		}
		if !strings.HasSuffix(strings.ToLower(strings.TrimSuffix(host, ".")), ".pub") { // names are case-insensitive
			t.Fatalf("CheckURL(%q) accepted the name %q, which resolves to a private address", raw, host)
		}
	})
}
