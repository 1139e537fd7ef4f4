-- API platform: key provenance, per-account rate override, the usage ledger and its monthly
-- rollup, cross-instance rate/quota windows, idempotent responses and the schema changelog.
ALTER TABLE api_keys ADD COLUMN acquisition_surface text NOT NULL DEFAULT 'api';
CREATE INDEX api_keys_account_idx ON api_keys (account_id);

-- Contract override of the per-key calls per 60 s (enterprise plans, load runs); NULL = the plan's.
ALTER TABLE accounts ADD COLUMN calls_per_minute integer;

-- One row per metered call or pushed unit. unit_id is minted by the API instance before the
-- response leaves, so replaying the write-ahead log never doubles a unit.
CREATE TABLE usage_events (
    unit_id      text PRIMARY KEY,
    customer_id  text NOT NULL,
    account_id   bigint NOT NULL,
    key_id       bigint NOT NULL,
    method       text NOT NULL,
    route        text NOT NULL,
    meter_class  text NOT NULL,
    function     text,
    calls        integer NOT NULL,
    units        bigint NOT NULL,
    forced_fresh boolean NOT NULL DEFAULT false,
    occurred_at  timestamptz NOT NULL,
    recorded_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_events_customer_time_idx ON usage_events (customer_id, occurred_at);
CREATE INDEX usage_events_key_time_idx ON usage_events (key_id, occurred_at);

-- Units and calls per account per UTC billing month, maintained in the same statement that
-- inserts usage_events (only rows actually inserted count), read by the spend-cap check.
CREATE TABLE usage_monthly (
    account_id bigint NOT NULL,
    month      date NOT NULL,
    calls      bigint NOT NULL DEFAULT 0,
    units      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, month)
);

-- Shared fixed-window counters (rate limit and daily quota) leased in blocks by API instances.
-- UNLOGGED: a Postgres crash forgets at most the current windows, which is acceptable for limits.
CREATE UNLOGGED TABLE rate_windows (
    scope        text NOT NULL,
    window_start bigint NOT NULL,
    used         bigint NOT NULL,
    expires_at   bigint NOT NULL,
    PRIMARY KEY (scope, window_start)
);
CREATE INDEX rate_windows_expires_idx ON rate_windows (expires_at);

-- Stored responses of calls carrying Idempotency-Key, per customer, kept 24 h.
CREATE TABLE idempotency_keys (
    customer_id  text NOT NULL,
    idem_key     text NOT NULL,
    request_hash bytea NOT NULL,
    state        text NOT NULL DEFAULT 'pending',
    status       integer,
    content_type text,
    body         bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (customer_id, idem_key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- One row per change of the generated OpenAPI document.
CREATE TABLE schema_changelog (
    id                bigserial PRIMARY KEY,
    recorded_at       timestamptz NOT NULL DEFAULT now(),
    api_version       text NOT NULL,
    doc_hash          text NOT NULL UNIQUE,
    operations        jsonb NOT NULL,
    endpoints_changed text[] NOT NULL
);

-- API instances that cache keys: each heartbeats here, so a key or account change can wait
-- until every live instance acknowledged dropping its cache.
CREATE UNLOGGED TABLE api_instances (
    instance_id text PRIMARY KEY,
    heartbeat   timestamptz NOT NULL DEFAULT now()
);
