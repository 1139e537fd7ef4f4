-- Why a change happened and when it may have: close_reason is '' for an ordinary close and
-- 'source_retired' when the only sources that carried the req were retired by an operator;
-- gap_from and gap_to bound an event first seen in the first cycle of a region after a gap (its
-- last committed cycle_time before the gap and this cycle's): the change happened somewhere in
-- that interval. Epoch zero is none. ClickHouse 18.16 has no ADD COLUMN IF NOT EXISTS:
-- analytics.Migrate drops each ADD COLUMN whose column exists, so a rerun after a failure part-way
-- adds only the columns still missing.
ALTER TABLE events {ON_CLUSTER}
    ADD COLUMN close_reason String DEFAULT '',
    ADD COLUMN gap_from DateTime DEFAULT toDateTime(0),
    ADD COLUMN gap_to DateTime DEFAULT toDateTime(0);
