-- Webhook endpoints (spec 2.3, 4.4): a customer's registered receivers. The signing secret is
-- needed to sign, so it cannot be hashed: it is stored sealed (AES-GCM, package secretbox) with
-- additional data binding it to its row (EndpointAAD), never in plain text. During a rotation's
-- overlap the previous secret still signs until previous_secret_expires_at.
-- A deleted endpoint keeps its row (deliveries may name it) but frees its url: re-registering the
-- url afterwards makes a new endpoint. One live endpoint per customer and url (idempotent POST).
CREATE TABLE webhook_endpoints (
    endpoint_id                bigserial PRIMARY KEY,
    customer_id                text NOT NULL REFERENCES customers (customer_id),
    url                        text NOT NULL,
    secret_sealed              bytea NOT NULL,
    previous_secret_sealed     bytea,
    previous_secret_expires_at timestamptz,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    secret_rotated_at          timestamptz,
    deleted_at                 timestamptz,
    CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL))
);
CREATE UNIQUE INDEX webhook_endpoints_live_url_idx ON webhook_endpoints (customer_id, url) WHERE deleted_at IS NULL;
CREATE INDEX webhook_endpoints_customer_idx ON webhook_endpoints (customer_id, endpoint_id) WHERE deleted_at IS NULL;
