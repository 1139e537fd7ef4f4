-- Push, part 2: the dispatcher's claim lease.
--
-- A dispatcher claims due deliveries (FOR UPDATE SKIP LOCKED) and sets claimed_until: until
-- then no other dispatcher sends the row, after it (a crash before the attempt was recorded) the
-- row is due again. The lease is its own column, not a move of next_attempt_at, and it is not
-- indexed, so a claim changes no indexed column and is a heap-only (HOT) update when the page has
-- room; the fill factor leaves that room (each delivery is updated twice: claimed, recorded).
ALTER TABLE webhook_deliveries ADD COLUMN claimed_until timestamptz;
ALTER TABLE webhook_deliveries SET (fillfactor = 70);
