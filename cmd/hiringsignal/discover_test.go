package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/discovery"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// acmeOnGreenhouse is a scripted discovery: acme.de has a Greenhouse board it could not confirm
// (a candidate) and a rejected demo tenant; anything else has nothing.
func acmeOnGreenhouse(*pipeline.Fetcher) sources.Discoverer {
	return func(_ context.Context, c discovery.Company) (discovery.Result, error) {
		res := discovery.Result{Company: c, Outcome: discovery.OutcomeNoATS, Reason: "no careers page found", Requests: 2, Took: 1500 * time.Millisecond,
			Tried: []discovery.Step{{URL: "https://" + c.Domain + "/robots.txt", Status: 200}, {URL: "https://" + c.Domain + "/careers", Status: 404, Note: "not found"}}}
		if c.Domain == "acme.de" {
			res.Outcome, res.Reason = discovery.OutcomeCandidates, "the board names another company"
			res.Found = []discovery.Found{
				{Kind: discovery.KindATSTenant, Vendor: "greenhouse", Tenant: "acme", Evidence: discovery.Evidence{Via: discovery.ViaLink,
					FoundOn: "https://acme.de/careers", CheckedURL: "https://boards-api.greenhouse.io/v1/boards/acme", Status: 200, Jobs: 12, DetectedName: "Acme Corp"}},
				{Kind: discovery.KindATSTenant, Vendor: "lever", Tenant: "acmedemo", Rejected: "demo_tenant"},
			}
		}
		return res, nil
	}
}

// runSourcesCmd runs one sources command in this process with a scripted discovery and returns
// what it printed.
func runSourcesCmd(t *testing.T, pg string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := sourcesCommands()[name]
	c := newSourcesCtx("sources "+name, cmd.summary)
	var out strings.Builder
	c.out, c.discoverer = &out, acmeOnGreenhouse
	err := cmd.run(context.Background(), slog.New(slog.DiscardHandler), c, append(args, "--postgres-url", pg, "--by", "ops"))
	return out.String(), err
}

// TestSourcesDiscoverIsADryRunUnlessApplied: `sources discover` prints each run readably and
// writes nothing; with --apply it writes the candidate with its evidence, which `sources list
// --status candidate` summarises, and the discovery's answer.
func TestSourcesDiscoverIsADryRunUnlessApplied(t *testing.T) {
	t.Parallel()
	pg := storetest.PostgresURL(t, "cmd_discover")
	pool, err := pgxpool.New(context.Background(), pg)
	require.NoError(t, err)
	defer pool.Close()
	rows := func(table string) int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n))
		return n
	}
	route := "--connect-to=:443=127.0.0.1:9" // reaches no real host: no User-Agent contact needed

	out, err := runSourcesCmd(t, pg, "discover", "https://www.Acme.de/jobs", "nothing.example", route)
	require.NoError(t, err, out)
	require.Contains(t, out, "acme.de: candidates, 2 requests in 1.5s")
	require.Contains(t, out, "reason: the board names another company")
	require.Contains(t, out, `found greenhouse acme (candidate): via link on https://acme.de/careers; https://boards-api.greenhouse.io/v1/boards/acme answered 200 with 12 jobs; names "Acme Corp" (does not match)`)
	require.Contains(t, out, "found lever acmedemo (rejected: demo_tenant)")
	require.Contains(t, out, "404 https://acme.de/careers (not found)")
	require.Contains(t, out, "nothing.example: no_ats_found")
	require.Contains(t, out, "registry: dry run: nothing written (--apply writes)")
	require.Regexp(t, `sources\s+1\s+0\s+0`, out)
	for _, table := range []string{"crawl_companies", "crawl_sources", "crawl_discoveries"} {
		require.Zero(t, rows(table), "a dry run writes nothing to %s", table)
	}

	out, err = runSourcesCmd(t, pg, "discover", "acme.de", route, "--apply")
	require.NoError(t, err, out)
	require.Contains(t, out, "registry: written")
	s, _, err := oltp.GetSource(context.Background(), pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceCandidate, s.Status)
	require.Equal(t, "ops", s.AddedBy)
	d, err := oltp.GetDiscovery(context.Background(), pool, "acme.de")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryCandidates, d.Status)
	require.Equal(t, oltp.DiscoveryByCLI, d.RequestedBy)

	out, err = runSourcesCmd(t, pg, "list", "--status", "candidate")
	require.NoError(t, err, out)
	require.Regexp(t, `(?m)^KEY\s+COMPANY\s+ADDED BY\s+ADDED\s+EVIDENCE$`, out)
	require.Regexp(t, `(?m)^greenhouse:acme\s+acme.de\s+ops\s+\S+\s+via link on https://acme.de/careers; .* answered 200 with 12 jobs; names "Acme Corp" \(does not match\); 20`, out)

	_, err = runSourcesCmd(t, pg, "discover", "not a domain", route)
	require.ErrorContains(t, err, "1 of 1 domains could not be discovered")
	if os.Getenv("HS_USER_AGENT")+os.Getenv("HS_CRAWL_CONNECT_TO")+os.Getenv("HS_ALLOW_PRIVATE_EGRESS") == "" {
		_, err = runSourcesCmd(t, pg, "discover", "acme.de")
		require.ErrorContains(t, err, "--user-agent (HS_USER_AGENT) is the placeholder", "real hosts need a User-Agent with a contact")
	}
}

