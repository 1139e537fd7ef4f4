-- Walls you see coming (docs/decisions.md, "Plans, limits, quotas and spend caps"; "Notifier").
--
-- What happens to a watch's change once the account's delivered changes of the billing month
-- reached its plan's allowance: stop (the spec's wall: wall_blocked, never sent), overage
-- (delivered and charged at the plan's delivered_change price) or queue (held, replayable once
-- there is room). Only plans that charge units may choose overage or queue (plans.Tier.Overflows);
-- any other plan stops whatever is stored here.
ALTER TABLE accounts ADD COLUMN wall_overflow text NOT NULL DEFAULT 'stop'
    CHECK (wall_overflow IN ('stop', 'overage', 'queue'));

-- queued: a wall_blocked delivery held under overflow queue. It keeps its body (never served
-- while queued) so a replay sends it once the allowance has room; a replay clears the flag.
-- overage: a watch delivery admitted past the allowance under overflow overage; once accepted
-- (billed_at) it is charged at the plan's delivered_change price.
-- account_event_id: a delivery of an account event (an allowance warning) to one endpoint of
-- the customer (watch_id and event_seq NULL, never billed); NULL for every other delivery.
ALTER TABLE webhook_deliveries ADD COLUMN queued boolean NOT NULL DEFAULT false;
ALTER TABLE webhook_deliveries ADD COLUMN overage boolean NOT NULL DEFAULT false;
ALTER TABLE webhook_deliveries ADD COLUMN account_event_id bigint;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_blocked_without_body;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_blocked_without_body
    CHECK (status NOT IN ('rate_limited', 'wall_blocked', 'cap_blocked') OR body IS NULL OR (status = 'wall_blocked' AND queued));
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_queued_at_the_wall
    CHECK (NOT queued OR status = 'wall_blocked');
-- A month's bill counts the overage deliveries accepted in it; the watch status counts the queue.
CREATE INDEX webhook_deliveries_account_overage_idx ON webhook_deliveries (account_id, billed_at) WHERE overage;
CREATE INDEX webhook_deliveries_account_queued_idx ON webhook_deliveries (account_id, created_at) WHERE queued;

-- Account events: a warning that an allowance of the account reached 80% or 100% of its limit in
-- a period, raised once per (account, allowance, period, limit, threshold): an upgrade raises the
-- new limit's warnings when they are reached. Served on GET /v1/events (account_events) and
-- delivered, signed, to every live endpoint of the customer.
CREATE TABLE account_events (
    account_event_id bigserial PRIMARY KEY,
    customer_id      text NOT NULL,
    account_id       bigint NOT NULL REFERENCES accounts (account_id),
    event_type       text NOT NULL,
    allowance        text NOT NULL,
    threshold        integer NOT NULL,
    allowance_limit  bigint NOT NULL,
    used             bigint NOT NULL,
    overflow         text NOT NULL,
    period_start     timestamptz NOT NULL,
    resets_at        timestamptz NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, allowance, period_start, allowance_limit, threshold)
);
CREATE INDEX account_events_account_idx ON account_events (account_id, created_at);
