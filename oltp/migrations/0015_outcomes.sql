-- Outcomes, the intent score and attribution (docs/decisions.md, "Outcomes, intent and
-- attribution").
--
-- outcome_labels: what a customer told us converted (POST /v1/companies/{company_id}/outcomes).
-- Append-only: no route edits or deletes a label (a correction is a new label); the janitor
-- deletes a label once its occurred_at is older than the retention (oltp.OutcomeRetention).
-- A label is served only to its own customer; every customer's labels feed the shared intent
-- score as counts only. external_id (the CRM's id of the activity) makes a re-send idempotent
-- per customer: UNIQUE (customer_id, external_id), NULLs distinct (labels sent without one).
CREATE TABLE outcome_labels (
    outcome_id  bigserial PRIMARY KEY,
    customer_id text NOT NULL REFERENCES customers (customer_id),
    account_id  bigint NOT NULL REFERENCES accounts (account_id),
    key_id      bigint,
    company_id  bigint NOT NULL,
    outcome     text NOT NULL,
    positive    boolean NOT NULL,
    occurred_at timestamptz NOT NULL,
    external_id text,
    note        text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (customer_id, external_id)
);
-- Intent: every customer's labels of one company, and the training aggregate of a window.
CREATE INDEX outcome_labels_company_idx ON outcome_labels (company_id, occurred_at);
CREATE INDEX outcome_labels_occurred_idx ON outcome_labels (occurred_at);
-- Attribution: the caller's labels, newest first.
CREATE INDEX outcome_labels_customer_idx ON outcome_labels (customer_id, outcome_id DESC);

-- Attribution joins a customer's labels to the deliveries its endpoints accepted for the same
-- company. The company of a delivery is in its body (payload.Body.company_id); it is copied into
-- a column when the row is written (a trigger, so the notifier's statements stay as they are)
-- and filled in once for the rows already there. A body that is not JSON leaves it NULL.
ALTER TABLE webhook_deliveries ADD COLUMN company_id bigint;

CREATE FUNCTION webhook_delivery_company_id(body bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN (convert_from(body, 'UTF8')::jsonb ->> 'company_id')::bigint;
EXCEPTION WHEN others THEN
    RETURN NULL;
END;
$$;

CREATE FUNCTION webhook_deliveries_set_company_id() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.company_id IS NULL AND NEW.watch_id IS NOT NULL THEN
        NEW.company_id := webhook_delivery_company_id(NEW.body);
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER webhook_deliveries_company_id BEFORE INSERT ON webhook_deliveries
    FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_set_company_id();

UPDATE webhook_deliveries SET company_id = webhook_delivery_company_id(body)
    WHERE company_id IS NULL AND watch_id IS NOT NULL;

CREATE INDEX webhook_deliveries_accepted_company_idx ON webhook_deliveries (customer_id, company_id, delivered_at)
    WHERE delivered_at IS NOT NULL AND watch_id IS NOT NULL;
