-- A worker's read whose postings fall far below its source's last ok read (the crawl's mass-drop
-- rule) asks for a refetch inside its window: refetch_due is when it is due (NULL: none asked, or
-- it was stored). A refetch that reads ok replaces the read and keeps the first read's time in
-- suspect_read_at, so the committer knows the read it commits confirms (or clears) a drop.
-- last_ok_count is the postings of the source's last ok read taken as it was (not a drop waiting
-- for its refetch): what a worker holds the next read to.
ALTER TABLE crawl_reads ADD COLUMN refetch_due timestamptz, ADD COLUMN suspect_read_at timestamptz;
ALTER TABLE crawl_sources ADD COLUMN last_ok_count integer;
UPDATE crawl_sources SET last_ok_count = last_count WHERE last_status = 'ok';
