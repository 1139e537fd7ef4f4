-- A source's chain of pages carried across windows. A job-page board links each page to the next,
-- so its pages are read one after another at its host's rate, and a long one (12,834 pages at one
-- request a second is 3.5 hours) cannot be read inside one 3-hour window. A worker reads such a
-- chain in parts of a few hundred pages; after each part it records here, in one transaction,
-- where the chain stands (crawl_chains: the next page, the two before it, the first page's
-- origin, the pages read so far) and that part's sightings (crawl_chain_parts, keyed by the
-- part's first page). A worker killed partway, or a window that ends, leaves the chain here for
-- the next claim to go on from: nothing read twice is stored twice (a part is recorded only when
-- the chain still stands where its read began, by the worker holding the source's lease). The
-- read that reaches the chain's end, in whichever window, is stored with every part's sightings
-- and deletes the chain in the same transaction.
CREATE TABLE crawl_chains (
    source_key   text PRIMARY KEY REFERENCES crawl_sources (source_key) ON DELETE CASCADE,
    started_tick integer NOT NULL CHECK (started_tick >= 0),
    started_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    worker       text NOT NULL,
    pages        integer NOT NULL CHECK (pages > 0),
    postings     integer NOT NULL DEFAULT 0,
    next_url     text NOT NULL CHECK (next_url <> ''),
    prev_url     text NOT NULL DEFAULT '',
    before_url   text NOT NULL DEFAULT '',
    home_url     text NOT NULL DEFAULT ''
);
CREATE TABLE crawl_chain_parts (
    source_key text NOT NULL REFERENCES crawl_chains (source_key) ON DELETE CASCADE,
    first_page integer NOT NULL CHECK (first_page >= 0),
    pages      integer NOT NULL CHECK (pages > 0),
    tick       integer NOT NULL CHECK (tick >= 0),
    sightings  bytea NOT NULL,
    PRIMARY KEY (source_key, first_page)
);
-- A window's read of a chain that did not reach its end is 'partial': its sightings count, and
-- the committer closes none of its reqs.
ALTER TABLE crawl_reads DROP CONSTRAINT crawl_reads_status_check;
ALTER TABLE crawl_reads ADD CONSTRAINT crawl_reads_status_check CHECK (status IN ('ok', 'failed', 'blocked', 'not_fetched', 'partial'));
