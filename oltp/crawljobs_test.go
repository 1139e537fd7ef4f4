package oltp_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func TestCrawlJobsLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")

	// One open job per company, whoever asks and however often.
	var wg sync.WaitGroup
	ids := make([]int64, 8)
	errs := make([]error, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = oltp.RequestCrawl(ctx, pool, []string{"cus_a", "cus_b"}[i%2], 42, "acme.com", 0)
		}()
	}
	wg.Wait()
	for i, id := range ids {
		require.NoError(t, errs[i])
		require.Equal(t, ids[0], id)
	}
	other, err := oltp.RequestCrawl(ctx, pool, "cus_a", 43, "beta.com", 0)
	require.NoError(t, err)
	require.NotEqual(t, ids[0], other)

	// Scoped reads: only customers that asked see the job.
	j, err := oltp.GetCrawlJobFor(ctx, pool, "cus_b", ids[0])
	require.NoError(t, err)
	require.Equal(t, oltp.CrawlPending, j.Status)
	require.Equal(t, uint64(42), j.CompanyID)
	_, err = oltp.GetCrawlJobFor(ctx, pool, "cus_b", other)
	require.True(t, errors.Is(err, oltp.ErrCrawlJobNotFound))
	_, err = oltp.GetCrawlJobFor(ctx, pool, "cus_a", 999999)
	require.True(t, errors.Is(err, oltp.ErrCrawlJobNotFound))

	// Claims never hand one job to two crawlers.
	a, err := oltp.ClaimCrawlJobs(ctx, pool, 1)
	require.NoError(t, err)
	b, err := oltp.ClaimCrawlJobs(ctx, pool, 5)
	require.NoError(t, err)
	require.Len(t, a, 1)
	require.Len(t, b, 1)
	require.Equal(t, ids[0], a[0].JobID, "oldest first")
	require.Equal(t, oltp.CrawlRunning, a[0].Status)
	require.NotNil(t, a[0].StartedAt)
	require.Equal(t, 1, a[0].Attempts)
	none, err := oltp.ClaimCrawlJobs(ctx, pool, 5)
	require.NoError(t, err)
	require.Empty(t, none)

	// A running job is still the open one.
	again, err := oltp.EnqueueCrawl(ctx, pool, 42, "acme.com", 0)
	require.NoError(t, err)
	require.Equal(t, ids[0], again)

	require.NoError(t, oltp.FinishCrawlJob(ctx, pool, ids[0], nil))
	require.NoError(t, oltp.FinishCrawlJob(ctx, pool, other, errors.New("tenant answered 404")))
	done, err := oltp.GetCrawlJob(ctx, pool, ids[0])
	require.NoError(t, err)
	require.Equal(t, oltp.CrawlDone, done.Status)
	require.NotNil(t, done.FinishedAt)
	failed, err := oltp.GetCrawlJob(ctx, pool, other)
	require.NoError(t, err)
	require.Equal(t, oltp.CrawlFailed, failed.Status)
	require.Equal(t, "tenant answered 404", *failed.Error)

	// Once finished, a new request opens a new job.
	next, err := oltp.RequestCrawl(ctx, pool, "cus_a", 42, "acme.com", 0)
	require.NoError(t, err)
	require.NotEqual(t, ids[0], next)
	require.True(t, errors.Is(oltp.FinishCrawlJob(ctx, pool, 123456, nil), oltp.ErrCrawlJobNotFound))
}

// A company's latest job is joined while it was queued or finished within the floor; past the
// floor (or with none) a request queues a new crawl. A failed job is joined like a done one.
func TestCrawlJobsWithinTheFloorAreJoined(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	const floor = 2 * time.Second
	f := func(company uint64, crawlErr error) {
		t.Helper()
		job, err := oltp.RequestCrawl(ctx, pool, "cus_a", company, "acme.com", floor)
		require.NoError(t, err)
		require.NoError(t, oltp.FinishCrawlJob(ctx, pool, job, crawlErr))
		for _, cus := range []string{"cus_a", "cus_b"} {
			again, err := oltp.RequestCrawl(ctx, pool, cus, company, "acme.com", floor)
			require.NoError(t, err)
			require.Equal(t, job, again, "finished within the floor: joined")
		}
		none, err := oltp.EnqueueCrawl(ctx, pool, company, "acme.com", 0)
		require.NoError(t, err)
		require.NotEqual(t, job, none, "without a floor a finished job is not joined")
		require.NoError(t, oltp.FinishCrawlJob(ctx, pool, none, nil))
		_, err = pool.Exec(ctx, "UPDATE crawl_jobs SET requested_at = now() - interval '1 hour', finished_at = now() - interval '1 hour' WHERE company_id = $1", int64(company))
		require.NoError(t, err)
		later, err := oltp.RequestCrawl(ctx, pool, "cus_b", company, "acme.com", floor)
		require.NoError(t, err)
		require.NotEqual(t, job, later, "past the floor a new crawl is queued")
		require.NotEqual(t, none, later)
		j, err := oltp.GetCrawlJobFor(ctx, pool, "cus_b", later)
		require.NoError(t, err)
		require.Equal(t, oltp.CrawlPending, j.Status)
	}
	f(42, nil)
	f(43, errors.New("tenant answered 404"))
	failed, err := oltp.RequestCrawl(ctx, pool, "cus_a", 44, "gamma.com", floor)
	require.NoError(t, err)
	require.NoError(t, oltp.FinishCrawlJob(ctx, pool, failed, errors.New("dial tcp 10.0.0.7:443: connection refused")))
	j, err := oltp.GetCrawlJobFor(ctx, pool, "cus_a", failed)
	require.NoError(t, err)
	require.Equal(t, oltp.CrawlFailedMessage, *j.Error, "customers read a public message")
}
