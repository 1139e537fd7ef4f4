-- Coverage requests: a company a customer asked about (a miss of POST /v1/migration-import) that
-- the read model does not know. One row per customer and company key (the normalized domain when
-- one was sent, else the normalized name); asking again counts and moves last_requested_at.
-- Customers list their own (GET /v1/coverage-requests); the crawl operator reads the table whole
-- (most-asked first: coverage_requests_key_idx groups the customers asking for one company).
CREATE TABLE coverage_requests (
    request_id         bigserial PRIMARY KEY,
    customer_id        text NOT NULL REFERENCES customers (customer_id),
    match_key          text NOT NULL,
    domain             text,
    name               text,
    source             text NOT NULL DEFAULT 'migration_import',
    times_requested    integer NOT NULL DEFAULT 1,
    first_requested_at timestamptz NOT NULL DEFAULT now(),
    last_requested_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (customer_id, match_key)
);
CREATE INDEX coverage_requests_key_idx ON coverage_requests (match_key);

-- Quickstarts: what POST /v1/quickstart set up for a customer and webhook_url — the endpoint and
-- the watch it created — so calling again (or twice at once: the primary key serializes them)
-- answers the same endpoint and watch and creates neither again.
CREATE TABLE quickstarts (
    customer_id  text NOT NULL REFERENCES customers (customer_id),
    webhook_url  text NOT NULL,
    endpoint_id  bigint,
    watch_id     bigint,
    company_id   bigint,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (customer_id, webhook_url)
);

-- GET /v1/onboarding reads the first delivery an endpoint accepted: one index probe.
CREATE INDEX webhook_deliveries_endpoint_delivered_idx ON webhook_deliveries (endpoint_id, delivered_at) WHERE delivered_at IS NOT NULL;
