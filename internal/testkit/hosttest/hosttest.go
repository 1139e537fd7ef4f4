// Package hosttest serves a handler on real hostnames for tests: over TLS on loopback, with a
// certificate from a fresh test CA (internal/testca) naming the given hosts and, when sites is
// set, a certificate issued on demand for every other name sites accepts (a simulated world's
// companies' own domains). A crawler reaches it the way `--connect-to :443=ADDR --ca-file CA.pem`
// does in production. It is imported by tests only; it owns no world and no crawl.
package hosttest

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testca"
)

// Serve serves h over TLS for hosts (exact names or one-label wildcards) and, when sites is not
// nil, any name sites accepts, until the test ends. It returns the --connect-to value that sends
// every :443 dial to it and the path of the CA's PEM file.
func Serve(tb testing.TB, h http.Handler, hosts []string, sites func(host string) bool) (connectTo []string, caFile string) {
	tb.Helper()
	ca, err := testca.New()
	require.NoError(tb, err)
	leaf, err := ca.Leaf(hosts)
	require.NoError(tb, err)
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	if sites != nil {
		ts.TLS.GetCertificate = ca.GetCertificate(sites)
	}
	ts.StartTLS()
	tb.Cleanup(ts.Close)
	caFile = filepath.Join(tb.TempDir(), "ca.pem")
	require.NoError(tb, ca.WritePEM(caFile))
	return []string{":443=" + ts.Listener.Addr().String()}, caFile
}
