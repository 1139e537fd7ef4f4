-- Blocked watch deliveries (rate_limited, wall_blocked, cap_blocked) keep no body and are never
-- sent, but a watch matching everything writes one per event past its limits. The wall's
-- admission count (oltp.accountDeliveryStates, run in every notifier batch) read the account's
-- month from webhook_deliveries_account_month_idx, blocked rows included, so a Free account's
-- blocked rows made every batch slower until the month turned. The count reads an index of the
-- admitted rows only, with the same predicate as its query.
CREATE INDEX webhook_deliveries_account_admitted_idx ON webhook_deliveries (account_id, created_at)
    WHERE watch_id IS NOT NULL AND (status IN ('pending', 'retrying', 'delivered') OR billed_at IS NOT NULL);
DROP INDEX webhook_deliveries_account_month_idx;
-- Blocked rows past oltp.BlockedDeliveryRetention are deleted (oltp.PruneRetired), oldest first.
CREATE INDEX webhook_deliveries_blocked_age_idx ON webhook_deliveries (created_at)
    WHERE status IN ('rate_limited', 'wall_blocked', 'cap_blocked');
