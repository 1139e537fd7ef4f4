package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/pipeline"
)

// crawlFlagsOf parses args as the crawl command does (realHosts) or as dev and backfill do.
func crawlFlagsOf(t *testing.T, realHosts bool, args ...string) *crawlFlags {
	t.Helper()
	fs := flagenv.New("crawl", "")
	cf := addCrawlFlags(fs)
	if realHosts {
		cf.addRealHostFlags(fs)
	}
	require.NoError(t, parse(fs, args))
	return cf
}

func TestCrawlFlagsForRealHostsAndForTheSimulator(t *testing.T) {
	for _, v := range []string{"HS_CRAWL_CONNECT_TO", "HS_CRAWL_CA_FILE", "HS_USER_AGENT", "HS_FETCH_HOST_RATE", "HS_ALLOW_PRIVATE_EGRESS", "HS_SIM_URL"} {
		t.Setenv(v, "")
		require.NoError(t, os.Unsetenv(v))
	}
	// dev and backfill read the simulator: any address, no rate, whatever the environment says.
	t.Setenv("HS_FETCH_HOST_RATE", "3")
	sim := crawlFlagsOf(t, false).config(nil).Fetch
	require.True(t, sim.AllowPrivate)
	require.Zero(t, sim.HostRate)
	require.Equal(t, pipeline.DefaultUserAgent, sim.UserAgent)

	// crawl: real hosts by default; the environment and flags fill in the rest.
	t.Setenv("HS_CRAWL_CONNECT_TO", "boards-api.greenhouse.io:443=127.0.0.1:8443, api.lever.co:443=127.0.0.1:8444")
	real := crawlFlagsOf(t, true, "--user-agent=HiringSignalBot/1.0 (+https://example.com/bot; crawler@example.com)",
		"--sim-url=https://directory.example.com")
	fc := real.config(nil).Fetch
	require.False(t, fc.AllowPrivate)
	require.Equal(t, 3.0, fc.HostRate)
	require.Equal(t, []string{"boards-api.greenhouse.io:443=127.0.0.1:8443", "api.lever.co:443=127.0.0.1:8444"}, fc.ConnectTo)
	require.NoError(t, real.checkRealHosts(true))
	fc = crawlFlagsOf(t, true, "--connect-to=api.ashbyhq.com:443=127.0.0.1:1", "--connect-to", "::127.0.0.1:2", "--allow-private-egress").config(nil).Fetch
	require.Equal(t, []string{"api.ashbyhq.com:443=127.0.0.1:1", "::127.0.0.1:2"}, fc.ConnectTo, "the command line replaces the variable")
	require.True(t, fc.AllowPrivate)

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--connect-to=api.lever.co=127.0.0.1:1", "--allow-private-egress"}, `--connect-to (HS_CRAWL_CONNECT_TO): cannot parse connect-to entry "api.lever.co=127.0.0.1:1"`},
		{[]string{"--fetch-host-rate=-1", "--allow-private-egress"}, "--fetch-host-rate (HS_FETCH_HOST_RATE) is -1"},
		{[]string{"--ca-file=" + filepath.Join(t.TempDir(), "none.pem"), "--allow-private-egress"}, "--ca-file (HS_CRAWL_CA_FILE): cannot read the CA file"},
		{[]string{"--sim-url=http://127.0.0.1:7070", "--user-agent=Bot/1 (+https://example.com/bot)"}, "--sim-url http://127.0.0.1:7070 is on this machine or a private network"},
		{[]string{"--sim-url=http://localhost:7070", "--user-agent=Bot/1 (+https://example.com/bot)"}, "without --allow-private-egress"},
		{[]string{"--sim-url=https://directory.example.com"}, "--user-agent (HS_USER_AGENT) is the placeholder"},
	} {
		t.Setenv("HS_CRAWL_CONNECT_TO", "")
		err := crawlFlagsOf(t, true, tc.args...).checkRealHosts(true)
		require.ErrorContains(t, err, tc.err, strings.Join(tc.args, " "))
	}
	// A registry crawl whose requests --connect-to maps reaches no real host and needs no contact;
	// one that reaches real hosts does.
	require.NoError(t, crawlFlagsOf(t, true, "--connect-to=:443=127.0.0.1:7443").checkRealHosts(false))
	require.ErrorContains(t, crawlFlagsOf(t, true).checkRealHosts(false), "--user-agent (HS_USER_AGENT) is the placeholder")
	// The local simulator: allowed explicitly, or reached through a --connect-to mapping.
	require.NoError(t, crawlFlagsOf(t, true, "--sim-url=http://127.0.0.1:7070", "--allow-private-egress").checkRealHosts(true))
	require.NoError(t, crawlFlagsOf(t, true, "--sim-url=http://127.0.0.1:7070", "--connect-to=127.0.0.1:7070=127.0.0.1:7070",
		"--user-agent=Bot/1 (+https://example.com/bot)").checkRealHosts(true))
}

