-- A worker claims due sources in (next_due_at, source_key) order, a batch at a time. Indexed on
-- next_due_at alone, every source sharing one due time had to be read and sorted by key for each
-- claim; every source of an import shares one (the import's now()), so in the window after an
-- import each claim read every unread source: 250 ms a claim at 100,000 sources, some 1,300
-- claims a window. Indexed in the claim's order, a claim reads the rows it takes and the ones it
-- skips (leased, or already read this window).
DROP INDEX crawl_sources_due_idx;
CREATE INDEX crawl_sources_due_idx ON crawl_sources (next_due_at, source_key) WHERE status IN ('active', 'suspect');
