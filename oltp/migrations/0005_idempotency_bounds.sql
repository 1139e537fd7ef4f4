-- Bounds of the Idempotency-Key store. Each row records the bytes of the answer it
-- keeps (body_bytes) and idempotency_budget holds their sum per customer, maintained in the
-- statements that keep and expire answers, so a customer keeps at most a bounded number of bytes
-- (api.Config.IdempotencyCustomerBytes). An answer that does not fit, or is larger than the
-- per-answer bound, is recorded as state 'served': the call was answered and metered once, and a
-- replay says its answer was not kept instead of running (and metering) it again.
ALTER TABLE idempotency_keys ADD COLUMN body_bytes integer NOT NULL DEFAULT 0;
UPDATE idempotency_keys SET body_bytes = octet_length(body) WHERE body IS NOT NULL;

CREATE TABLE idempotency_budget (
    customer_id text PRIMARY KEY,
    bytes       bigint NOT NULL DEFAULT 0
);
INSERT INTO idempotency_budget (customer_id, bytes)
SELECT customer_id, sum(body_bytes) FROM idempotency_keys WHERE body_bytes > 0 GROUP BY customer_id;
