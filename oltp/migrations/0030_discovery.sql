-- Discovery in the registry: from a company's domain to the sources the crawl reads.
--
-- A careers_site is one company's own site read through its JobPosting JSON-LD (vendor jsonld,
-- its URL given, never templated), as a company's ATS tenant is its own feed: it always names its
-- company.
ALTER TABLE crawl_sources DROP CONSTRAINT crawl_sources_kind_check;
ALTER TABLE crawl_sources ADD CONSTRAINT crawl_sources_kind_check
    CHECK (kind IN ('ats_tenant', 'careers_site', 'board', 'aggregator'));
ALTER TABLE crawl_sources ADD CONSTRAINT crawl_sources_careers_site_check
    CHECK (kind <> 'careers_site' OR company_domain IS NOT NULL);

-- A source a re-discovery found replaced (its company moved to another vendor): replaced_by is
-- the new source's key, set when the new one was made active. The committer retires the old
-- source ("moved to KEY") once a committed window read the new one ok after replaced_at, so the
-- reqs both carried pass to the new source before the old one leaves the directory.
ALTER TABLE crawl_sources ADD COLUMN replaced_by text;
ALTER TABLE crawl_sources ADD COLUMN replaced_at timestamptz;
CREATE INDEX crawl_sources_replaced_idx ON crawl_sources (replaced_by) WHERE replaced_by IS NOT NULL;

-- crawl_discoveries is the discovery queue and its last answer, one row per company domain (the
-- registry's key, lower-case, a DNS name with a dot). queued and running rows wait for or hold a
-- worker (lease_until, lease_owner: a dead worker's lease lapses); the other statuses are the
-- outcome of the last run, with the reason a customer reads, what was tried (discovery's steps)
-- and found (every candidate, kept or rejected). priority orders the queue, most first: the
-- customers asking plus the times they asked for a coverage request, more for an on-demand read
-- of a company without a source or a source gone suspect, 0 for the monthly re-check.
CREATE TABLE crawl_discoveries (
    domain        text PRIMARY KEY CHECK (length(domain) <= 253
        AND domain ~ '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' AND domain !~ '\.[0-9]+$'),
    name          text NOT NULL DEFAULT '',
    status        text NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'running', 'covered', 'candidates', 'no_ats_found', 'blocked_by_robots', 'unreachable')),
    reason        text NOT NULL DEFAULT '',
    tried         jsonb NOT NULL DEFAULT '[]',
    found         jsonb NOT NULL DEFAULT '[]',
    priority      integer NOT NULL DEFAULT 0 CHECK (priority >= 0),
    requested_by  text NOT NULL CHECK (requested_by IN ('coverage', 'cli', 'on_demand', 'rediscovery', 'monthly')),
    due_at        timestamptz NOT NULL DEFAULT now(),
    lease_until   timestamptz,
    lease_owner   text,
    attempts      integer NOT NULL DEFAULT 0,
    last_tried_at timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
-- A claim takes the most-asked due rows first; the index holds only the rows still to run.
CREATE INDEX crawl_discoveries_claim_idx ON crawl_discoveries (priority DESC, due_at, domain) WHERE status IN ('queued', 'running');
