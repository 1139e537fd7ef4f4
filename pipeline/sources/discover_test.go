package sources_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/discovery"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// vendorHosts serves a Greenhouse and a Lever tenant "acme" on the vendors' real hostnames: the
// same three jobs in each vendor's format, or 404 once gone.
type vendorHosts struct {
	fetch                   pipeline.FetchConfig
	greenhouseUp, leverGone atomic.Bool
	requests                atomic.Int32
}

var acmeTitles = []string{"Senior Backend Engineer", "Product Designer", "Data Analyst"}

func newVendorHosts(t *testing.T) *vendorHosts {
	t.Helper()
	v := &vendorHosts{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/acme/jobs", func(w http.ResponseWriter, r *http.Request) {
		v.requests.Add(1)
		if !v.greenhouseUp.Load() {
			http.NotFound(w, r)
			return
		}
		var parts []string
		for i, title := range acmeTitles {
			parts = append(parts, fmt.Sprintf(`{"id":%d,"title":%q,"absolute_url":"https://job-boards.greenhouse.io/acme/jobs/%d","location":{"name":"Berlin, Germany"},"updated_at":"2026-11-20T10:00:00Z"}`,
				100+i, title, 100+i))
		}
		fmt.Fprintf(w, `{"jobs":[%s],"meta":{"total":%d}}`, strings.Join(parts, ","), len(parts))
	})
	mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/acme", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"name":"Acme","content":""}`)
	})
	mux.HandleFunc("GET api.lever.co/v0/postings/acme", func(w http.ResponseWriter, r *http.Request) {
		v.requests.Add(1)
		if v.leverGone.Load() {
			http.NotFound(w, r)
			return
		}
		var parts []string
		for i, title := range acmeTitles {
			parts = append(parts, fmt.Sprintf(`{"id":"lv-%d","text":%q,"hostedUrl":"https://jobs.lever.co/acme/lv-%d","createdAt":1767607200000,"country":"DE","categories":{"location":"Berlin"}}`,
				i, title, i))
		}
		fmt.Fprintf(w, `[%s]`, strings.Join(parts, ","))
	})
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), nil)
	v.fetch = pipeline.FetchConfig{ConnectTo: connectTo, CAFile: pem, Attempts: 2, Backoff: time.Millisecond}
	return v
}

// scripted is a Discoverer answering each domain's Result from script (no_ats_found for any
// other), counting its runs.
type scripted struct {
	mu     sync.Mutex
	script map[string]discovery.Result
	runs   []string
}

func (s *scripted) discover(_ context.Context, c discovery.Company) (discovery.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs = append(s.runs, c.Domain)
	if r, ok := s.script[c.Domain]; ok {
		r.Company = c
		return r, nil
	}
	return discovery.Result{Company: c, Outcome: discovery.OutcomeNoATS, Reason: "no careers page links to a job board",
		Tried: []discovery.Step{{URL: "https://" + c.Domain + "/robots.txt", Status: 200}, {URL: "https://" + c.Domain + "/", Status: 200},
			{URL: "https://" + c.Domain + "/careers", Status: 404}}, Requests: 3, Started: time.Now()}, nil
}

func (s *scripted) ran() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.runs...)
}

func greenhouseFound(active bool) discovery.Found {
	return discovery.Found{Kind: discovery.KindATSTenant, Vendor: "greenhouse", Tenant: "acme",
		URL: "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true", Active: active,
		Evidence: discovery.Evidence{Via: discovery.ViaEmbed, FoundOn: "https://acme.de/careers", CheckedURL: "https://boards-api.greenhouse.io/v1/boards/acme",
			Status: 200, Jobs: 3, DetectedName: "Acme", NameMatches: true}}
}

func coveredByGreenhouse() discovery.Result {
	return discovery.Result{Outcome: discovery.OutcomeCovered, Found: []discovery.Found{greenhouseFound(true)}, Requests: 6, Started: time.Now()}
}

func askCoverage(t *testing.T, pool *pgxpool.Pool, email string, domains ...string) string {
	t.Helper()
	a, err := oltp.CreateAccount(context.Background(), pool, "growth", email)
	require.NoError(t, err)
	asks := make([]oltp.CoverageAsk, len(domains))
	for i, d := range domains {
		asks[i] = oltp.CoverageAsk{Key: "domain:" + d, Domain: d}
	}
	_, err = oltp.RequestCoverage(context.Background(), pool, a.CustomerID, "migration_import", asks)
	require.NoError(t, err)
	return a.CustomerID
}

func regionStats(t *testing.T, stats []pipeline.CycleStats, region string) pipeline.CycleStats {
	t.Helper()
	for _, st := range stats {
		if st.Region == region {
			return st
		}
	}
	t.Fatalf("no %s cycle", region)
	return pipeline.CycleStats{}
}

