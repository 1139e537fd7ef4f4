package oltp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func claimAll(t *testing.T, pool *pgxpool.Pool, owner string) []string {
	t.Helper()
	ds, err := oltp.ClaimDiscoveries(context.Background(), pool, owner, 100, time.Hour)
	require.NoError(t, err)
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Domain
	}
	return out
}

// TestCoverageRequestsQueueDiscoveriesMostAskedFirst: every domain of a coverage request whose
// company has no active source is queued once, priority the customers asking plus the times they
// asked; a claim takes the most-asked first. Requests by name, domains that are not host names and
// companies with an active source are not queued; asking more raises a queued domain.
func TestCoverageRequestsQueueDiscoveriesMostAskedFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	ask := func(customer string, domains ...string) {
		t.Helper()
		asks := make([]oltp.CoverageAsk, len(domains))
		for i, d := range domains {
			asks[i] = oltp.CoverageAsk{Key: "domain:" + d, Domain: d}
		}
		_, err := oltp.RequestCoverage(ctx, pool, customer, "migration_import", asks)
		require.NoError(t, err)
	}
	var customers []string
	for i := range 3 {
		a, err := oltp.CreateAccount(ctx, pool, "growth", fmt.Sprintf("disc-queue-%d@example.com", i))
		require.NoError(t, err)
		customers = append(customers, a.CustomerID)
	}
	ask(customers[0], "one.example", "three.example", "covered.example", "localhost", "10.0.0.1")
	ask(customers[1], "three.example", "two.example")
	ask(customers[2], "three.example", "two.example")
	ask(customers[2], "two.example") // asked twice: 2 customers + 3 asks = 5, three.example 3 + 3 = 6
	_, err := oltp.RequestCoverage(ctx, pool, customers[0], "migration_import", []oltp.CoverageAsk{{Key: "name:nobody", Name: "Nobody Ltd"}})
	require.NoError(t, err)
	_, err = oltp.UpsertRegistry(ctx, pool, oltp.RegistryBatch{By: "test",
		Companies: []oltp.CompanyInput{{Domain: "covered.example", Name: "Covered"}},
		Sources: []oltp.SourceInput{{Key: "greenhouse:covered", Vendor: "greenhouse", Kind: oltp.SourceATSTenant, Tenant: "covered",
			CompanyDomain: "covered.example", URL: "https://boards-api.greenhouse.io/v1/boards/covered/jobs?content=true"}}}, true)
	require.NoError(t, err)

	n, err := oltp.EnqueueCoverageDiscoveries(ctx, pool, time.Now().Add(-oltp.CoverageRetryAfter))
	require.NoError(t, err)
	require.Equal(t, 3, n)
	again, err := oltp.EnqueueCoverageDiscoveries(ctx, pool, time.Now().Add(-oltp.CoverageRetryAfter))
	require.NoError(t, err)
	require.Zero(t, again, "asking at the same priority changes nothing")
	d, err := oltp.GetDiscovery(ctx, pool, "three.example")
	require.NoError(t, err)
	require.Equal(t, 6, d.Priority)
	require.Equal(t, oltp.DiscoveryQueued, d.Status)
	require.Equal(t, oltp.DiscoveryByCoverage, d.RequestedBy)

	// One more customer asks for one.example: it is raised above two.example.
	a, err := oltp.CreateAccount(ctx, pool, "growth", "disc-queue-more@example.com")
	require.NoError(t, err)
	for range 5 {
		ask(a.CustomerID, "one.example")
	}
	n, err = oltp.EnqueueCoverageDiscoveries(ctx, pool, time.Now().Add(-oltp.CoverageRetryAfter))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"one.example", "three.example", "two.example"}, claimAll(t, pool, "w"), "most-asked first")
}

