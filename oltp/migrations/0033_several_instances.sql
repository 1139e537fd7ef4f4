-- Several serve instances on one Postgres (docs/decisions.md, "Several instances").
--
-- leader_leases: the one holder of a role every instance competes for (notifier, janitor). The
-- holder renews expires_at by heartbeat; once it lapses another instance takes the row over and
-- increments token. token is a fencing token: a write only the holder may make (the notifier's
-- position update) checks it, with the row locked FOR SHARE, in its own transaction, so a holder
-- that lost its lease (paused, cut off) writes nothing once another took over. A row rather than
-- a session advisory lock: it survives a connection pooler, it is on the primary by construction
-- (an advisory lock taken on a standby succeeds and coordinates nothing) and an operator reads
-- who holds what with a SELECT.
CREATE TABLE leader_leases (
    role        text PRIMARY KEY,
    owner       text NOT NULL,
    token       bigint NOT NULL,
    acquired_at timestamptz NOT NULL,
    renewed_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);

-- An Idempotency-Key claim in flight belongs to the instance running its call (owner), which
-- renews claimed_until while the call runs. A pending claim past claimed_until is taken over by
-- the next call with the same key and request on any instance: its owner died (or lost
-- Postgres) mid-call. Rows claimed before this migration, or by an instance of an earlier
-- release during a rolling deploy, carry no owner and lapse 30 s after they were claimed (the
-- column default; existing rows are read as created_at + 30 s, so adding the column rewrites
-- nothing).
ALTER TABLE idempotency_keys ADD COLUMN owner text;
ALTER TABLE idempotency_keys ADD COLUMN claimed_until timestamptz;
ALTER TABLE idempotency_keys ALTER COLUMN claimed_until SET DEFAULT now() + interval '30 seconds';
