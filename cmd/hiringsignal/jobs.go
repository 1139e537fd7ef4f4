package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
)

// crawlJobLoop claims on-demand crawl jobs (the 202 `crawling` answers of hiring-pulse and
// pre-action-brief) every poll and runs each as a real crawl of that company's own sources. Jobs
// run one at a time, between and serialised with the scheduled cycles; a crawler that dies
// mid-job leaves it to be reclaimed after oltp.CrawlLease. committed, when set, runs after a job
// committed its cycle (the dev stack nudges its read snapshot with it). now is the crawl's
// observation time: the wall clock, or dev's simulated clock.
func crawlJobLoop(ctx context.Context, log *slog.Logger, c *pipeline.Crawler, pool *pgxpool.Pool, d directory, poll time.Duration, now func() time.Time, committed func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(poll):
		}
		jobs, err := oltp.ClaimCrawlJobs(ctx, pool, 8)
		if err != nil {
			log.Warn("cannot claim crawl jobs; will retry", "err", err)
			continue
		}
		for _, j := range jobs {
			if runCrawlJob(ctx, log, c, pool, d, j, now()) && committed != nil {
				committed()
			}
		}
	}
}

// runCrawlJob runs one job and reports whether it committed.
func runCrawlJob(ctx context.Context, log *slog.Logger, c *pipeline.Crawler, pool *pgxpool.Pool, d directory, j oltp.CrawlJob, now time.Time) bool {
	dir, err := d.at(ctx, -1)
	var st pipeline.CycleStats
	if err == nil {
		st, err = c.RunCompany(ctx, dir, j.Domain, now)
	}
	if ferr := oltp.FinishCrawlJob(ctx, pool, j.JobID, err); ferr != nil {
		log.Warn("cannot record crawl job outcome", "job_id", j.JobID, "err", ferr)
	}
	if err != nil {
		log.Warn("on-demand crawl failed", "job_id", j.JobID, "company", j.Domain, "err", err)
		return false
	}
	log.Info("on-demand crawl done", "job_id", j.JobID, "company", j.Domain, "sources", st.Sources, "failed", st.SourcesFailed,
		"events", st.Events, "took", st.Duration.Round(time.Millisecond))
	return true
}
