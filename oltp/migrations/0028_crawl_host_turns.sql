-- The next free request turn of each host the crawl reads, shared by every crawl worker so a
-- host's request rate holds across processes. UNLOGGED: after a crash the turns restart from
-- now, which only makes the first requests after it wait less than a full spacing.
CREATE UNLOGGED TABLE crawl_host_turns (
    host    text PRIMARY KEY,
    next_at timestamptz NOT NULL
);
