// Package testca is a throwaway certificate authority for tests and simulated worlds: it makes a
// fresh ECDSA P-256 root, issues server certificates for any DNS names (wildcards included) and
// IP addresses, or one per name a client asks for (GetCertificate, for worlds whose hosts no
// wildcard covers), and hands the root to clients as a pool or a PEM file (a crawler's --ca-file).
// With a dial override it lets a real https client reach "https://api.lever.co" on a loopback
// server that holds a certificate for that name, so code is tested on the URLs it reads in
// production.
//
// Nothing issued here is fit for production: the keys live in memory, certificates are valid a
// few days around the time they are made, and the root's private key is never written out. The
// package does no network I/O and must not import any other package of this project.
package testca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// validity is how far around the issue time every certificate is valid: a test world started
// now still verifies after a clock skew or a long run.
const (
	notBeforeSkew = 24 * time.Hour
	validFor      = 3 * 24 * time.Hour
)

// CA is a test certificate authority. It is safe for concurrent use.
type CA struct {
	cert *x509.Certificate
	der  []byte
	key  *ecdsa.PrivateKey

	mu     sync.Mutex
	issued map[string]*issuedLeaf // GetCertificate's leaves, by host name
}

// issuedLeaf is one leaf GetCertificate issued (or is issuing: ready closes when done).
type issuedLeaf struct {
	ready chan struct{}
	cert  *tls.Certificate
	err   error
}

// New makes a fresh certificate authority with its own P-256 key.
func New() (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("cannot generate the test CA key: %w", err)
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "hiringsignal test CA", Organization: []string{"hiringsignal test"}},
		NotBefore:             now.Add(-notBeforeSkew),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("cannot sign the test CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the test CA certificate: %w", err)
	}
	return &CA{cert: cert, der: der, key: key, issued: map[string]*issuedLeaf{}}, nil
}

// Certificate returns the CA's own certificate.
func (ca *CA) Certificate() *x509.Certificate { return ca.cert }

// Pool returns a fresh certificate pool holding only the CA's certificate: a client that uses it
// as RootCAs trusts what this CA issued and nothing else.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// PEM returns the CA's certificate, PEM-encoded (the certificate only, never the key).
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.der})
}

// WritePEM writes the CA's certificate (only the certificate) to path, mode 0644, for a client's
// --ca-file.
func (ca *CA) WritePEM(path string) error {
	if err := os.WriteFile(path, ca.PEM(), 0o644); err != nil {
		return fmt.Errorf("cannot write the test CA certificate: %w", err)
	}
	return nil
}

// Leaf issues a server certificate for hosts, each a DNS name ("api.lever.co"), a wildcard of
// one label ("*.recruitee.com") or an IP address ("127.0.0.1", "::1"). The returned certificate
// carries the leaf and its key, ready for tls.Config.Certificates or httptest's StartTLS.
func (ca *CA) Leaf(hosts []string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		return tls.Certificate{}, errors.New("cannot issue a certificate for no host: give at least one DNS name or IP address")
	}
	tmpl := &x509.Certificate{
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			continue
		}
		if err := checkDNSName(h); err != nil {
			return tls.Certificate{}, err
		}
		tmpl.DNSNames = append(tmpl.DNSNames, strings.ToLower(h))
	}
	tmpl.Subject = pkix.Name{CommonName: hosts[0]}
	serial, err := serialNumber()
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl.SerialNumber = serial
	now := time.Now()
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-notBeforeSkew), now.Add(validFor)
	if tmpl.NotAfter.After(ca.cert.NotAfter) {
		tmpl.NotAfter = ca.cert.NotAfter
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("cannot generate a leaf key: %w", err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("cannot sign the certificate for %s: %w", strings.Join(hosts, ", "), err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("cannot parse the certificate for %s: %w", strings.Join(hosts, ", "), err)
	}
	return tls.Certificate{Certificate: [][]byte{der, ca.der}, PrivateKey: key, Leaf: leaf}, nil
}

// GetCertificate returns a tls.Config.GetCertificate that issues a leaf for the name a client
// asks for (its SNI server name) when allow accepts it, once per name (later handshakes reuse
// it). For any other name, or a handshake without one, it returns no certificate, so the
// config's Certificates answer: a world whose hosts are too many, or too varied, for wildcard
// names (every simulated company's own domain) is served alongside one leaf for the rest.
func (ca *CA) GetCertificate(allow func(host string) bool) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		host := strings.ToLower(strings.TrimSuffix(hello.ServerName, "."))
		if host == "" || !allow(host) {
			return nil, nil
		}
		ca.mu.Lock()
		l, ok := ca.issued[host]
		if !ok {
			l = &issuedLeaf{ready: make(chan struct{})}
			ca.issued[host] = l
		}
		ca.mu.Unlock()
		if !ok {
			cert, err := ca.Leaf([]string{host})
			if err == nil {
				l.cert = &cert
			}
			l.err = err
			close(l.ready)
		}
		<-l.ready
		return l.cert, l.err
	}
}

// checkDNSName accepts a host name of letters, digits, hyphens and dots, optionally starting
// with one "*." wildcard label.
func checkDNSName(h string) error {
	name := strings.TrimPrefix(h, "*.")
	if name == "" || len(h) > 253 || strings.Contains(name, "*") {
		return fmt.Errorf("invalid host %q: want a DNS name, a one-label wildcard (*.example.com) or an IP address", h)
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("invalid host %q: want a DNS name, a one-label wildcard (*.example.com) or an IP address", h)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Errorf("invalid host %q: want a DNS name, a one-label wildcard (*.example.com) or an IP address", h)
			}
		}
	}
	return nil
}

func serialNumber() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("cannot draw a certificate serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil
}
