-- A window ends no sooner than its longest source: a job-page board's chain (each page links the
-- next job's page by its id) is read one page after another, whoever reads it. Claimed in due
-- order, such a chain started wherever its key fell, and the window ended that late after it.
-- last_pages is the pages of the source's last read (NULL: never read); a claim takes the due
-- sources of oltp.LongSourcePages pages or more first, longest first (longest-processing-time
-- first), then the rest in due order. The partial index holds the long ones only (tens of boards
-- and feeds among 100,000 sources), in the claim's order, so that claim sorts nothing either.
ALTER TABLE crawl_sources ADD COLUMN last_pages integer;
UPDATE crawl_sources s SET last_pages = r.pages
FROM (SELECT DISTINCT ON (source_key) source_key, pages FROM crawl_reads ORDER BY source_key, tick DESC) r
WHERE r.source_key = s.source_key;
CREATE INDEX crawl_sources_long_idx ON crawl_sources (last_pages DESC, source_key)
    WHERE status IN ('active', 'suspect') AND last_pages >= 32;
