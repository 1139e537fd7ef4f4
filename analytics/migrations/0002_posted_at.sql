-- The employer's own posting date (Personio createdAt, JSON-LD datePosted, Greenhouse
-- first_published, ...) as the best posting of the req states it at each event; NULL when the
-- source gives none. first_seen stays the crawl's first sighting. ClickHouse 18.16 has no
-- ADD COLUMN IF NOT EXISTS: this file is one statement, recorded right after it succeeds.
ALTER TABLE events {ON_CLUSTER} ADD COLUMN posted_at Nullable(DateTime);
