-- The latest on-demand crawl job of each company: a request within oltp.CrawlFloor of that job's
-- queueing or finish joins it instead of queueing another crawl (so max_age=0 on every call
-- cannot make the crawler work per call). Looked up by company_id, then crawl_jobs by job_id.
-- No foreign key: this file may run before the one creating crawl_jobs (0020) on a new database.
-- Existing databases start with no latest job per company (at most one extra crawl each).
CREATE TABLE crawl_latest_jobs (
    company_id bigint PRIMARY KEY,
    job_id     bigint NOT NULL
);