// TestCoverageRequestIsDiscoveredAndCrawledInTheNextWindow: a customer's coverage request is
// searching until a worker with nothing due runs its discovery; the source found is active and
// read by that worker in the same window, and the window's commit opens the company's reqs. A
// domain where nothing is found answers no_ats_found with what was tried.
func TestCoverageRequestIsDiscoveredAndCrawledInTheNextWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hosts := newVendorHosts(t)
	hosts.greenhouseUp.Store(true)
	pool := storetest.Postgres(t, "sources_discover")
	ch, _ := storetest.ClickHouse(t, "sources_discover")
	customer := askCoverage(t, pool, "disc-e2e@example.com", "acme.de", "nothing.example")
	status := func() map[string]oltp.CoverageRequest {
		reqs, err := oltp.ListCoverageRequests(ctx, pool, customer, 0, 10)
		require.NoError(t, err)
		out := map[string]oltp.CoverageRequest{}
		for _, r := range reqs {
			out[*r.Domain] = r
		}
		return out
	}
	require.Equal(t, oltp.CoverageSearching, status()["acme.de"].Status)

	disc := &scripted{script: map[string]discovery.Result{"acme.de": coveredByGreenhouse()}}
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler), Fetch: hosts.fetch})
	require.NoError(t, err)
	epoch := time.Now().UTC().Truncate(sources.DefaultWindowLength).Add(-100 * sources.DefaultWindowLength)
	crawl := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: sources.Clock{Epoch: epoch}, Owner: "w",
		Discovery: &sources.DiscoveryRunner{Pool: pool, Discover: disc.discover, Owner: "w", Budget: 10}}
	tick := crawl.Clock.Tick(time.Now())
	n, err := crawl.ReadDue(ctx, tick, false)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the source found is read in the window it was found")
	require.ElementsMatch(t, []string{"acme.de", "nothing.example"}, disc.ran())

	got := status()
	require.Equal(t, oltp.CoverageCovered, got["acme.de"].Status)
	tenant := "acme"
	require.Equal(t, []oltp.CoverageSource{{Vendor: "greenhouse", Tenant: &tenant, URL: "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true"}},
		got["acme.de"].Sources)
	require.NotNil(t, got["acme.de"].LastTriedAt)
	require.Empty(t, got["acme.de"].Tried)
	require.Equal(t, oltp.CoverageNoATS, got["nothing.example"].Status)
	require.Equal(t, "no careers page links to a job board", *got["nothing.example"].Reason)
	require.Len(t, got["nothing.example"].Tried, 3)
	require.Equal(t, 404, got["nothing.example"].Tried[2].Status)

	s, co, err := oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, s.Status)
	require.Equal(t, sources.DiscoverBy, s.AddedBy)
	var ev map[string]any
	require.NoError(t, json.Unmarshal(s.Evidence, &ev))
	require.Equal(t, "embed", ev["via"])
	require.Equal(t, "https://acme.de/careers", ev["found_on"])
	require.NotEmpty(t, ev["at"], "the evidence carries the run's time")
	require.Equal(t, "Acme", co.Name, "the vendor's name, the registry having none")
	require.Equal(t, "vendor:greenhouse", co.Facts["name"].Source)

	stats, err := crawl.Commit(ctx, tick, time.Time{})
	require.NoError(t, err)
	require.Equal(t, 3, regionStats(t, stats, "na").ByType["opened"], "a company of unknown country is crawled in region na")

	// Nothing more is queued: the next idle turn runs nothing.
	n, err = crawl.ReadDue(ctx, tick, false)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Len(t, disc.ran(), 2)
}

// TestDiscoveryBudgetAndOnDemandFirst: a worker runs at most its budget of discoveries per window,
// an on-demand read's company before any coverage request, and a run that fails is retried
// later, not lost.
func TestDiscoveryBudgetAndOnDemandFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "sources_discover")
	askCoverage(t, pool, "disc-budget@example.com", "one.example", "two.example")
	require.NoError(t, sources.EnqueueOnDemand(ctx, pool, "https://www.Cold.example/jobs", "Cold"))
	disc := &scripted{}
	failing := true
	r := &sources.DiscoveryRunner{Pool: pool, Owner: "w", Budget: 2, Discover: func(ctx context.Context, c discovery.Company) (discovery.Result, error) {
		if c.Domain == "two.example" && failing {
			return discovery.Result{}, errors.New("fetcher closed")
		}
		return disc.discover(ctx, c)
	}}
	for range 3 {
		_, err := r.RunOne(ctx, 7)
		require.NoError(t, err)
	}
	require.Equal(t, []string{"cold.example", "one.example"}, disc.ran(), "on-demand first, then within the budget of 2")
	ran, err := r.RunOne(ctx, 8) // the next window
	require.NoError(t, err)
	require.True(t, ran)
	d, err := oltp.GetDiscovery(ctx, pool, "two.example")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryQueued, d.Status, "a failed run is queued again")
	require.True(t, d.DueAt.After(time.Now().Add(10*time.Minute)), "after a backoff")
	cold, err := oltp.GetDiscovery(ctx, pool, "cold.example")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryNoATS, cold.Status)
	require.Equal(t, oltp.DiscoveryByOnDemand, cold.RequestedBy)
	require.Equal(t, "Cold", cold.Name)
}

