package discovery_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/discovery"
	"github.com/planehq/hiringsignal/sim"
)

// hostWorld serves a host-mode world over TLS, the companies' own sites included (a leaf per
// site host, issued on demand), and returns a real fetcher that reaches it the way
// `--connect-to :443=ADDR --ca-file CA.pem` does: robots.txt, host gates and the egress policy
// as in production, every :443 dial sent to the world.
func hostWorld(t testing.TB, cfg sim.Config, fetch pipeline.FetchConfig) (*sim.World, *pipeline.Fetcher) {
	t.Helper()
	cfg.HostMode = true
	w := sim.New(cfg)
	fetch.ConnectTo, fetch.CAFile = hosttest.Serve(t, w.Handler(), sim.HostNames(), w.ServesSite)
	f, err := pipeline.NewFetcher(fetch)
	require.NoError(t, err)
	t.Cleanup(f.CloseIdle)
	return w, f
}

// key is a found source's identity, as the world's truth spells it.
func key(f discovery.Found) string {
	if f.Kind == discovery.KindCareersSite {
		return atsurl.SourceKey(f.Vendor, "", "", f.URL)
	}
	return atsurl.SourceKey(f.Vendor, f.Tenant, f.Variant, "")
}

// discoverAll runs discovery of every company of truth through f, workers at a time.
func discoverAll(f discovery.Getter, truth []sim.SiteTruth, workers int) []discovery.Result {
	out := make([]discovery.Result, len(truth))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = discovery.Discover(context.Background(), f, discovery.Company{Domain: truth[i].Domain, Name: truth[i].Name}, discovery.Options{})
			}
		}()
	}
	for i := range truth {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// TestDiscoveryMatchesTheSimulatorsTruth runs discovery of every company of a small world, on the
// companies' own domains and the vendors' real hostnames, through the production fetcher, and
// scores it against the world's discovery truth: no active source that is not truly the
// company's (precision 1.0), at least 95% of the discoverable companies covered, and every
// company not covered explained by its outcome and reason.
func TestDiscoveryMatchesTheSimulatorsTruth(t *testing.T) {
	t.Parallel()
	const tick = 500
	w, f := hostWorld(t, sim.Config{Seed: 11, Companies: 300}, pipeline.FetchConfig{Timeout: 5 * time.Second, PerHost: 8})
	w.Pin(tick)
	truth := w.DiscoveryTruth(tick)
	results := discoverAll(f, truth, 16)

	type tally struct{ n, discoverable, covered int }
	byKind := map[string]*tally{}
	coveredVendors := map[string]int{} // the vendor of a covered company's own tenant
	active, wrong, discoverable, found := 0, 0, 0, 0
	for i, res := range results {
		st := truth[i]
		tk := byKind[st.Site]
		if tk == nil {
			tk = &tally{}
			byKind[st.Site] = tk
		}
		tk.n++
		require.Equal(t, st.Domain, res.Company.Domain)
		require.NotEmpty(t, res.Tried, "%s: every run says what it asked", st.Domain)
		require.LessOrEqual(t, res.Requests, discovery.DefaultRequestBudget+5, "%s: within the request budget (a redirect may finish past it)", st.Domain)
		covered := false
		for _, fd := range res.Found {
			if fd.Active {
				active++
				if !slices.Contains(st.Own, key(fd)) {
					wrong++
					t.Errorf("%s (%s site): active %s is not its own (own: %v); evidence %+v", st.Domain, st.Site, key(fd), st.Own, fd.Evidence)
				} else {
					covered = true
				}
			}
			if st.Site == sim.SiteLookalike && fd.Kind == discovery.KindATSTenant {
				require.Contains(t, st.Own, key(fd), "%s: a look-alike host never names a tenant", st.Domain)
			}
		}
		if covered {
			require.Equal(t, discovery.OutcomeCovered, res.Outcome)
		}
		switch st.Site {
		case sim.SiteDemo:
			require.True(t, slices.ContainsFunc(res.Found, func(fd discovery.Found) bool { return fd.Rejected == discovery.RejectDemo }),
				"%s: the demo tenant its site links is rejected: %+v", st.Domain, res.Found)
		case sim.SiteVendorHome:
			require.True(t, slices.ContainsFunc(res.Found, func(fd discovery.Found) bool { return fd.Rejected == discovery.RejectVendorHome }),
				"%s: the tenant that redirects to the vendor's home is rejected: %+v", st.Domain, res.Found)
		}
		if st.Discoverable {
			discoverable++
			tk.discoverable++
			if covered {
				found++
				tk.covered++
				v, _, _ := strings.Cut(st.Own[0], ":")
				coveredVendors[v]++
			} else {
				t.Logf("miss: %s (%s site, own %v): %s: %s; tried %d requests", st.Domain, st.Site, st.Own, res.Outcome, res.Reason, res.Requests)
			}
			continue
		}
		if covered {
			tk.covered++
			continue // a guess found the tenant of a site that could not be read
		}
		// Not discoverable and not covered: the outcome says why, and the reason what was tried.
		require.NotEmpty(t, res.Reason, st.Domain)
		switch st.Why {
		case sim.UndiscoverableRobots:
			require.True(t, res.Outcome == discovery.OutcomeBlockedByRobots ||
				res.Outcome == discovery.OutcomeCandidates && strings.Contains(res.Reason, "robots.txt"), "%s: %s: %s", st.Domain, res.Outcome, res.Reason)
			require.Contains(t, res.Reason, "disallows")
		case sim.UndiscoverableDown:
			require.True(t, res.Outcome == discovery.OutcomeUnreachable ||
				res.Outcome == discovery.OutcomeCandidates && strings.Contains(res.Reason, "did not answer"), "%s: %s: %s", st.Domain, res.Outcome, res.Reason)
			require.Contains(t, res.Reason, "did not answer")
		case sim.UndiscoverableUnpublished:
			require.Contains(t, []string{discovery.OutcomeNoATS, discovery.OutcomeCandidates}, res.Outcome, "%s: %s", st.Domain, res.Reason)
			require.Contains(t, res.Reason, "read ")
		default:
			t.Fatalf("%s: undiscoverable without a reason", st.Domain)
		}
	}
	for k, tk := range byKind {
		t.Logf("%-12s %3d companies, %3d discoverable, %3d covered", k, tk.n, tk.discoverable, tk.covered)
	}
	t.Logf("active sources %d (wrong %d); discoverable companies %d, covered %d", active, wrong, discoverable, found)
	require.Zero(t, wrong, "precision 1.0: no active source that is not truly the company's")
	require.Positive(t, discoverable)
	require.GreaterOrEqual(t, float64(found)/float64(discoverable), 0.95, "recall of the discoverable companies")
	t.Logf("covered companies by vendor: %v", coveredVendors)
	for _, v := range atsurl.Vendors() {
		if atsurl.Templated(v) {
			require.Positive(t, coveredVendors[v], "a company on %s is found from its site", v)
		}
	}
	for _, k := range []string{sim.SiteEmbed, sim.SiteLink, sim.SiteIframe, sim.SiteRedirect, sim.SiteJSONLD, sim.SiteLookalike,
		sim.SiteDemo, sim.SiteVendorHome, sim.SiteRobots, sim.SiteUnlinked, sim.SiteDown, sim.SiteNone} {
		require.Contains(t, byKind, k, "the world has a %s site", k)
	}
}
