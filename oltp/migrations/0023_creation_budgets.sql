-- Daily creation budgets (docs/decisions.md, "Daily creation budgets and a paged key list"): a key,
-- a webhook endpoint, a watch or a quickstart is created only while its customer (for watches:
-- account) created fewer than its budget (oltp.Budgets) in the last 24 hours, counted over these
-- indexes. Revoked keys, deleted endpoints and canceled watches keep their rows, so they count.
CREATE INDEX api_keys_customer_created_idx ON api_keys (customer_id, created_at);
CREATE INDEX webhook_endpoints_customer_created_idx ON webhook_endpoints (customer_id, created_at);
CREATE INDEX watches_account_created_idx ON watches (account_id, created_at);
CREATE INDEX quickstarts_customer_created_idx ON quickstarts (customer_id, created_at);

-- GET /v1/keys pages by key_id within a customer (oltp.ListKeys): this index serves the page and
-- every lookup api_keys_customer_idx served, which it replaces.
CREATE INDEX api_keys_customer_key_idx ON api_keys (customer_id, key_id);
DROP INDEX api_keys_customer_idx;

-- oltp.PruneRetired (for a periodic job) finds retired rows past their retention by these, and
-- checks that nothing names them by the last four.
CREATE INDEX api_keys_revoked_idx ON api_keys (revoked_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX webhook_endpoints_deleted_idx ON webhook_endpoints (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX watches_canceled_idx ON watches (canceled_at) WHERE canceled_at IS NOT NULL;
CREATE INDEX api_keys_parent_idx ON api_keys (parent_key_id) WHERE parent_key_id IS NOT NULL;
CREATE INDEX api_keys_limit_idx ON api_keys (limit_id) WHERE limit_id IS NOT NULL;
CREATE INDEX watches_key_idx ON watches (key_id) WHERE key_id IS NOT NULL;
CREATE INDEX watches_endpoint_idx ON watches (endpoint_id);
