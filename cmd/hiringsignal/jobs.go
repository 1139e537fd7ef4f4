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
// run one at a time, between and serialised with the scheduled cycles (on the registry a job
// leases its company's sources as the workers do: sources.Crawl.CrawlCompany); a crawler that dies
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

// runCrawlJob runs one job and reports whether it committed. A company the directory holds no
// source of has nothing to crawl: on the registry its discovery is queued ahead of everything
// else (the job still runs and commits the company's empty read).
func runCrawlJob(ctx context.Context, log *slog.Logger, c *pipeline.Crawler, pool *pgxpool.Pool, d directory, j oltp.CrawlJob, now time.Time) bool {
	dir, err := d.at(ctx, -1)
	var st pipeline.CycleStats
	if err == nil {
		if cd, ok := d.(coldDiscoverer); ok && !hasSource(dir, j.Domain) {
			if qerr := cd.discoverCold(ctx, j.Domain, companyName(dir, j.Domain)); qerr != nil {
				log.Warn("cannot queue the discovery of a company without a source", "job_id", j.JobID, "company", j.Domain, "err", qerr)
			} else {
				log.Info("company without a source: its discovery is queued first", "job_id", j.JobID, "company", j.Domain)
			}
		}
		if cc, ok := d.(companyCrawler); ok {
			st, err = cc.crawlCompany(ctx, c, dir, j.Domain, now)
		} else {
			st, err = c.RunCompany(ctx, dir, j.Domain, now)
		}
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

// companyCrawler is a directory whose on-demand crawls go through its own path (the registry's:
// the company's sources are leased as the crawl workers lease them).
type companyCrawler interface {
	crawlCompany(ctx context.Context, c *pipeline.Crawler, dir *pipeline.Directory, domain string, now time.Time) (pipeline.CycleStats, error)
}

// coldDiscoverer is a directory that can queue the discovery of a company it holds no source of
// (the registry; the simulator's directory cannot).
type coldDiscoverer interface {
	discoverCold(ctx context.Context, domain, name string) error
}

// hasSource reports whether dir lists a source of the company at domain.
func hasSource(dir *pipeline.Directory, domain string) bool {
	for _, s := range dir.Sources {
		if s.CompanyDomain == domain {
			return true
		}
	}
	return false
}

// companyName is the name dir knows the company at domain by ("" when it does not list it).
func companyName(dir *pipeline.Directory, domain string) string {
	for _, co := range dir.Companies {
		if co.Domain == domain {
			return co.Name
		}
	}
	return ""
}
