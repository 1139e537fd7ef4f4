package oltp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Crawl job statuses.
const (
	CrawlPending = "pending"
	CrawlRunning = "running"
	CrawlDone    = "done"
	CrawlFailed  = "failed"
)

// CrawlLease is how long a running job may go without finishing before another crawler may
// claim it again (its crawler is presumed dead).
const CrawlLease = 10 * time.Minute

// CrawlFloor is how long a company's on-demand crawl job keeps answering for it after it was
// queued or finished: a request within it joins that job (done or failed as it may be) instead of
// queueing another crawl, so however often keys demand fresh data (max_age=0 on every call), a
// company is crawled on demand at most about once per CrawlFloor.
const CrawlFloor = 15 * time.Minute

// ErrCrawlJobNotFound is returned for a job id that does not exist or, with GetCrawlJobFor,
// belongs to another customer (the two are indistinguishable).
var ErrCrawlJobNotFound = errors.New("crawl job not found")

// CrawlJob is one on-demand crawl of one company.
type CrawlJob struct {
	JobID       int64
	CompanyID   uint64
	Domain      string
	Status      string
	Attempts    int
	RequestedAt time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
	Error       *string
}

const crawlJobCols = "job_id, company_id, domain, status, attempts, requested_at, started_at, finished_at, error"

func scanCrawlJob(row pgx.Row) (CrawlJob, error) {
	var j CrawlJob
	var cid int64
	err := row.Scan(&j.JobID, &cid, &j.Domain, &j.Status, &j.Attempts, &j.RequestedAt, &j.StartedAt, &j.FinishedAt, &j.Error)
	j.CompanyID = uint64(cid)
	return j, err
}

// EnqueueCrawl returns the company's crawl job to join: its open (pending or running) job, else
// its latest job when that was queued or finished within floor (CrawlFloor for the API), else a
// new pending job. At most one open job per company, and at most one new job per floor.
func EnqueueCrawl(ctx context.Context, pool *pgxpool.Pool, companyID uint64, domain string, floor time.Duration) (int64, error) {
	for attempt := 0; attempt < 5; attempt++ {
		var id int64
		// The open job (unique per company), or the latest one within the floor.
		err := pool.QueryRow(ctx, `SELECT job_id FROM crawl_jobs WHERE company_id = $1 AND status IN ('pending', 'running')
			UNION ALL
			SELECT j.job_id FROM crawl_latest_jobs l JOIN crawl_jobs j ON j.job_id = l.job_id
			WHERE l.company_id = $1 AND (j.requested_at > now() - make_interval(secs => $2) OR j.finished_at > now() - make_interval(secs => $2))
			ORDER BY 1 DESC LIMIT 1`, int64(companyID), floor.Seconds()).Scan(&id)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return 0, fmt.Errorf("cannot read the crawl jobs of company %d: %w", companyID, err)
		}
		// A new job, recorded as the company's latest in the same statement.
		err = pool.QueryRow(ctx, `WITH ins AS (
				INSERT INTO crawl_jobs (company_id, domain) VALUES ($1, $2)
				ON CONFLICT (company_id) WHERE status IN ('pending', 'running') DO NOTHING RETURNING job_id, company_id)
			INSERT INTO crawl_latest_jobs (company_id, job_id) SELECT company_id, job_id FROM ins
			ON CONFLICT (company_id) DO UPDATE SET job_id = EXCLUDED.job_id
			RETURNING job_id`, int64(companyID), domain).Scan(&id)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return 0, fmt.Errorf("cannot enqueue a crawl of company %d: %w", companyID, err)
		}
		// Another request opened a job between the two statements: join it.
	}
	return 0, fmt.Errorf("cannot enqueue a crawl of company %d: its jobs kept changing", companyID)
}

