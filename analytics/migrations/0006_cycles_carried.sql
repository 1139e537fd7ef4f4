-- The sources of a cycle whose chain of pages was read in part and goes on in the next window
-- (pipeline.StatusPartial): their reqs seen count, none of theirs closes, and they are neither ok
-- nor failed. Before this column the row counted them in sources_failed; rows written before it
-- read 0 here. sources_total = sources_ok + sources_failed + sources_carried + the sources read
-- suspect (the mass-drop guard's, in none of the three). ClickHouse 18.16 has no ADD COLUMN IF
-- NOT EXISTS: analytics.Migrate drops an ADD COLUMN whose column exists.
ALTER TABLE cycles {ON_CLUSTER} ADD COLUMN sources_carried UInt32 DEFAULT 0;
