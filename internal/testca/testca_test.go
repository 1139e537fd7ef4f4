package testca

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// dialTo is a transport that dials addr whatever host a URL names (curl's --connect-to).
func dialTo(addr string, roots *x509.CertPool) *http.Transport {
	var d net.Dialer
	return &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{RootCAs: roots},
	}
}

func TestALeafServesTheRealHostnamesToAClientTrustingThePool(t *testing.T) {
	t.Parallel()
	ca, err := New()
	require.NoError(t, err)
	leaf, err := ca.Leaf([]string{"api.lever.co", "*.recruitee.com", "127.0.0.1"})
	require.NoError(t, err)

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		io.WriteString(rw, "hello "+r.Host)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()

	client := &http.Client{Transport: dialTo(addr, ca.Pool()), Timeout: 10 * time.Second}
	for _, u := range []string{"https://api.lever.co/v0/postings/acme", "https://acme.recruitee.com/api/offers/", "https://127.0.0.1/"} {
		resp, err := client.Get(u)
		require.NoError(t, err, u)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, u)
		require.Contains(t, string(body), "hello ", u)
	}

	// A name the leaf does not carry fails verification even with the pool.
	_, err = client.Get("https://api.ashbyhq.com/")
	require.Error(t, err)
	var hostErr x509.HostnameError
	require.ErrorAs(t, err, &hostErr)
	// A wildcard covers one label only.
	_, err = client.Get("https://a.b.recruitee.com/")
	require.ErrorAs(t, err, &hostErr)

	// A client without the pool (the system roots) refuses the certificate.
	plain := &http.Client{Transport: dialTo(addr, nil), Timeout: 10 * time.Second}
	_, err = plain.Get("https://api.lever.co/v0/postings/acme")
	require.Error(t, err)
	var unknown x509.UnknownAuthorityError
	require.ErrorAs(t, err, &unknown)

	// Nor does a client trusting another CA.
	other, err := New()
	require.NoError(t, err)
	stranger := &http.Client{Transport: dialTo(addr, other.Pool()), Timeout: 10 * time.Second}
	_, err = stranger.Get("https://api.lever.co/v0/postings/acme")
	require.ErrorAs(t, err, &unknown)
}

func TestWritePEMWritesTheCertificateOnly(t *testing.T) {
	t.Parallel()
	ca, err := New()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, ca.WritePEM(path))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)

	block, rest := pem.Decode(raw)
	require.NotNil(t, block)
	require.Equal(t, "CERTIFICATE", block.Type)
	require.Empty(t, rest, "one block: the certificate, no key")
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	require.True(t, cert.IsCA)
	require.True(t, cert.Equal(ca.Certificate()))

	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(raw))
	leaf, err := ca.Leaf([]string{"boards-api.greenhouse.io"})
	require.NoError(t, err)
	_, err = leaf.Leaf.Verify(x509.VerifyOptions{DNSName: "boards-api.greenhouse.io", Roots: pool})
	require.NoError(t, err)
}

func TestLeafIsValidAroundNowAndRefusesBadHosts(t *testing.T) {
	t.Parallel()
	ca, err := New()
	require.NoError(t, err)
	leaf, err := ca.Leaf([]string{"*.jobs.personio.de", "::1"})
	require.NoError(t, err)
	now := time.Now()
	require.True(t, leaf.Leaf.NotBefore.Before(now.Add(-time.Hour)))
	require.True(t, leaf.Leaf.NotAfter.After(now.Add(48*time.Hour)))
	require.False(t, leaf.Leaf.NotAfter.After(ca.Certificate().NotAfter))
	require.Equal(t, []string{"*.jobs.personio.de"}, leaf.Leaf.DNSNames)
	require.Len(t, leaf.Leaf.IPAddresses, 1)
	require.Len(t, leaf.Certificate, 2, "the chain carries the CA certificate")

	for _, bad := range [][]string{nil, {""}, {"a..b"}, {"*.*.example"}, {"a*.example"}, {"-a.example"}, {"a b.example"}, {"a/b"}} {
		_, err := ca.Leaf(bad)
		require.Error(t, err, "%q", bad)
	}
}

func TestGetCertificateIssuesALeafPerAllowedName(t *testing.T) {
	t.Parallel()
	ca, err := New()
	require.NoError(t, err)
	leaf, err := ca.Leaf([]string{"api.lever.co"})
	require.NoError(t, err)
	allowed := map[string]bool{"acme.com": true, "www.acme.com": true, "brightwell.co.uk": true}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		io.WriteString(rw, "hello "+r.Host)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}, GetCertificate: ca.GetCertificate(func(h string) bool { return allowed[h] })}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: dialTo(srv.Listener.Addr().String(), ca.Pool()), Timeout: 10 * time.Second}
	for _, u := range []string{"https://acme.com/", "https://www.acme.com/careers", "https://brightwell.co.uk/", "https://api.lever.co/v0/postings/acme", "https://ACME.com/"} {
		resp, err := client.Get(u)
		require.NoError(t, err, u)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, u)
	}
	// A name neither allowed nor on the static leaf gets the static leaf, which does not name it.
	_, err = client.Get("https://evil.example/")
	var hostErr x509.HostnameError
	require.ErrorAs(t, err, &hostErr)

	// One leaf per name: a second handshake reuses it.
	get := ca.GetCertificate(func(h string) bool { return allowed[h] })
	a, err := get(&tls.ClientHelloInfo{ServerName: "acme.com"})
	require.NoError(t, err)
	b, err := get(&tls.ClientHelloInfo{ServerName: "acme.com."})
	require.NoError(t, err)
	require.Same(t, a, b)
	require.Equal(t, []string{"acme.com"}, a.Leaf.DNSNames)
	none, err := get(&tls.ClientHelloInfo{ServerName: ""})
	require.NoError(t, err)
	require.Nil(t, none)
}