// TestDiscoveryFlagsAreListed: the binary lists `sources discover` and its real-host flags, and
// the crawl's discovery budget, each with its variable; a build without discovery steps says so.
func TestDiscoveryFlagsAreListed(t *testing.T) {
	t.Parallel()
	help := func(args ...string) string {
		out, _ := exec.Command(binary(t), args...).CombinedOutput()
		return string(out)
	}
	require.Contains(t, help("sources", "--help"), "discover")
	out := help("sources", "discover", "--help")
	for _, want := range []string{"-apply", "-connect-to", "HS_CRAWL_CONNECT_TO", "-ca-file", "HS_CRAWL_CA_FILE", "-user-agent", "HS_USER_AGENT",
		"-allow-private-egress", "HS_ALLOW_PRIVATE_EGRESS", "-fetch-host-rate"} {
		require.Contains(t, out, want)
	}
	require.Regexp(t, `-discovery-budget[\s\S]*HS_DISCOVERY_BUDGET`, help("crawl", "--help"))
}

// TestOnDemandCrawlOfACompanyWithoutASourceQueuesItsDiscoveryFirst: an on-demand crawl job of a
// registry company with no source queues its discovery above every coverage request; a company
// with a source queues none.
func TestOnDemandCrawlOfACompanyWithoutASourceQueuesItsDiscoveryFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "cmd_discover")
	ch, _ := storetest.ClickHouse(t, "cmd_discover")
	_, err := oltp.UpsertRegistry(ctx, pool, oltp.RegistryBatch{By: "test",
		Companies: []oltp.CompanyInput{{Domain: "cold.example", Name: "Cold"}, {Domain: "warm.example", Name: "Warm"}},
		Sources: []oltp.SourceInput{{Key: "lever:warm", Vendor: "lever", Kind: oltp.SourceATSTenant, Tenant: "warm", CompanyDomain: "warm.example",
			URL: "https://api.lever.co/v0/postings/warm?mode=json&skip=0&limit=100"}}}, true)
	require.NoError(t, err)
	_, err = oltp.SetSourceStatus(ctx, pool, "lever:warm", oltp.SourcePaused, "held back", "ops")
	require.NoError(t, err)
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	d := registryDirectory{pool: pool, clock: crawlClock{Clock: sources.Clock{Epoch: time.Now().Add(-30 * time.Hour)}, now: time.Now}}
	log := slog.New(slog.DiscardHandler)
	for _, dom := range []string{"cold.example", "warm.example"} {
		id, err := oltp.EnqueueCrawl(ctx, pool, pipeline.CompanyID(dom), dom, 0)
		require.NoError(t, err)
		j, err := oltp.GetCrawlJob(ctx, pool, id)
		require.NoError(t, err)
		require.True(t, runCrawlJob(ctx, log, c, pool, d, j, time.Now()))
	}
	got, err := oltp.GetDiscovery(ctx, pool, "cold.example")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryQueued, got.Status)
	require.Equal(t, oltp.PriorityOnDemand, got.Priority)
	require.Equal(t, oltp.DiscoveryByOnDemand, got.RequestedBy)
	require.Equal(t, "Cold", got.Name)
	_, err = oltp.GetDiscovery(ctx, pool, "warm.example")
	require.ErrorIs(t, err, oltp.ErrDiscoveryNotFound, "a company with a source (paused by an operator) is not discovered on demand")
}