// RequestCrawl joins or enqueues the company's crawl job (EnqueueCrawl with floor) on behalf of
// customerID and returns its job id, which that customer may then read with GetCrawlJobFor; the
// customer's first request of the job is its requested_at there.
func RequestCrawl(ctx context.Context, pool *pgxpool.Pool, customerID string, companyID uint64, domain string, floor time.Duration) (int64, error) {
	id, err := EnqueueCrawl(ctx, pool, companyID, domain, floor)
	if err != nil {
		return 0, err
	}
	if _, err := pool.Exec(ctx, `INSERT INTO crawl_job_requests (job_id, customer_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, id, customerID); err != nil {
		return 0, fmt.Errorf("cannot record the crawl request of job %d: %w", id, err)
	}
	return id, nil
}

// ClaimCrawlJobs marks up to limit pending jobs (and running jobs whose lease expired) running
// and returns them, oldest first. Concurrent crawlers never claim the same job (SKIP LOCKED).
func ClaimCrawlJobs(ctx context.Context, pool *pgxpool.Pool, limit int) ([]CrawlJob, error) {
	rows, err := pool.Query(ctx, `UPDATE crawl_jobs SET status = 'running', started_at = now(), attempts = attempts + 1
		WHERE job_id IN (
			SELECT job_id FROM crawl_jobs
			WHERE status = 'pending' OR (status = 'running' AND started_at < now() - make_interval(secs => $2))
			ORDER BY requested_at, job_id LIMIT $1 FOR UPDATE SKIP LOCKED)
		RETURNING `+crawlJobCols, limit, CrawlLease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("cannot claim crawl jobs: %w", err)
	}
	defer rows.Close()
	var out []CrawlJob
	for rows.Next() {
		j, err := scanCrawlJob(rows)
		if err != nil {
			return nil, fmt.Errorf("cannot scan a claimed crawl job: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot claim crawl jobs: %w", err)
	}
	return sortJobs(out), nil
}

func sortJobs(js []CrawlJob) []CrawlJob {
	slices.SortFunc(js, func(a, b CrawlJob) int {
		if c := a.RequestedAt.Compare(b.RequestedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.JobID, b.JobID)
	})
	return js
}

// FinishCrawlJob marks a job done (crawlErr nil) or failed with crawlErr's message, which is kept
// for operators: customers read a job through GetCrawlJobFor, whose error is a public message.
func FinishCrawlJob(ctx context.Context, pool *pgxpool.Pool, id int64, crawlErr error) error {
	status, msg := CrawlDone, (*string)(nil)
	if crawlErr != nil {
		s := crawlErr.Error()
		status, msg = CrawlFailed, &s
	}
	tag, err := pool.Exec(ctx, `UPDATE crawl_jobs SET status = $2, finished_at = now(), error = $3 WHERE job_id = $1`, id, status, msg)
	if err != nil {
		return fmt.Errorf("cannot finish crawl job %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("cannot finish crawl job %d: %w", id, ErrCrawlJobNotFound)
	}
	return nil
}

// GetCrawlJob reads one job (crawler side: no customer scope).
func GetCrawlJob(ctx context.Context, pool *pgxpool.Pool, id int64) (CrawlJob, error) {
	j, err := scanCrawlJob(pool.QueryRow(ctx, "SELECT "+crawlJobCols+" FROM crawl_jobs WHERE job_id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return CrawlJob{}, ErrCrawlJobNotFound
	}
	if err != nil {
		return CrawlJob{}, fmt.Errorf("cannot read crawl job %d: %w", id, err)
	}
	return j, nil
}

// CrawlFailedMessage is the error a customer reads on a failed job, whatever the crawler's error
// (which may name internal hosts or addresses; operators read it with GetCrawlJob).
const CrawlFailedMessage = "source unavailable"

// GetCrawlJobFor reads one job as customerID sees it: ErrCrawlJobNotFound unless that customer
// requested it. RequestedAt is that customer's own (first) request of the job, not the first
// requester's, and a failed job's Error is CrawlFailedMessage.
func GetCrawlJobFor(ctx context.Context, pool *pgxpool.Pool, customerID string, id int64) (CrawlJob, error) {
	j, err := scanCrawlJob(pool.QueryRow(ctx, `SELECT j.job_id, j.company_id, j.domain, j.status, j.attempts, r.requested_at,
		j.started_at, j.finished_at, j.error FROM crawl_jobs j
		JOIN crawl_job_requests r ON r.job_id = j.job_id AND r.customer_id = $2 WHERE j.job_id = $1`, id, customerID))
	if errors.Is(err, pgx.ErrNoRows) {
		return CrawlJob{}, ErrCrawlJobNotFound
	}
	if err != nil {
		return CrawlJob{}, fmt.Errorf("cannot read crawl job %d: %w", id, err)
	}
	if j.Error != nil || j.Status == CrawlFailed {
		msg := CrawlFailedMessage
		j.Error = &msg
	}
	return j, nil
}
