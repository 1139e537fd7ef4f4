-- Metering moves to Postgres one write-ahead-log segment at a time, rolled up: usage_events rows
-- are now aggregates (calls and units summed per customer, key, route, meter class, function,
-- forced_fresh and second) and unit_id is "<segment_id>:<n>". A segment is recorded here in the
-- same transaction, so replaying it after a crash is skipped whole and doubles nothing.
-- Rows older than the replay horizon are pruned by the API's janitor.
CREATE TABLE usage_segments (
    segment_id text PRIMARY KEY,
    records    integer NOT NULL,
    flushed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_segments_flushed_idx ON usage_segments (flushed_at);
