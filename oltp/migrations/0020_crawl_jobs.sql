-- On-demand crawls (company reads): a cold company or a max_age read enqueues a crawl job that a
-- crawler process claims (FOR UPDATE SKIP LOCKED) and runs against the company's own sources.
-- One open (pending or running) job per company: re-requesting returns the open job.
CREATE TABLE crawl_jobs (
    job_id       bigserial PRIMARY KEY,
    company_id   bigint NOT NULL,
    domain       text NOT NULL,
    status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
    attempts     integer NOT NULL DEFAULT 0,
    requested_at timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz,
    error        text
);
CREATE UNIQUE INDEX crawl_jobs_open_idx ON crawl_jobs (company_id) WHERE status IN ('pending', 'running');
CREATE INDEX crawl_jobs_pending_idx ON crawl_jobs (requested_at) WHERE status IN ('pending', 'running');

-- Which customers asked for a job: a job id is visible only to them (another customer's job id
-- answers 404 like a missing one), even when several customers share one crawl of a company.
CREATE TABLE crawl_job_requests (
    job_id       bigint NOT NULL REFERENCES crawl_jobs (job_id) ON DELETE CASCADE,
    customer_id  text NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, customer_id)
);
CREATE INDEX crawl_job_requests_customer_idx ON crawl_job_requests (customer_id, job_id);
