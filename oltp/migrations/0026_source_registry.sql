-- The source registry: the companies the crawl knows and the sources it reads, filled by operators
-- (`hiringsignal sources import|add`) and read by the crawl as its directory (pipeline/sources).
--
-- crawl_companies holds one row per employer, keyed by its lower-case registrable host. Every
-- firmographic field keeps where it came from and when in facts ({"name": {"source":
-- "csv:FILE:LINE" | "cli" | "vendor:greenhouse", "at": ...}, ...}); an unknown field is '' (never
-- guessed), and agency_kind is 'unknown' until someone classifies the company ('employer' when
-- it is none of the agency kinds).
CREATE TABLE crawl_companies (
    domain         text PRIMARY KEY CHECK (domain <> '' AND domain = lower(domain)),
    name           text NOT NULL DEFAULT '',
    hq_country     text NOT NULL DEFAULT '' CHECK (hq_country = '' OR hq_country ~ '^[A-Z]{2}$'),
    region         text NOT NULL DEFAULT '' CHECK (region IN ('', 'na', 'latam', 'uki', 'dach', 'eu', 'apac', 'mea')),
    industry       text NOT NULL DEFAULT '',
    headcount_band text NOT NULL DEFAULT '',
    agency_kind    text NOT NULL DEFAULT 'unknown'
        CHECK (agency_kind IN ('employer', 'staffing_agency', 'subcontractor_network', 'aggregator', 'job_board', 'unknown')),
    facts          jsonb NOT NULL DEFAULT '{}',
    added_by       text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

-- crawl_sources holds one row per URL the crawl reads, keyed by atsurl.SourceKey ("vendor:tenant",
-- "vendor:tenant:variant", or "vendor:" and the URL without its scheme for a feed). An ATS tenant
-- belongs to one company; a multi-employer board or aggregator feed to none (company_domain NULL)
-- and serves the region it names. A candidate is not crawled; active, suspect and paused sources
-- are in the crawl's directory (a paused or suspect source's reqs are unknown, never closed);
-- a retired one leaves it, so the reqs it alone carried can close. Pausing and retiring need a
-- written reason. The schedule, validator and health columns are the crawl workers'.
CREATE TABLE crawl_sources (
    source_key     text PRIMARY KEY,
    vendor         text NOT NULL,
    kind           text NOT NULL CHECK (kind IN ('ats_tenant', 'board', 'aggregator')),
    tenant         text NOT NULL DEFAULT '',
    variant        text NOT NULL DEFAULT '',
    board          text NOT NULL DEFAULT '',
    company_domain text REFERENCES crawl_companies (domain),
    url            text NOT NULL CHECK (url <> ''),
    region         text NOT NULL DEFAULT '' CHECK (region IN ('', 'na', 'latam', 'uki', 'dach', 'eu', 'apac', 'mea')),
    status         text NOT NULL DEFAULT 'candidate' CHECK (status IN ('candidate', 'active', 'suspect', 'paused', 'retired')),
    status_reason  text,
    status_by      text,
    status_at      timestamptz NOT NULL DEFAULT now(),
    -- schedule (crawl workers): one fetch per interval, claimed by lease
    interval_s     integer NOT NULL DEFAULT 10800 CHECK (interval_s > 0),
    next_due_at    timestamptz NOT NULL DEFAULT now(),
    lease_until    timestamptz,
    lease_owner    text,
    -- validators of the last full fetch
    etag           text,
    last_modified  text,
    body_hash      text,
    -- health
    consecutive_failures integer NOT NULL DEFAULT 0,
    last_ok_at     timestamptz,
    last_status    text,
    last_reason    text,
    last_count     integer,
    cooldown_until timestamptz,
    evidence       jsonb NOT NULL DEFAULT '{}',
    added_by       text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (status NOT IN ('paused', 'retired') OR coalesce(status_reason, '') <> ''),
    CHECK (kind <> 'ats_tenant' OR (tenant <> '' AND company_domain IS NOT NULL)),
    CHECK (kind <> 'aggregator' OR company_domain IS NULL)
);
CREATE INDEX crawl_sources_vendor_idx ON crawl_sources (vendor, source_key);
CREATE INDEX crawl_sources_status_idx ON crawl_sources (status, source_key);
CREATE INDEX crawl_sources_company_idx ON crawl_sources (company_domain, source_key) WHERE company_domain IS NOT NULL;
CREATE INDEX crawl_sources_due_idx ON crawl_sources (next_due_at) WHERE status IN ('active', 'suspect');