// TestStoreResultKeepsOnlyWhatItCanCheck: found sources discovery rejected, tenants atsurl refuses
// and careers sites off the company's domain or over http are left out with why; the rest are
// written active or candidate with their evidence. DiscoverNow without Apply writes nothing.
func TestStoreResultKeepsOnlyWhatItCanCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "sources_discover")
	careers := func(u string) discovery.Found {
		return discovery.Found{Kind: discovery.KindCareersSite, Vendor: "jsonld", URL: u, Evidence: discovery.Evidence{Via: discovery.ViaJSONLD, Jobs: 4}}
	}
	res := discovery.Result{Company: discovery.Company{Domain: "acme.de"}, Outcome: discovery.OutcomeCandidates, Reason: "the names differ",
		Started: time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC),
		Found: []discovery.Found{
			{Kind: discovery.KindATSTenant, Vendor: "lever", Tenant: "acme-demo", Rejected: "demo_tenant"},
			{Kind: discovery.KindATSTenant, Vendor: "lever", Tenant: "../x"},
			{Kind: discovery.KindATSTenant, Vendor: "taleo", Tenant: "acme"},
			greenhouseFound(false),
			careers("https://jobs.acme.de/openings"),
			careers("https://acme-careers.example/openings"),
			careers("http://acme.de/jobs"),
		}}
	disc := func(context.Context, discovery.Company) (discovery.Result, error) { return res, nil }

	dry, err := sources.DiscoverNow(ctx, pool, disc, []string{"acme.de", "not a domain"}, sources.StoreOptions{})
	require.NoError(t, err)
	require.Len(t, dry, 2)
	require.Contains(t, dry[1].Err, "not a host name")
	rep := dry[0].Store
	require.NotNil(t, rep)
	require.False(t, rep.Applied)
	require.Equal(t, oltp.DiscoveryCandidates, rep.Status)
	require.Equal(t, []sources.Kept{{Key: "greenhouse:acme", Status: "candidate"}, {Key: "jsonld:jobs.acme.de/openings", Status: "candidate"}}, rep.Kept)
	require.Len(t, rep.Left, 5)
	require.Contains(t, rep.Left[0], "rejected by discovery: demo_tenant")
	require.Contains(t, rep.Left[1], "invalid tenant")
	require.Contains(t, rep.Left[2], "not an ATS vendor")
	require.Contains(t, rep.Left[3], "not on the company's domain")
	require.Contains(t, rep.Left[4], "https")
	for _, table := range []string{"crawl_companies", "crawl_sources", "crawl_discoveries"} {
		var n int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n))
		require.Zero(t, n, "a dry run writes nothing to %s", table)
	}

	applied, err := sources.StoreResult(ctx, pool, res, sources.StoreOptions{Apply: true})
	require.NoError(t, err)
	require.True(t, applied.Applied)
	page, _, err := oltp.ListSources(ctx, pool, oltp.SourceFilter{Status: oltp.SourceCandidate})
	require.NoError(t, err)
	require.Len(t, page, 2)
	require.Equal(t, oltp.SourceCareersSite, page[1].Kind)
	require.Equal(t, "acme.de", page[1].CompanyDomain)
	require.JSONEq(t, fmt.Sprintf(`{"via":"jsonld","checked_url":"","status":0,"jobs":4,"name_matches":false,"at":%q}`,
		res.Started.UTC().Format(time.RFC3339)), string(page[1].Evidence))
	d, err := oltp.GetDiscovery(ctx, pool, "acme.de")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryCandidates, d.Status)
	require.Equal(t, "the names differ", d.Reason)
	var found []discovery.Found
	require.NoError(t, json.Unmarshal(d.Found, &found))
	require.Len(t, found, 7, "every candidate is kept on the discovery, rejected ones too")
}

