package companies_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

// coveredCompany is the n-th covered company of the world by company_id (n ≥ 1: f.covered is
// another test's), so tests queueing crawls on the shared server never share a job.
func coveredCompany(t *testing.T, f *fixture, n int) uint64 {
	t.Helper()
	var ids []uint64
	for id := range f.w.Companies {
		if f.w.Covered[id] && id != f.covered && f.m.Company(id) != nil && !f.m.Company(id).LastRead().IsZero() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	require.Greater(t, len(ids), n)
	return ids[n]
}

// forceFresh calls seg with max_age=0 and returns the job of its 202 crawling answer.
func forceFresh(t *testing.T, f *fixture, id uint64, seg, key string) int64 {
	t.Helper()
	var c crawling
	f.srv.Get(t, cpath(id, seg), key, url.Values{"max_age": {"0"}}).Decode(t, 202, &c)
	require.Equal(t, "crawling", c.Status)
	return c.JobID
}

// max_age=0 on hiring-pulse does not force a crawl on every call. A company's job queued or
// finished within oltp.CrawlFloor is joined: a key demanding fresh data on every call costs one
// crawl of the company per floor, not one per call.
func TestMaxAgeZeroDoesNotQueueACrawlPerCall(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	ctx := context.Background()
	id := coveredCompany(t, f, 1)
	key := f.srv.Account(t, "growth").Key
	job := forceFresh(t, f, id, "hiring-pulse", key)
	require.Equal(t, job, forceFresh(t, f, id, "hiring-pulse", key), "the open job is joined")

	// The crawler runs it; calls right after join the finished job instead of queueing another.
	require.NoError(t, oltp.FinishCrawlJob(ctx, f.srv.Pool, job, nil))
	for range 5 {
		require.Equal(t, job, forceFresh(t, f, id, "hiring-pulse", key), "a job finished within the floor is joined")
	}
	require.Equal(t, job, forceFresh(t, f, id, "pre-action-brief", f.srv.Account(t, "growth").Key))
	var jobs int
	require.NoError(t, f.srv.Pool.QueryRow(ctx, "SELECT count(*) FROM crawl_jobs WHERE company_id = $1", int64(id)).Scan(&jobs))
	require.Equal(t, 1, jobs, "one crawl for every forced call within the floor")
	done := apitest.GetJSON[crawlJob](t, f.srv, fmt.Sprintf("/v1/crawl-jobs/%d", job), key, nil, 200)
	require.Equal(t, "done", done.Status)
}

// A crawl job is shared by every customer asking for the company, yet shows none of them the
// first requester's requested_at or the crawler's raw error text. A customer sees its own request
// time, and a failed job says "source unavailable".
func TestCrawlJobShowsTheCallersOwnRequestAndAPublicError(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	ctx := context.Background()
	id := coveredCompany(t, f, 2)
	a, b := f.srv.Account(t, "growth"), f.srv.Account(t, "growth")
	job := forceFresh(t, f, id, "hiring-pulse", a.Key)
	_, err := f.srv.Pool.Exec(ctx, `UPDATE crawl_job_requests SET requested_at = requested_at - interval '2 hours' WHERE job_id = $1 AND customer_id = $2`, job, a.CustomerID)
	require.NoError(t, err)
	_, err = f.srv.Pool.Exec(ctx, `UPDATE crawl_jobs SET requested_at = requested_at - interval '2 hours' WHERE job_id = $1`, job)
	require.NoError(t, err)
	require.Equal(t, job, forceFresh(t, f, id, "hiring-pulse", b.Key), "one job for the company")
	internal := errors.New("GET http://10.20.30.40:8080/tenants/acme: dial tcp 10.20.30.40:8080: connect: connection refused")
	require.NoError(t, oltp.FinishCrawlJob(ctx, f.srv.Pool, job, internal))

	type view struct {
		Status      string    `json:"status"`
		RequestedAt time.Time `json:"requested_at"`
		Error       *string   `json:"error"`
	}
	path := fmt.Sprintf("/v1/crawl-jobs/%d", job)
	ra, rb := f.srv.Get(t, path, a.Key, nil), f.srv.Get(t, path, b.Key, nil)
	var va, vb view
	ra.Decode(t, 200, &va)
	rb.Decode(t, 200, &vb)
	require.WithinDuration(t, time.Now().Add(-2*time.Hour), va.RequestedAt, 10*time.Minute, "a asked two hours ago")
	require.WithinDuration(t, time.Now(), vb.RequestedAt, 10*time.Minute, "b asked just now, not when a did")
	for _, v := range []view{va, vb} {
		require.Equal(t, "failed", v.Status)
		require.Equal(t, oltp.CrawlFailedMessage, *v.Error)
	}
	require.NotContains(t, string(ra.Body)+string(rb.Body), "10.20.30.40")
	raw, err := oltp.GetCrawlJob(ctx, f.srv.Pool, job)
	require.NoError(t, err)
	require.Equal(t, internal.Error(), *raw.Error, "operators keep the crawler's error")
}
