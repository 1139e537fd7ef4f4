package main

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/flagenv"
)

// --trusted-proxies names the peers whose X-Forwarded-For is read; --trust-forwarded-for, which
// trusted it from every peer, is refused with the flag to use instead.
func TestTrustedProxiesAreNamedAndTrustingEveryPeerIsRefused(t *testing.T) {
	t.Parallel()
	flags := func(args ...string) (*serveFlags, error) {
		fs := flagenv.New("serve", "")
		sf := addServeFlags(fs)
		require.NoError(t, parse(fs, args))
		return sf, sf.check()
	}
	sf, err := flags("--trusted-proxies", "10.0.0.0/8,192.0.2.7")
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32")}, sf.proxies)
	sf, err = flags()
	require.NoError(t, err)
	require.Empty(t, sf.proxies, "no proxy: every peer is the client")
	_, err = flags("--trust-forwarded-for")
	require.ErrorContains(t, err, "--trusted-proxies")
	_, err = flags("--trusted-proxies", "10.0.0.0/8,lb.internal")
	require.ErrorContains(t, err, "HS_TRUSTED_PROXIES")
}
