-- Push, part 2: what the delivery routes need beyond migration 0010.
--
-- A replay (POST /v1/webhook-deliveries/{delivery_id}/replay) reopens a delivered or failed
-- delivery: replayed_at is when it was last reopened and replay_count how many times, so the
-- customer sees it and the dispatcher may count a replay's retry schedule from replayed_at
-- rather than created_at.
ALTER TABLE webhook_deliveries ADD COLUMN replayed_at timestamptz;
ALTER TABLE webhook_deliveries ADD COLUMN replay_count integer NOT NULL DEFAULT 0;

-- GET /v1/webhook-deliveries?status=...: a customer's deliveries of some statuses, newest first.
CREATE INDEX webhook_deliveries_customer_status_idx ON webhook_deliveries (customer_id, status, delivery_id DESC);
-- The usage dashboard's blocked counts of the billing month.
CREATE INDEX webhook_deliveries_blocked_idx ON webhook_deliveries (customer_id, created_at)
    WHERE status IN ('wall_blocked', 'cap_blocked');
-- The test-delivery bound (POST /v1/webhooks/{id}/test): an endpoint's test deliveries of the
-- last minute.
CREATE INDEX webhook_deliveries_tests_idx ON webhook_deliveries (endpoint_id, created_at) WHERE watch_id IS NULL;
