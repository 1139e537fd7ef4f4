-- The employer's own posting date (Personio createdAt, JSON-LD datePosted, Greenhouse
-- first_published, ...) as the best posting of the req states it at each event; NULL when the
-- source gives none. first_seen stays the crawl's first sighting. ClickHouse 18.16 has no
-- ADD COLUMN IF NOT EXISTS: analytics.Migrate drops an ADD COLUMN whose column exists, so a rerun
-- after a failure before the record is safe. In cluster mode the ALTER runs on the local
-- replicated table and ZooKeeper carries it to the other replicas.
ALTER TABLE events {ON_CLUSTER} ADD COLUMN posted_at Nullable(DateTime);
