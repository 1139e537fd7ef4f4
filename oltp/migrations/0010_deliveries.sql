-- Push, part 2: the delivery engine's tables.
--
-- The notifier tails the committed ClickHouse ledger by event_seq; notifier_position is how far
-- it has matched (one row), advanced in the same transaction that writes the deliveries of the
-- events up to it, so a restart resumes exactly there and writes nothing twice.
CREATE TABLE notifier_position (
    id         integer PRIMARY KEY CHECK (id = 1),
    event_seq  bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The key that created a watch: its delivered changes are metered to it (usage is per key).
ALTER TABLE watches ADD COLUMN key_id bigint REFERENCES api_keys (key_id);

-- An endpoint that answered 410, or failed every attempt for days, is disabled: nothing more is
-- sent to it until it is registered again; GET /v1/webhooks says so.
ALTER TABLE webhook_endpoints ADD COLUMN disabled_at timestamptz;
ALTER TABLE webhook_endpoints ADD COLUMN disabled_reason text;
ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz;

-- One row per (watch, event) whatever crashes (UNIQUE), plus test deliveries (watch_id and
-- event_seq NULL). body is the exact bytes signed and sent, so a retry or a replay sends and
-- signs the same bytes. idempotency_key is sent as X-Plane-Idempotency-Key and webhook-id and is
-- the id of the billed unit (usage_events.unit_id = 'delivery:' || idempotency_key), so an
-- accepted delivery is billed once even when it is accepted twice.
-- status: see docs/decisions.md ("Push: deliveries"); the terminal blocked states
-- (rate_limited, wall_blocked, cap_blocked) are never sent.
CREATE TABLE webhook_deliveries (
    delivery_id     bigserial PRIMARY KEY,
    idempotency_key text NOT NULL UNIQUE,
    customer_id     text NOT NULL REFERENCES customers (customer_id),
    account_id      bigint NOT NULL REFERENCES accounts (account_id),
    key_id          bigint,
    endpoint_id     bigint NOT NULL REFERENCES webhook_endpoints (endpoint_id),
    watch_id        bigint REFERENCES watches (watch_id),
    event_seq       bigint,
    event_type      text NOT NULL,
    body            bytea NOT NULL,
    status          text NOT NULL,
    attempt_count   integer NOT NULL DEFAULT 0,
    response_status integer,
    response_ms     integer,
    next_attempt_at timestamptz,
    delivered_at    timestamptz,
    billed_at       timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (watch_id, event_seq)
);
CREATE INDEX webhook_deliveries_customer_idx ON webhook_deliveries (customer_id, delivery_id DESC);
CREATE INDEX webhook_deliveries_watch_idx ON webhook_deliveries (watch_id, delivery_id DESC) WHERE watch_id IS NOT NULL;
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, delivery_id DESC);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;

-- Every attempt of a delivery: when, what came back (response_status NULL when no HTTP response:
-- connection refused, timeout, refused address) and how long it took.
CREATE TABLE webhook_delivery_attempts (
    delivery_id     bigint NOT NULL REFERENCES webhook_deliveries (delivery_id) ON DELETE CASCADE,
    attempt         integer NOT NULL,
    started_at      timestamptz NOT NULL,
    response_status integer,
    response_ms     integer,
    error           text,
    PRIMARY KEY (delivery_id, attempt)
);