// TestClaimedDiscoveryLeaseLapsesWhenItsWorkerDies: a claimed discovery is not claimed again while
// its lease holds; once it lapses another worker takes it; one that never finishes is given up
// after MaxDiscoveryAttempts claims.
func TestClaimedDiscoveryLeaseLapsesWhenItsWorkerDies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	_, err := oltp.EnqueueDiscoveries(ctx, pool, []oltp.DiscoveryAsk{
		{Domain: "acme.example", Priority: 3, By: oltp.DiscoveryByCoverage},
		{Domain: "beta.example", Priority: oltp.PriorityOnDemand, By: oltp.DiscoveryByOnDemand},
	})
	require.NoError(t, err)
	dead, err := oltp.ClaimDiscoveries(ctx, pool, "dead", 1, time.Hour)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	require.Equal(t, "beta.example", dead[0].Domain, "on-demand first")
	require.Equal(t, []string{"acme.example"}, claimAll(t, pool, "live"), "the dead worker's claim is not taken while its lease holds")
	require.Empty(t, claimAll(t, pool, "live"))

	_, err = pool.Exec(ctx, "UPDATE crawl_discoveries SET lease_until = now() - interval '1 second' WHERE lease_owner = 'dead'")
	require.NoError(t, err)
	require.Equal(t, []string{"beta.example"}, claimAll(t, pool, "live"), "once the lease lapses another worker takes it")

	// A run that failed is released, due later; a discovery that never finishes is given up.
	require.NoError(t, oltp.ReleaseDiscovery(ctx, pool, "acme.example", "live", time.Now().Add(time.Hour)))
	require.Empty(t, claimAll(t, pool, "live"), "released into its backoff")
	_, err = pool.Exec(ctx, "UPDATE crawl_discoveries SET lease_until = now() - interval '1 second', attempts = $1 WHERE domain = 'beta.example'",
		oltp.MaxDiscoveryAttempts)
	require.NoError(t, err)
	require.Empty(t, claimAll(t, pool, "live"))
	d, err := oltp.GetDiscovery(ctx, pool, "beta.example")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryUnreachable, d.Status)
	require.Contains(t, d.Reason, "did not finish")
}

func activeSource(key, vendor, tenant, domain string) oltp.SourceInput {
	return oltp.SourceInput{Key: key, Vendor: vendor, Kind: oltp.SourceATSTenant, Tenant: tenant, CompanyDomain: domain,
		URL: "https://" + vendor + ".example/" + tenant, Status: oltp.SourceActive, Validated: true, Evidence: json.RawMessage(`{"via":"embed"}`)}
}

