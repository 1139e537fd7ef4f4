package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/sim"
)

// simulate --host-mode serves the real hostnames over TLS with the CA it writes to --tls-dir,
// keeps /_sim/* on its plain listener, and stops on cancel.
func TestSimulateHostModeServesRealHostnamesOverTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var logs syncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runSimulate(ctx, log, []string{"--host-mode", "--sim-listen", "127.0.0.1:0", "--tls-listen", "127.0.0.1:0",
			"--tls-dir", dir, "--sim-companies", "300", "--sim-seed", "2"}) // at least three tenants of every vendor at every tick
	}()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})

	var plainURL, tlsAddr, caFile string
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(logs.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			switch rec["msg"] {
			case "simulator serving":
				plainURL, _ = rec["url"].(string)
			case "simulator serving the real hostnames over TLS":
				tlsAddr, _ = rec["addr"].(string)
				caFile, _ = rec["ca_file"].(string)
			}
		}
		return plainURL != "" && tlsAddr != ""
	}, 10*time.Second, 20*time.Millisecond, "logs: %s", logs.String())
	require.Equal(t, filepath.Join(dir, "ca.pem"), caFile)

	pem, err := os.ReadFile(caFile)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(pem))
	var d net.Dialer
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, tlsAddr)
		},
		TLSClientConfig: &tls.Config{RootCAs: roots},
	}}
	getOK := func(c *http.Client, u string) []byte {
		t.Helper()
		resp, err := c.Get(u)
		require.NoError(t, err, u)
		if resp.StatusCode == http.StatusMethodNotAllowed && resp.Header.Get("Allow") == http.MethodPost {
			resp.Body.Close() // Workday's list: a POST
			resp, err = c.Post(u, "application/json", strings.NewReader(`{"appliedFacets":{},"limit":20,"offset":0,"searchText":""}`))
			require.NoError(t, err, u)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s: %s", u, body)
		return body
	}

	var dir1 sim.Directory
	require.NoError(t, json.Unmarshal(getOK(http.DefaultClient, plainURL+"/_sim/directory"), &dir1))
	vendors := map[string]bool{}
	for _, s := range dir1.Sources {
		require.True(t, strings.HasPrefix(s.URL, "https://"), s.URL)
		if !vendors[s.Vendor] {
			vendors[s.Vendor] = true
			getOK(client, s.URL)
		}
	}
	require.Len(t, vendors, 19, "every vendor, the boards and the aggregator")
	require.Contains(t, string(getOK(client, "https://www.jobsnorth.example/robots.txt")), "Allow: /")
}

// simulate --export-registry writes the world's registry CSV and exits without serving.
func TestSimulateExportRegistry(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "registry.csv")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	require.NoError(t, runSimulate(context.Background(), log, []string{"--export-registry", file, "--export-tick", "40",
		"--sim-companies", "120", "--sim-seed", "9"}))
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Equal(t, sim.RegistryColumns, rows[0])

	var want bytes.Buffer
	w := sim.New(sim.Config{Seed: 9, Companies: 120})
	require.NoError(t, w.RegistryCSV(&want, 40))
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, want.String(), string(got), "the world of the flags at --export-tick")
}