// TestCrawlWindowFlagsAreListed: the registry crawl's window flags are in `crawl --help` with the
// variables they fall back to, and a value that cannot work is refused before anything starts: a
// window too short, or whose retry margin cannot hold a lapsed lease and a read again, a refetch
// outside the window, the simulator's clock with another window than its ticks.
func TestCrawlWindowFlagsAreListed(t *testing.T) {
	t.Parallel()
	out, _ := exec.Command(binary(t), "crawl", "--help").CombinedOutput()
	for _, flag := range []string{"window-length", "claim-lease", "clock", "suspect-refetch-after", "fetch-host-rates", "fetch-page-budget", "fetch-source-deadline-max", "fetch-max-pages", "fetch-chain-depth",
		"read-store-batch", "read-store-every", "read-store-queue"} {
		require.Regexp(t, `-`+flag+`[\s\S]*HS_`+strings.ToUpper(strings.ReplaceAll(flag, "-", "_")), string(out))
	}
	require.Contains(t, string(out), "boards-api.greenhouse.io=4", "the vendors' rates are listed")
	out, err := exec.Command(binary(t), "crawl", "--suspect-refetch-after=4h").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "--suspect-refetch-after (HS_SUSPECT_REFETCH_AFTER) is 4h0m0s")
	for _, tc := range []struct{ args, err string }{
		{"--window-length=30s", "--window-length (HS_WINDOW_LENGTH), --claim-lease (HS_CLAIM_LEASE) and --fetch-source-deadline (HS_FETCH_SOURCE_DEADLINE): a crawl window of 30s is too short"},
		{"--window-length=1h", "keeps its last 5m0s (a twelfth) for retries, less than a claim's lease (5m0s) and a source's read deadline (2m0s)"},
		{"--window-length=1h --claim-lease=1m --fetch-source-deadline=1m --suspect-refetch-after=2h",
			"--suspect-refetch-after (HS_SUSPECT_REFETCH_AFTER) is 2h0m0s: give a duration inside the 1h0m0s window, such as 5m0s"},
		{"--claim-lease=0s", "--claim-lease (HS_CLAIM_LEASE) is 0s: give at least 1s"},
		{"--clock=sim --window-length=1h", "with --clock=sim the windows are the simulator's ticks, 3h0m0s"},
		{"--clock=lunar", "use wall or sim"},
		{"--sim-url=http://127.0.0.1:1", "--sim-url is read only with --directory=sim or --clock=sim"},
	} {
		args := strings.Fields(tc.args)
		out, err := exec.Command(binary(t), append([]string{"crawl"}, args...)...).CombinedOutput()
		require.Error(t, err, tc.args)
		require.Contains(t, string(out), tc.err, tc.args)
	}
	out, err = exec.Command(binary(t), "crawl", "--read-store-batch=0").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "--read-store-batch 0")
	out, err = exec.Command(binary(t), "crawl", "--fetch-max-pages=0").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "--fetch-max-pages 0 (HS_FETCH_MAX_PAGES)")
}

// TestVendorHostRatesFlag: --fetch-host-rates gives the vendors' shared API hosts their own
// rate, by default pipeline.DefaultHostRates; a list given replaces it, --fetch-host-rate 0 limits
// no host, and an entry that is not HOST=RATE with a positive rate is refused.
func TestVendorHostRatesFlag(t *testing.T) {
	for _, v := range []string{"HS_FETCH_HOST_RATES", "HS_FETCH_HOST_RATE"} {
		t.Setenv(v, "")
		require.NoError(t, os.Unsetenv(v))
	}
	fc := crawlFlagsOf(t, true, "--allow-private-egress").config(nil).Fetch
	require.Equal(t, 1.0, fc.HostRate, "any other host: the polite default")
	require.Equal(t, pipeline.DefaultHostRates(), fc.HostRates)
	require.Equal(t, 4.0, fc.HostRates["boards-api.greenhouse.io"])

	fc = crawlFlagsOf(t, true, "--allow-private-egress", "--fetch-host-rates=boards-api.greenhouse.io=6,API.Lever.co.=2.5").config(nil).Fetch
	require.Equal(t, map[string]float64{"boards-api.greenhouse.io": 6, "api.lever.co": 2.5}, fc.HostRates)
	require.Nil(t, crawlFlagsOf(t, true, "--allow-private-egress", "--fetch-host-rate=0").config(nil).Fetch.HostRates,
		"with --fetch-host-rate 0 (the simulator) no host is limited")
	require.Nil(t, crawlFlagsOf(t, false).config(nil).Fetch.HostRates, "dev and backfill read the simulator")

	for _, bad := range []string{"boards-api.greenhouse.io", "boards-api.greenhouse.io=0", "boards-api.greenhouse.io=-1", "=4", "boards-api.greenhouse.io:443=4", "x=fast"} {
		err := crawlFlagsOf(t, true, "--allow-private-egress", "--fetch-host-rates="+bad).checkRealHosts(false)
		require.ErrorContains(t, err, "--fetch-host-rates (HS_FETCH_HOST_RATES): cannot read", bad)
	}
}
