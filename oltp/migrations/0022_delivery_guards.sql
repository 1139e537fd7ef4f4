-- Push: guards of the delivery routes (docs/decisions.md, "Push: what a delivery gives away,
-- and how often").
--
-- A blocked delivery (rate_limited, wall_blocked, cap_blocked) was never sent and never will be:
-- it keeps no body. What it would have said is neither stored nor served (GET
-- /v1/webhook-deliveries/{id} answers body null); the row keeps what shows it (watch, event_seq,
-- event_type, status). The bodies already stored are dropped, and a CHECK keeps any writer from
-- storing one again.
ALTER TABLE webhook_deliveries ALTER COLUMN body DROP NOT NULL;
UPDATE webhook_deliveries SET body = NULL
    WHERE status IN ('rate_limited', 'wall_blocked', 'cap_blocked') AND body IS NOT NULL;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_blocked_without_body
    CHECK (status NOT IN ('rate_limited', 'wall_blocked', 'cap_blocked') OR body IS NULL);

-- A replay of a watch delivery never billed admits it again against the wall and the cap, as the
-- notifier admits a new one; readmitted_at is when, so it counts against that billing month's
-- allowance even when it was created in an earlier month.
ALTER TABLE webhook_deliveries ADD COLUMN readmitted_at timestamptz;
CREATE INDEX webhook_deliveries_account_readmitted_idx ON webhook_deliveries (account_id, readmitted_at)
    WHERE watch_id IS NOT NULL AND readmitted_at IS NOT NULL;

-- Every replay that reopened a delivery, for the customer's daily replay budget
-- (oltp.MaxReplaysPerDay in any 24 hours); rows older than the window are deleted by the next
-- replay of the customer. A log of counts, not a relation: no foreign key to take locks on.
CREATE TABLE webhook_delivery_replays (
    customer_id text NOT NULL,
    delivery_id bigint NOT NULL,
    replayed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_delivery_replays_customer_idx ON webhook_delivery_replays (customer_id, replayed_at);

-- The customer's daily test-delivery budget (oltp.MaxTestDeliveriesPerDay across its endpoints,
-- deleted ones included): its test deliveries of the last 24 hours.
CREATE INDEX webhook_deliveries_customer_tests_idx ON webhook_deliveries (customer_id, created_at) WHERE watch_id IS NULL;
