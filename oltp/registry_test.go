package oltp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func registryBatch() oltp.RegistryBatch {
	ev := json.RawMessage(`{"source":"csv:a.csv:2"}`)
	return oltp.RegistryBatch{
		By: "ops@example.com",
		Companies: []oltp.CompanyInput{
			{Domain: "acme.com", Name: "Acme", HQCountry: "DE", Region: "dach", Industry: "Software", Source: "csv:a.csv:2"},
			{Domain: "beta.io", Name: "Beta", Source: "csv:a.csv:3"},
		},
		Sources: []oltp.SourceInput{
			{Key: "greenhouse:acme", Vendor: "greenhouse", Kind: oltp.SourceATSTenant, Tenant: "acme", CompanyDomain: "acme.com",
				URL: "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true", Evidence: ev},
			{Key: "lever:beta:eu", Vendor: "lever", Kind: oltp.SourceATSTenant, Tenant: "beta", Variant: "eu", CompanyDomain: "beta.io",
				URL: "https://api.eu.lever.co/v0/postings/beta?mode=json&skip=0&limit=100", Evidence: ev},
			{Key: "aggregator:feed.example/v1/feed?region=na", Vendor: "aggregator", Kind: oltp.SourceAggregator, Board: "Feed",
				URL: "https://feed.example/v1/feed?region=na", Region: "na", Evidence: ev},
		},
	}
}

func countRows(t *testing.T, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n))
	return n
}

func TestUpsertRegistryIsAllOrNothingAndIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")

	// A dry run reports and writes nothing.
	rep, err := oltp.UpsertRegistry(ctx, pool, registryBatch(), false)
	require.NoError(t, err)
	require.False(t, rep.Applied)
	require.Equal(t, oltp.Counts{Added: 2}, rep.Companies)
	require.Equal(t, oltp.Counts{Added: 3}, rep.Sources)
	require.Zero(t, countRows(t, pool, "crawl_companies"))
	require.Zero(t, countRows(t, pool, "crawl_sources"))

	rep, err = oltp.UpsertRegistry(ctx, pool, registryBatch(), true)
	require.NoError(t, err)
	require.True(t, rep.Applied)
	require.Equal(t, oltp.Counts{Added: 2}, rep.Companies)
	require.Equal(t, oltp.Counts{Added: 3}, rep.Sources)

	s, co, err := oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, s.Status)
	require.Equal(t, "dach", s.Region, "a tenant takes its company's region")
	require.Equal(t, 10800, s.IntervalS)
	require.JSONEq(t, `{"source":"csv:a.csv:2"}`, string(s.Evidence))
	require.NotNil(t, co)
	require.Equal(t, "Acme", co.Name)
	require.Equal(t, "unknown", co.AgencyKind, "agency kind defaults to unknown")
	require.Equal(t, "csv:a.csv:2", co.Facts["name"].Source)
	firstAt := co.Facts["name"].At
	b, _, err := oltp.GetSource(ctx, pool, "lever:beta:eu")
	require.NoError(t, err)
	require.Equal(t, "", b.Region, "a company of unknown country gives its tenant no region")

	// The same batch again changes nothing, facts included.
	rep, err = oltp.UpsertRegistry(ctx, pool, registryBatch(), true)
	require.NoError(t, err)
	require.Equal(t, oltp.Counts{Unchanged: 2}, rep.Companies)
	require.Equal(t, oltp.Counts{Unchanged: 3}, rep.Sources)
	require.Empty(t, rep.Changes)
	_, co, err = oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, firstAt, co.Facts["name"].At)

	// A changed name updates the row and that fact only; an empty field keeps what is held; a
	// company given a country moves its sources to the country's region.
	nb := registryBatch()
	nb.Companies[0] = oltp.CompanyInput{Domain: "acme.com", Name: "Acme GmbH", Source: "csv:b.csv:7"}
	nb.Companies[1] = oltp.CompanyInput{Domain: "beta.io", HQCountry: "GB", Region: "uki", Source: "csv:b.csv:8"}
	nb.Sources = nb.Sources[2:]
	rep, err = oltp.UpsertRegistry(ctx, pool, nb, true)
	require.NoError(t, err)
	require.Equal(t, oltp.Counts{Changed: 2}, rep.Companies)
	require.Equal(t, oltp.Counts{Unchanged: 1}, rep.Sources)
	require.Equal(t, 1, rep.SourcesMoved)
	require.Contains(t, rep.Changes, oltp.Change{What: "company", Key: "acme.com", Action: "changed", Fields: []string{"name"}})
	_, co, err = oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, "Acme GmbH", co.Name)
	require.Equal(t, "Software", co.Industry)
	require.Equal(t, "csv:b.csv:7", co.Facts["name"].Source)
	require.Equal(t, "csv:a.csv:2", co.Facts["industry"].Source)
	b, co, err = oltp.GetSource(ctx, pool, "lever:beta:eu")
	require.NoError(t, err)
	require.Equal(t, "uki", b.Region)
	require.Equal(t, "csv:b.csv:8", co.Facts["region"].Source)

	// A source naming a company nobody gave fails the whole batch.
	bad := registryBatch()
	bad.Companies[0].Name = "Renamed"
	bad.Sources = append(bad.Sources, oltp.SourceInput{Key: "ashby:ghost", Vendor: "ashby", Kind: oltp.SourceATSTenant, Tenant: "ghost",
		CompanyDomain: "ghost.example", URL: "https://api.ashbyhq.com/posting-api/job-board/ghost?includeCompensation=true"})
	_, err = oltp.UpsertRegistry(ctx, pool, bad, true)
	require.ErrorContains(t, err, "ghost.example is neither in the registry nor in this batch")
	_, co, err = oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, "Acme GmbH", co.Name, "nothing of a failed batch is written")

	dup := registryBatch()
	dup.Sources = append(dup.Sources, dup.Sources[0])
	_, err = oltp.UpsertRegistry(ctx, pool, dup, true)
	require.ErrorContains(t, err, "source greenhouse:acme is given twice")
}

func TestSourceStatusListAndDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	batch := registryBatch()
	for i := range 5 {
		batch.Sources = append(batch.Sources, oltp.SourceInput{Key: fmt.Sprintf("ashby:acme%d", i), Vendor: "ashby", Kind: oltp.SourceATSTenant,
			Tenant: fmt.Sprintf("acme%d", i), CompanyDomain: "acme.com", URL: fmt.Sprintf("https://api.ashbyhq.com/posting-api/job-board/acme%d", i),
			Status: oltp.SourceCandidate})
	}
	_, err := oltp.UpsertRegistry(ctx, pool, batch, true)
	require.NoError(t, err)

	// Filters and a keyset cursor.
	var keys []string
	after := ""
	for {
		page, next, err := oltp.ListSources(ctx, pool, oltp.SourceFilter{Vendor: "ashby", After: after, Limit: 2})
		require.NoError(t, err)
		for _, s := range page {
			keys = append(keys, s.Key)
		}
		if next == "" {
			break
		}
		after = next
	}
	require.Equal(t, []string{"ashby:acme0", "ashby:acme1", "ashby:acme2", "ashby:acme3", "ashby:acme4"}, keys)
	page, _, err := oltp.ListSources(ctx, pool, oltp.SourceFilter{Status: oltp.SourceActive, CompanyDomain: "acme.com"})
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.Equal(t, "greenhouse:acme", page[0].Key)
	_, _, err = oltp.ListSources(ctx, pool, oltp.SourceFilter{Status: "broken"})
	require.ErrorContains(t, err, "use one of candidate, active, suspect, paused, retired")
	_, _, err = oltp.ListSources(ctx, pool, oltp.SourceFilter{Limit: oltp.MaxSourceList + 1})
	require.ErrorContains(t, err, "out of range")

	// Pausing and retiring need a reason; resuming a retired source says it was retired.
	_, err = oltp.SetSourceStatus(ctx, pool, "greenhouse:acme", oltp.SourcePaused, " ", "ops")
	require.ErrorContains(t, err, "say why")
	prev, err := oltp.SetSourceStatus(ctx, pool, "greenhouse:acme", oltp.SourcePaused, "tenant answers 429 all day", "ops")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, prev)
	s, _, err := oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourcePaused, s.Status)
	require.Equal(t, "tenant answers 429 all day", s.StatusReason)
	require.Equal(t, "ops", s.StatusBy)
	prev, err = oltp.SetSourceStatus(ctx, pool, "lever:beta:eu", oltp.SourceRetired, "moved to ashby", "ops")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, prev)
	_, err = oltp.SetSourceStatus(ctx, pool, "nope:x", oltp.SourceActive, "", "ops")
	require.True(t, errors.Is(err, oltp.ErrSourceNotFound))
	_, err = pool.Exec(ctx, "UPDATE crawl_sources SET status_reason = NULL WHERE source_key = 'lever:beta:eu'")
	require.ErrorContains(t, err, "check constraint", "a retired source keeps its reason")

	// The crawl's read: every company, every source but candidates, retired ones marked.
	dir, err := oltp.RegistryDirectory(ctx, pool)
	require.NoError(t, err)
	require.Len(t, dir.Companies, 2)
	status := map[string]string{}
	for _, s := range dir.Sources {
		status[s.Key] = s.Status
	}
	require.Equal(t, map[string]string{"greenhouse:acme": oltp.SourcePaused, "lever:beta:eu": oltp.SourceRetired,
		"aggregator:feed.example/v1/feed?region=na": oltp.SourceActive}, status)

	// Re-importing a paused source leaves it paused and says so.
	rep, err := oltp.UpsertRegistry(ctx, pool, registryBatch(), true)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Sources.Unchanged)
	require.Len(t, rep.Notes, 2)
	prev, err = oltp.SetSourceStatus(ctx, pool, "lever:beta:eu", oltp.SourceActive, "", "ops")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceRetired, prev)
	s, _, err = oltp.GetSource(ctx, pool, "lever:beta:eu")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, s.Status)
	require.Empty(t, s.StatusReason)

	// A validated write promotes a candidate.
	v := registryBatch()
	v.Companies, v.Sources = nil, []oltp.SourceInput{batch.Sources[3]}
	v.Sources[0].Validated, v.Sources[0].Evidence = true, json.RawMessage(`{"count":3}`)
	rep, err = oltp.UpsertRegistry(ctx, pool, v, true)
	require.NoError(t, err)
	require.Equal(t, []oltp.Change{{What: "source", Key: "ashby:acme0", Action: "changed", Fields: []string{"status"}}}, rep.Changes)
	s, _, err = oltp.GetSource(ctx, pool, "ashby:acme0")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, s.Status)
	require.JSONEq(t, `{"count":3}`, string(s.Evidence))
}
