-- Votes of the outcome labels (docs/decisions.md, "Outcome votes: a maintained aggregate with
-- bounded reads"). A customer's labels count at most oltp.MaxVotesPerCompany (10) per company, its
-- newest by (occurred_at, outcome_id). The intent read (GET /v1/companies/{id}/intent) and the
-- model's refit used to window-sort every label of a company, or of the training window, on each
-- call: one customer labelling one company 10,000 times a day made every read sort 300,000 rows
-- within 30 days. outcome_votes holds exactly each (customer, company)'s newest 10 labels, kept by
-- the triggers below on every insert, delete, update and truncate of outcome_labels, so:
--   - a company's counts read its votes: at most 10 per customer (outcome_votes_company_idx);
--   - the refit reads each customer's newest oltp.MaxVotesPerCustomer votes of the window with an
--     index range scan that stops there (outcome_votes_customer_idx), whatever the labels behind.
-- The window changes nothing: a pair's newest 10 labels occurred at or after a date are its
-- newest 10 overall that did, since both orders are by occurred_at.
CREATE TABLE outcome_votes (
    outcome_id  bigint PRIMARY KEY,
    customer_id text NOT NULL,
    company_id  bigint NOT NULL,
    positive    boolean NOT NULL,
    occurred_at timestamptz NOT NULL
);
CREATE INDEX outcome_votes_company_idx ON outcome_votes (company_id) INCLUDE (positive);
CREATE INDEX outcome_votes_customer_idx ON outcome_votes (customer_id, occurred_at DESC, outcome_id DESC) INCLUDE (company_id, positive);
CREATE INDEX outcome_votes_pair_idx ON outcome_votes (customer_id, company_id, occurred_at DESC, outcome_id DESC);
-- A pair's newest labels, to refresh its votes.
CREATE INDEX outcome_labels_pair_idx ON outcome_labels (customer_id, company_id, occurred_at DESC, outcome_id DESC);

-- Two statements never change the votes of one pair at once: an insert takes the advisory lock
-- 'outcome-votes' shared and its customers' 'labels:' locks (the one oltp.AppendLabel already
-- holds); a delete or an update (the retention janitor) takes 'outcome-votes' exclusively rather
-- than one lock per customer.
--
-- outcome_votes_refresh makes the votes of the (customer, company) pairs given exactly their
-- newest 10 labels.
CREATE FUNCTION outcome_votes_refresh(customers text[], companies bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM outcome_votes v USING unnest(customers, companies) AS p(customer_id, company_id)
        WHERE v.customer_id = p.customer_id AND v.company_id = p.company_id;
    INSERT INTO outcome_votes (outcome_id, customer_id, company_id, positive, occurred_at)
        SELECT l.outcome_id, l.customer_id, l.company_id, l.positive, l.occurred_at
        FROM unnest(customers, companies) AS p(customer_id, company_id)
        CROSS JOIN LATERAL (
            SELECT outcome_id, customer_id, company_id, positive, occurred_at FROM outcome_labels o
            WHERE o.customer_id = p.customer_id AND o.company_id = p.company_id
            ORDER BY o.occurred_at DESC, o.outcome_id DESC LIMIT 10) l;
END;
$$;

CREATE FUNCTION outcome_votes_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    c text;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtext('outcome-votes'));
    FOR c IN SELECT DISTINCT customer_id FROM added ORDER BY customer_id LOOP
        PERFORM pg_advisory_xact_lock(hashtext('labels:' || c));
    END LOOP;
    -- A pair's newest 10 labels are the newest 10 of its votes and of the labels added.
    INSERT INTO outcome_votes (outcome_id, customer_id, company_id, positive, occurred_at)
        SELECT outcome_id, customer_id, company_id, positive, occurred_at FROM (
            SELECT outcome_id, customer_id, company_id, positive, occurred_at,
                row_number() OVER (PARTITION BY customer_id, company_id ORDER BY occurred_at DESC, outcome_id DESC) AS n
            FROM added) a
        WHERE n <= 10;
    DELETE FROM outcome_votes v USING (
            SELECT outcome_id FROM (
                SELECT w.outcome_id,
                    row_number() OVER (PARTITION BY w.customer_id, w.company_id ORDER BY w.occurred_at DESC, w.outcome_id DESC) AS n
                FROM outcome_votes w WHERE (w.customer_id, w.company_id) IN (SELECT customer_id, company_id FROM added)) r
            WHERE n > 10) d
        WHERE v.outcome_id = d.outcome_id;
    RETURN NULL;
END;
$$;

-- After a delete only the pairs that lost a vote change (the janitor deletes the oldest labels,
-- which are seldom votes).
CREATE FUNCTION outcome_votes_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    cs text[];
    cos bigint[];
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('outcome-votes'));
    SELECT array_agg(customer_id), array_agg(company_id) INTO cs, cos
        FROM (SELECT DISTINCT v.customer_id, v.company_id FROM gone g JOIN outcome_votes v ON v.outcome_id = g.outcome_id) p;
    PERFORM outcome_votes_refresh(cs, cos);
    RETURN NULL;
END;
$$;

-- Labels are append-only (no route edits one); an update by hand refreshes the pairs it touched.
CREATE FUNCTION outcome_votes_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    cs text[];
    cos bigint[];
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('outcome-votes'));
    SELECT array_agg(customer_id), array_agg(company_id) INTO cs, cos
        FROM (SELECT customer_id, company_id FROM gone UNION SELECT customer_id, company_id FROM added) p;
    PERFORM outcome_votes_refresh(cs, cos);
    RETURN NULL;
END;
$$;

CREATE FUNCTION outcome_votes_after_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE outcome_votes;
    RETURN NULL;
END;
$$;

CREATE TRIGGER outcome_votes_insert AFTER INSERT ON outcome_labels
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_votes_after_insert();
CREATE TRIGGER outcome_votes_delete AFTER DELETE ON outcome_labels
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION outcome_votes_after_delete();
CREATE TRIGGER outcome_votes_update AFTER UPDATE ON outcome_labels
    REFERENCING OLD TABLE AS gone NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_votes_after_update();
CREATE TRIGGER outcome_votes_truncate AFTER TRUNCATE ON outcome_labels
    FOR EACH STATEMENT EXECUTE FUNCTION outcome_votes_after_truncate();

-- The votes of the labels already there.
INSERT INTO outcome_votes (outcome_id, customer_id, company_id, positive, occurred_at)
    SELECT outcome_id, customer_id, company_id, positive, occurred_at FROM (
        SELECT outcome_id, customer_id, company_id, positive, occurred_at,
            row_number() OVER (PARTITION BY customer_id, company_id ORDER BY occurred_at DESC, outcome_id DESC) AS n
        FROM outcome_labels) l
    WHERE n <= 10;
