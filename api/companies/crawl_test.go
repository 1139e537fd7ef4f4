package companies_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
)

func TestFreeAccountPastItsCostToServeCapGets202OverCap(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	free := f.srv.Account(t, "free").Key
	paid := f.srv.Account(t, "growth").Key
	path := cpath(f.covered, "is-hiring")
	for range freeIsHiringPerDay {
		apitest.GetJSON[isHiring](t, f.srv, path, free, nil, 200)
	}
	require.Equal(t, "over_cap", apitest.GetJSON[isHiring](t, f.srv, path, free, nil, 202).Status)
	// Paid accounts have no such cap.
	for range freeIsHiringPerDay + 2 {
		apitest.GetJSON[isHiring](t, f.srv, path, paid, nil, 200)
	}
}

// TestColdCompanyAndMaxAgeAnswer202CrawlingWithAJobToPoll moves its wall clock and crawls the
// shared world one more cycle, so it runs a server, a snapshot and a Postgres schema of its
// own: the shared server's snapshot stays at the world's last crawled tick.
func TestColdCompanyAndMaxAgeAnswer202CrawlingWithAJobToPoll(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, snaps, clock := startServer(t, f.w)
	paid := srv.Account(t, "growth").Key
	other := srv.Account(t, "starter").Key
	co := snaps.Current().Model.Company(f.covered)
	get := func(seg, key string, maxAge string, want int) apitest.Response {
		t.Helper()
		var q url.Values
		if maxAge != "" {
			q = url.Values{"max_age": {maxAge}}
		}
		r := srv.Get(t, cpath(f.covered, seg), key, q)
		require.Equal(t, want, r.Status, "%s max_age=%s: %s", seg, maxAge, r.Body)
		return r
	}
	jobOf := func(r apitest.Response) int64 {
		t.Helper()
		var c crawling
		r.Decode(t, 202, &c)
		require.Equal(t, "crawling", c.Status)
		return c.JobID
	}

	clock.Set(co.LastRead().Add(2 * time.Hour))
	job := jobOf(get("hiring-pulse", paid, "3600", 202))
	require.Positive(t, job)
	require.Equal(t, job, jobOf(get("pre-action-brief", paid, "60", 202)), "one open crawl per company")
	get("hiring-pulse", paid, "86400", 200)

	clock.Set(co.LastRead().Add(25 * time.Hour))
	require.Equal(t, job, jobOf(get("is-hiring", other, "", 202)))
	require.Equal(t, job, jobOf(get("hiring-pulse", other, "", 202)), "cold without max_age")
	require.Equal(t, job, jobOf(get("pre-action-brief", other, "", 202)))
	get("hiring-pulse", other, "2592000", 200) // max_age wins over the cold rule
	clock.Set(co.LastRead().Add(time.Hour))

	jobPath := fmt.Sprintf("/v1/crawl-jobs/%d", job)
	j := apitest.GetJSON[crawlJob](t, srv, jobPath, paid, nil, 200)
	require.Equal(t, "crawling", j.Status)
	require.Nil(t, j.ResultURL)
	srv.Get(t, jobPath, srv.Account(t, "growth").Key, nil).Decode(t, 404, &apitest.Problem{})
	srv.Get(t, "/v1/crawl-jobs/99999999", paid, nil).Decode(t, 404, &apitest.Problem{})

	// The crawler claims the job and commits a cycle; the job reads done once the model has it.
	claimed, err := oltp.ClaimCrawlJobs(context.Background(), srv.Pool, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.Equal(t, f.covered, claimed[0].CompanyID)
	require.Equal(t, f.w.Companies[f.covered].Domain, claimed[0].Domain)
	require.Equal(t, f.covered, pipeline.CompanyID(claimed[0].Domain))
	require.NoError(t, oltp.FinishCrawlJob(context.Background(), srv.Pool, job, nil))
	require.Equal(t, "crawling", apitest.GetJSON[crawlJob](t, srv, jobPath, paid, nil, 200).Status, "done only once the read model serves the crawl")
	f.w.CrawlAt(t, f.w.TickAt(claimed[0].StartedAt.UTC()))
	installed, err := snaps.Refresh(context.Background(), false)
	require.NoError(t, err)
	require.True(t, installed)
	done := apitest.GetJSON[crawlJob](t, srv, jobPath, paid, nil, 200)
	require.Equal(t, "done", done.Status)
	require.Equal(t, fmt.Sprintf("/v1/companies/%d/hiring-pulse", f.covered), *done.ResultURL)
	require.Equal(t, "done", apitest.GetJSON[crawlJob](t, srv, jobPath, other, nil, 200).Status, "every customer that asked sees the job")
}

// The public demo key is bounded on on-demand crawls: unbounded, anyone could queue keyless a
// crawl of every cold company (is-hiring on the Free plan's gates; max_age on the paid reads)
// once per crawl floor, ahead of paying customers' crawls. It queues at most
// DefaultDemoCrawlsPerDay a day per address; past that its read answers 202 over_cap and nothing
// is queued, while keys of their own crawl.
func TestTheDemoKeyQueuesABoundedNumberOfCrawls(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, snaps, clock := startServer(t, f.w)
	m := snaps.Current().Model
	var covered []uint64
	for id := range f.w.Companies {
		if f.w.Covered[id] && m.Company(id) != nil {
			covered = append(covered, id)
		}
	}
	slices.Sort(covered)
	require.Greater(t, len(covered), companies.DefaultDemoCrawlsPerDay, "the world covers enough companies")
	clock.Set(snaps.Current().AsOf.Add(25 * time.Hour)) // every company is cold
	for _, id := range covered[:companies.DefaultDemoCrawlsPerDay] {
		var c crawling
		srv.Get(t, cpath(id, "is-hiring"), api.PublicDemoKey, nil).Decode(t, 202, &c)
		require.Equal(t, "crawling", c.Status)
	}
	jobs := func() (n int) {
		require.NoError(t, srv.Pool.QueryRow(context.Background(), "SELECT count(*) FROM crawl_jobs").Scan(&n))
		return n
	}
	before := jobs()
	next := covered[companies.DefaultDemoCrawlsPerDay]
	r := srv.Get(t, cpath(next, "is-hiring"), api.PublicDemoKey, nil)
	var over isHiring
	r.Decode(t, 202, &over)
	require.Equal(t, "over_cap", over.Status, "%s", r.Body)
	srv.Conforms(t, "GET", "/v1/companies/{company_id}/is-hiring", r)
	require.Equal(t, before, jobs(), "nothing queued past the bound")
	var c crawling
	srv.Get(t, cpath(next, "is-hiring"), srv.Account(t, "growth").Key, nil).Decode(t, 202, &c)
	require.Equal(t, "crawling", c.Status, "a key of its own still crawls")
}
