-- What a req's posting states of itself, with the req's other attributes at each event: the
-- technologies it names (slugs of internal/jobtext's vocabulary, with per slug 1 required, 2 nice
-- to have, 0 named elsewhere), its seniority, employment type and workplace type ('' when not
-- said), the countries a remote role is open to, the least years of experience asked for and
-- whether it sponsors visas (NULL when not said; visa 1 yes, 0 no), pay stated only in its text
-- (NULL and '' when none), and the hash of its cleaned description (0: none). The feed's
-- structured fields win over the text; the text fills the gaps. ClickHouse 18.16 has no
-- ADD COLUMN IF NOT EXISTS: analytics.Migrate drops each ADD COLUMN whose column exists.
ALTER TABLE events {ON_CLUSTER}
    ADD COLUMN technologies Array(String),
    ADD COLUMN technology_kinds Array(UInt8),
    ADD COLUMN seniority String DEFAULT '',
    ADD COLUMN employment_type String DEFAULT '',
    ADD COLUMN workplace_type String DEFAULT '',
    ADD COLUMN remote_countries Array(String),
    ADD COLUMN years_experience_min Nullable(UInt8),
    ADD COLUMN visa_sponsorship Nullable(UInt8),
    ADD COLUMN stated_pay_min Nullable(Float64),
    ADD COLUMN stated_pay_max Nullable(Float64),
    ADD COLUMN stated_pay_currency String DEFAULT '',
    ADD COLUMN stated_pay_period String DEFAULT '',
    ADD COLUMN stated_pay_text String DEFAULT '',
    ADD COLUMN description_hash UInt64 DEFAULT 0;

-- The cleaned text of each description a req carried, once per distinct text: keyed by req_key
-- and the text's hash (the events' description_hash), written only by the cycle whose event first
-- carried that hash for the req, so the ledger's events stay small and the history compact. A
-- row a crashed cycle wrote is read only once a committed event names its hash (a rerun writes
-- it again: the same key, replaced).
CREATE TABLE IF NOT EXISTS req_descriptions {ON_CLUSTER} (
    req_key          String,
    description_hash UInt64,
    description      String,
    written_at       DateTime
) ENGINE = {REPLICATED}ReplacingMergeTree()
ORDER BY (req_key, description_hash);