// TestStoreDiscoveryWritesSourcesAndNeverOverridesAnOperator: a run's kept sources are written
// active or candidate with their evidence and its answer kept on the discovery row; a second run
// keeps an operator's paused and retired sources as they are, keeps a known source's schedule,
// and never renames a company an operator named. A dry run writes nothing.
func TestStoreDiscoveryWritesSourcesAndNeverOverridesAnOperator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	cand := activeSource("lever:acme", "lever", "acme", "acme.example")
	cand.Status, cand.Validated, cand.RefreshEvidence = oltp.SourceCandidate, false, true
	run := oltp.DiscoveryOutcome{Domain: "acme.example", Name: "Acme", Status: oltp.DiscoveryCovered, By: "discovery",
		Tried: json.RawMessage(`[{"url":"https://acme.example/","status":200}]`), Found: json.RawMessage(`[{"vendor":"greenhouse"}]`),
		Sources: []oltp.SourceInput{activeSource("greenhouse:acme", "greenhouse", "acme", "acme.example"), cand}}

	rep, err := oltp.StoreDiscovery(ctx, pool, run, false)
	require.NoError(t, err)
	require.False(t, rep.Applied)
	require.Equal(t, oltp.Counts{Added: 2}, rep.Registry.Sources)
	require.Zero(t, countRows(t, pool, "crawl_sources"))
	require.Zero(t, countRows(t, pool, "crawl_discoveries"))

	rep, err = oltp.StoreDiscovery(ctx, pool, run, true)
	require.NoError(t, err)
	require.True(t, rep.Applied)
	gh, co, err := oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, gh.Status)
	require.JSONEq(t, `{"via":"embed"}`, string(gh.Evidence))
	require.Equal(t, "Acme", co.Name)
	lv, _, err := oltp.GetSource(ctx, pool, "lever:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceCandidate, lv.Status)
	d, err := oltp.GetDiscovery(ctx, pool, "acme.example")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryCovered, d.Status)
	require.Equal(t, oltp.DiscoveryByCLI, d.RequestedBy)
	require.JSONEq(t, `[{"url":"https://acme.example/","status":200}]`, string(d.Tried))
	require.NotNil(t, d.LastTriedAt)

	// An operator pauses the active source, retires the candidate and renames the company; the
	// schedule of the paused one moves on.
	_, err = oltp.SetSourceStatus(ctx, pool, "greenhouse:acme", oltp.SourcePaused, "answers 429 all day", "ops")
	require.NoError(t, err)
	_, err = oltp.SetSourceStatus(ctx, pool, "lever:acme", oltp.SourceRetired, "another Acme", "ops")
	require.NoError(t, err)
	_, err = oltp.UpsertRegistry(ctx, pool, oltp.RegistryBatch{By: "ops", Companies: []oltp.CompanyInput{{Domain: "acme.example", Name: "Acme Inc", Source: "cli"}}}, true)
	require.NoError(t, err)
	due := time.Now().Add(7 * time.Hour).UTC().Truncate(time.Second)
	_, err = pool.Exec(ctx, "UPDATE crawl_sources SET next_due_at = $1 WHERE source_key = 'greenhouse:acme'", due)
	require.NoError(t, err)

	run.Name = "ACME"
	run.Sources[1].Status, run.Sources[1].Validated = oltp.SourceActive, true // now found active
	run.Sources[0].Evidence = json.RawMessage(`{"via":"link"}`)
	rep, err = oltp.StoreDiscovery(ctx, pool, run, true)
	require.NoError(t, err)
	require.Len(t, rep.Registry.Notes, 2, "the report names the operator's statuses it left")
	gh, co, err = oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourcePaused, gh.Status)
	require.Equal(t, "answers 429 all day", gh.StatusReason)
	require.True(t, gh.NextDueAt.Equal(due), "a known source keeps its schedule")
	require.JSONEq(t, `{"via":"link"}`, string(gh.Evidence), "the evidence is the latest run's")
	require.Equal(t, "Acme Inc", co.Name, "an operator's name stands")
	lv, _, err = oltp.GetSource(ctx, pool, "lever:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceRetired, lv.Status)
}

