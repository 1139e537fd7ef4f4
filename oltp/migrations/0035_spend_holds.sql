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
