-- What crawl workers read of each source in each 3-hour window (tick), for the one committer
-- that decides the window's events. A read is written once (the first worker to finish wins);
-- the committer prunes the windows it no longer needs.
CREATE TABLE crawl_reads (
    tick       integer NOT NULL CHECK (tick >= 0),
    source_key text NOT NULL,
    read_at    timestamptz NOT NULL,
    worker     text NOT NULL,
    status     text NOT NULL CHECK (status IN ('ok', 'failed', 'blocked', 'not_fetched')),
    reason     text NOT NULL DEFAULT '',
    pages      integer NOT NULL DEFAULT 0,
    postings   integer NOT NULL DEFAULT 0,
    malformed  integer NOT NULL DEFAULT 0,
    sightings  bytea NOT NULL,
    PRIMARY KEY (tick, source_key)
);
