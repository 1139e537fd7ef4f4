-- The daily label budget (docs/decisions.md, "Outcome labels: a budget and capped votes"): a
-- label is appended only while its customer wrote fewer than oltp.MaxLabelsPerDay in the last 24
-- hours, counted over this index.
CREATE INDEX outcome_labels_customer_created_idx ON outcome_labels (customer_id, created_at);
