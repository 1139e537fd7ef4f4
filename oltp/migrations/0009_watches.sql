-- Watches (spec 2.3, 3, 4.4): one company (company_id) or one saved search (criteria, the JSON
-- document as sent and validated, re-parsed by the notifier), bound to a live webhook endpoint of
-- the same customer. A canceled watch keeps its row (canceled_at) and frees its slot of the
-- account's live-watch allowance.
CREATE TABLE watches (
    watch_id           bigserial PRIMARY KEY,
    customer_id        text NOT NULL REFERENCES customers (customer_id),
    account_id         bigint NOT NULL REFERENCES accounts (account_id),
    endpoint_id        bigint NOT NULL REFERENCES webhook_endpoints (endpoint_id),
    company_id         bigint,
    criteria           jsonb,
    event_types        text[] NOT NULL,
    max_fires_per_hour integer NOT NULL CHECK (max_fires_per_hour BETWEEN 1 AND 1000),
    created_at         timestamptz NOT NULL DEFAULT now(),
    last_fired_at      timestamptz,
    canceled_at        timestamptz,
    CHECK ((company_id IS NULL) <> (criteria IS NULL))
);
CREATE INDEX watches_customer_live_idx ON watches (customer_id, created_at DESC, watch_id DESC) WHERE canceled_at IS NULL;
CREATE INDEX watches_account_live_idx ON watches (account_id) WHERE canceled_at IS NULL;
CREATE INDEX watches_endpoint_live_idx ON watches (endpoint_id) WHERE canceled_at IS NULL;
CREATE INDEX watches_company_live_idx ON watches (company_id) WHERE canceled_at IS NULL AND company_id IS NOT NULL;

-- One row per fire of a watch (a delivery the notifier made for it; deliveries dropped as
-- rate_limited are not fires). GET /v1/watches counts fires_last_hour, fires_last_7d and
-- fires_last_30d from it; watches.last_fired_at is kept with each fire (RecordWatchFire), so rows
-- older than 30 days may be pruned.
CREATE TABLE watch_fires (
    watch_id  bigint NOT NULL REFERENCES watches (watch_id),
    fired_at  timestamptz NOT NULL,
    event_seq bigint
);
CREATE INDEX watch_fires_watch_idx ON watch_fires (watch_id, fired_at DESC);