// TestRediscoveryMovesACompanyToItsNewVendorWithoutChurn: a company's Lever board starts answering
// 404; the sweep queues its re-discovery, which finds it on Greenhouse. The Greenhouse source is
// active at once, but the Lever source is retired ("moved to greenhouse:acme") only after a
// committed window read Greenhouse ok: a window whose Greenhouse read failed keeps Lever, so its
// reqs stay open as unknown instead of closing as retired. The reqs pass from one source to the
// other: req_key does not depend on the source, so no req closes or opens again.
func TestRediscoveryMovesACompanyToItsNewVendorWithoutChurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hosts := newVendorHosts(t)
	pool := storetest.Postgres(t, "sources_discover")
	ch, _ := storetest.ClickHouse(t, "sources_discover")
	_, err := sources.Import(ctx, pool, strings.NewReader("domain,name,vendor,tenant,hq_country\nacme.de,Acme,lever,acme,DE\n"),
		sources.ImportOptions{File: "one.csv", By: "test", Apply: true})
	require.NoError(t, err)
	disc := &scripted{script: map[string]discovery.Result{"acme.de": coveredByGreenhouse()}}
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler), Fetch: hosts.fetch})
	require.NoError(t, err)
	epoch := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	runner := &sources.DiscoveryRunner{Pool: pool, Discover: disc.discover, Owner: "w", Budget: 10}
	crawl := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: sources.Clock{Epoch: epoch}, Owner: "w", Discovery: runner}
	window := func(tick int, between func()) pipeline.CycleStats {
		t.Helper()
		_, err := crawl.ReadDue(ctx, tick, true)
		require.NoError(t, err)
		if between != nil {
			between()
			_, err := crawl.ReadDue(ctx, tick, true)
			require.NoError(t, err)
		}
		stats, err := crawl.Commit(ctx, tick, epoch.Add(time.Duration(tick)*sources.DefaultWindowLength+time.Hour))
		require.NoError(t, err)
		return regionStats(t, stats, "dach")
	}
	status := func(key string) (string, string) {
		s, _, err := oltp.GetSource(ctx, pool, key)
		require.NoError(t, err)
		return s.Status, s.StatusReason
	}

	require.Equal(t, 3, window(0, nil).ByType["opened"])
	hosts.leverGone.Store(true)
	st := window(1, func() {
		// The window's read of Lever answered 404: the sweep queues the company and a run finds
		// it on Greenhouse, whose first read in this window fails.
		require.NoError(t, runner.Sweep(ctx, true))
		ran, err := runner.RunOne(ctx, 1)
		require.NoError(t, err)
		require.True(t, ran)
	})
	require.Equal(t, []string{"acme.de"}, disc.ran())
	require.Zero(t, st.ByType["closed"], "the old source stays until the new one is read: its reqs are unknown, not closed")
	got, _ := status("lever:acme")
	require.Equal(t, oltp.SourceActive, got)
	got, _ = status("greenhouse:acme")
	require.Equal(t, oltp.SourceActive, got)

	hosts.greenhouseUp.Store(true)
	st = window(2, nil)
	require.Zero(t, st.ByType["closed"])
	require.Zero(t, st.ByType["opened"], "the reqs Lever carried are Greenhouse's: the same req_keys")
	got, why := status("lever:acme")
	require.Equal(t, oltp.SourceRetired, got, "retired once a committed window read the new source ok")
	require.Equal(t, "moved to greenhouse:acme", why)

	st = window(3, nil) // Lever out of the directory
	require.Zero(t, st.ByType["closed"])
	require.Zero(t, st.ByType["opened"])
	require.Equal(t, 3, st.ReqsLive)
}

// TestCareersSiteIsACompanysOwnSource: a jsonld row naming a company's domain imports as that
// company's careers_site, and the crawl's directory lists it with its company.
func TestCareersSiteIsACompanysOwnSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "sources_discover")
	_, err := sources.Import(ctx, pool, strings.NewReader("domain,name,vendor,tenant,url\nacme.de,Acme,jsonld,,https://acme.de/jobs\n"),
		sources.ImportOptions{File: "careers.csv", By: "test", Apply: true})
	require.NoError(t, err)
	s, _, err := oltp.GetSource(ctx, pool, "jsonld:acme.de/jobs")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceCareersSite, s.Kind)
	dir, err := sources.Directory(ctx, pool, 1, time.Now())
	require.NoError(t, err)
	require.Len(t, dir.Sources, 1)
	require.Equal(t, pipeline.Source{Key: "jsonld:acme.de/jobs", Vendor: "jsonld", Kind: "careers_site", Region: "na", CompanyDomain: "acme.de",
		URL: "https://acme.de/jobs", Status: "active"}, dir.Sources[0])
}
