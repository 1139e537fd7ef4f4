-- Push, part 2: what the notifier's pre-send checks read per batch (docs/decisions.md, "Push:
-- notifier"). The plan's monthly delivered-changes allowance counts an account's watch deliveries
-- created this billing month that are admitted and not failed; the spend cap adds the account's
-- watch deliveries still waiting to be sent (pending or retrying, billed when accepted).
CREATE INDEX webhook_deliveries_account_month_idx ON webhook_deliveries (account_id, created_at)
    WHERE watch_id IS NOT NULL;
CREATE INDEX webhook_deliveries_account_unsent_idx ON webhook_deliveries (account_id)
    WHERE watch_id IS NOT NULL AND status IN ('pending', 'retrying');