// TestVendorMoveRetiresTheOldSourceOnlyAfterTheNewOneIsRead: a re-discovery that finds the company
// active on another vendor while its old source is broken records the move; the old source is
// retired ("moved to NEW") only by an ok read of the new one after that, and never when it
// recovered or an operator paused it.
func TestVendorMoveRetiresTheOldSourceOnlyAfterTheNewOneIsRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	_, err := oltp.UpsertRegistry(ctx, pool, oltp.RegistryBatch{By: "test",
		Companies: []oltp.CompanyInput{{Domain: "acme.example", Name: "Acme"}, {Domain: "beta.example", Name: "Beta"}},
		Sources: []oltp.SourceInput{activeSource("lever:acme", "lever", "acme", "acme.example"), activeSource("lever:beta", "lever", "beta", "beta.example"),
			activeSource("ashby:acme", "ashby", "acme", "acme.example")}}, true)
	require.NoError(t, err)
	now, tick := time.Now().UTC(), 0
	read := func(key, status, reason string) {
		tick++
		require.NoError(t, oltp.StoreCrawlReads(ctx, pool, []oltp.CrawlRead{{Tick: tick, SourceKey: key, ReadAt: now, Worker: "w",
			Status: status, Reason: reason, Sightings: []byte{}, NextDue: now}}))
		now = now.Add(time.Second)
	}
	read("lever:acme", "failed", "status 404") // gone at lever
	read("ashby:acme", "failed", "status 503") // failing, not gone: no move
	read("lever:beta", "failed", "status 410")

	n, err := oltp.EnqueueRediscoveries(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, 2, n, "the companies of sources answering 404 and 410 are queued for re-discovery")
	d, err := oltp.GetDiscovery(ctx, pool, "acme.example")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryByRediscovery, d.RequestedBy)
	require.Equal(t, oltp.PriorityRediscovery, d.Priority)

	for _, dom := range []string{"acme", "beta"} {
		rep, err := oltp.StoreDiscovery(ctx, pool, oltp.DiscoveryOutcome{Domain: dom + ".example", Status: oltp.DiscoveryCovered, By: "discovery",
			Sources: []oltp.SourceInput{activeSource("greenhouse:"+dom, "greenhouse", dom, dom+".example")}}, true)
		require.NoError(t, err)
		require.Equal(t, []oltp.Move{{From: "lever:" + dom, To: "greenhouse:" + dom}}, rep.Moves)
	}
	n, err = oltp.EnqueueRediscoveries(ctx, pool)
	require.NoError(t, err)
	require.Zero(t, n, "a run since the source broke answered")
	s, _, err := oltp.GetSource(ctx, pool, "lever:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, s.Status, "the old source stays until the new one is read")

	// beta's old source recovers before the new one is read: no retirement.
	read("lever:beta", "ok", "")
	retired, err := oltp.RetireReplaced(ctx, pool, map[string]time.Time{"greenhouse:acme": now.Add(-time.Hour), "greenhouse:beta": now})
	require.NoError(t, err)
	require.Empty(t, retired, "a read from before the move, or an old source that recovered, retires nothing")
	retired, err = oltp.RetireReplaced(ctx, pool, map[string]time.Time{"greenhouse:acme": now, "greenhouse:beta": now})
	require.NoError(t, err)
	require.Equal(t, []string{"lever:acme"}, retired)
	s, _, err = oltp.GetSource(ctx, pool, "lever:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceRetired, s.Status)
	require.Equal(t, "moved to greenhouse:acme", s.StatusReason)
	require.Equal(t, "discovery", s.StatusBy)
	s, _, err = oltp.GetSource(ctx, pool, "lever:beta")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, s.Status)
	s, _, err = oltp.GetSource(ctx, pool, "ashby:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, s.Status, "a source failing for another reason is no move")
}

// TestMonthlyRecheckQueuesCoveredCompaniesLowest: a company with an active source is re-checked
// once its last discovery (or its addition) is older than the month, at the lowest priority.
func TestMonthlyRecheckQueuesCoveredCompaniesLowest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	_, err := oltp.UpsertRegistry(ctx, pool, oltp.RegistryBatch{By: "test",
		Companies: []oltp.CompanyInput{{Domain: "old.example"}, {Domain: "new.example"}, {Domain: "none.example"}},
		Sources:   []oltp.SourceInput{activeSource("lever:old", "lever", "old", "old.example"), activeSource("lever:new", "lever", "new", "new.example")}}, true)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, "UPDATE crawl_companies SET created_at = now() - interval '40 days' WHERE domain IN ('old.example', 'none.example')")
	require.NoError(t, err)
	n, err := oltp.EnqueueMonthlyDiscoveries(ctx, pool, time.Now().Add(-oltp.MonthlyRecheck), 100)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	d, err := oltp.GetDiscovery(ctx, pool, "old.example")
	require.NoError(t, err)
	require.Equal(t, oltp.DiscoveryByMonthly, d.RequestedBy)
	require.Equal(t, oltp.PriorityMonthly, d.Priority)
	n, err = oltp.EnqueueMonthlyDiscoveries(ctx, pool, time.Now().Add(-oltp.MonthlyRecheck), 100)
	require.NoError(t, err)
	require.Zero(t, n, "queued once")
}
