-- Spend-cap holds (docs/decisions.md, "Several instances"): how many units of an account's
-- billing month each API instance (owner: its metering log's instance id) may meter on top of
-- what usage_monthly holds. An instance admits a capped call from its own hold, in memory; it
-- asks for more under the account's advisory lock, where usage_monthly.units plus every live
-- hold is checked against the hard cap, so the instances together pass the cap by less than one
-- page, as one instance does. The metering flush takes a segment's units off its owner's hold in
-- the transaction that adds them to usage_monthly, so no unit is counted in both, or in neither.
-- A hold past expires_at (its owner died or lost Postgres) no longer counts. Logged: a promoted
-- standby keeps the holds, as it keeps usage_monthly.
CREATE TABLE spend_holds (
    account_id bigint NOT NULL,
    month      date NOT NULL,
    owner      text NOT NULL,
    held       bigint NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, month, owner)
);

-- The crawl's ledger head (docs/decisions.md, "Crawl windows, workers and the committer"), one
-- row per ledger (the ClickHouse database), written under the crawl's commit lock: the highest
-- event_seq of an acknowledged commit and its window, and the commit handed out and not yet
-- acknowledged (pending_*: its positions, its window and the write itself, encoded, to be sent
-- again byte for byte). A commit records its pending row before it writes to ClickHouse and
-- clears it, moving committed_to up to pending_to, once ClickHouse acknowledged the write; the
-- next commit numbers from committed_to + 1 only while nothing is pending, and first sends a
-- pending write again until it is acknowledged. So a position once handed out is never handed
-- out again, and a write in unknown state lands once, as it was numbered.
CREATE TABLE crawl_ledger_heads (
    ledger           text PRIMARY KEY,
    committed_to     bigint NOT NULL,
    committed_region text NOT NULL DEFAULT '',
    committed_tick   bigint NOT NULL DEFAULT 0,
    pending_from     bigint,
    pending_to       bigint,
    pending_region   text,
    pending_tick     bigint,
    pending_write    bytea,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
