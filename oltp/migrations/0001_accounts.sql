-- Customers, their accounts and API keys. Keys are stored only as SHA-256 digests.
CREATE TABLE customers (
    customer_id   text PRIMARY KEY,
    contact_email text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE accounts (
    account_id     bigserial PRIMARY KEY,
    customer_id    text NOT NULL REFERENCES customers (customer_id),
    tier           text NOT NULL,
    account_status text NOT NULL DEFAULT 'active',
    paused         boolean NOT NULL DEFAULT false,
    soft_cap_units bigint,
    hard_cap_units bigint,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_customer_idx ON accounts (customer_id);

CREATE TABLE api_keys (
    key_id        bigserial PRIMARY KEY,
    account_id    bigint NOT NULL REFERENCES accounts (account_id),
    customer_id   text NOT NULL REFERENCES customers (customer_id),
    key_hash      bytea NOT NULL UNIQUE,
    display       text NOT NULL,
    scopes        text[] NOT NULL,
    is_demo       boolean NOT NULL DEFAULT false,
    parent_key_id bigint REFERENCES api_keys (key_id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    revoked_at    timestamptz
);
CREATE INDEX api_keys_customer_idx ON api_keys (customer_id);
