-- The crawl's tables. The ledger (events) is the source of truth of every req's state: each event
-- row carries the req's attributes at that moment, so the current state of a req is its event with
-- the highest event_seq. Rows above the committed watermark (max(seq_to) of cycles) belong to a
-- cycle that crashed before committing and are never read; the rerun overwrites them (same
-- event_seq, higher version).
--
-- {ON_CLUSTER} and {REPLICATED} are filled by analytics.Migrate (schema.go): nothing on a single
-- server; in cluster mode ON CLUSTER and the Replicated engine at the table's replica path.

CREATE TABLE IF NOT EXISTS events {ON_CLUSTER} (
    event_seq      UInt64,
    version        UInt64,
    event_type     String,
    req_key        String,
    company_id     UInt64,
    region         String,
    tick           UInt32,
    occurred_at    DateTime,
    observed_at    DateTime,
    first_seen     DateTime,
    raw_title      String,
    title          String,
    title_key      String,
    function       String,
    country        String,
    location       String,
    source_type    String,
    boards         Array(String),
    sources        Array(String),
    board          String,
    url            String,
    requisition_id String,
    salary_min_usd Nullable(Float64),
    salary_max_usd Nullable(Float64),
    salary_declared UInt8,
    repost_count   UInt32
) ENGINE = {REPLICATED}ReplacingMergeTree(version)
PARTITION BY toYYYYMM(observed_at)
ORDER BY event_seq;

-- One row per committed cycle (region, tick). Its presence is the commit marker.
CREATE TABLE IF NOT EXISTS cycles {ON_CLUSTER} (
    region         String,
    tick           UInt32,
    cycle_time     DateTime,
    started_at     DateTime,
    finished_at    DateTime,
    sources_total  UInt32,
    sources_ok     UInt32,
    sources_failed UInt32,
    pages          UInt32,
    postings       UInt64,
    malformed      UInt64,
    unresolved     UInt64,
    reqs_live      UInt64,
    events         UInt64,
    seq_from       UInt64,
    seq_to         UInt64
) ENGINE = {REPLICATED}ReplacingMergeTree()
ORDER BY (region, tick);

-- Companies known to the crawl, latest version wins.
CREATE TABLE IF NOT EXISTS companies {ON_CLUSTER} (
    company_id     UInt64,
    domain         String,
    name           String,
    name_key       String,
    hq_country     String,
    region         String,
    industry       String,
    headcount_band String,
    agency_kind    String,
    ats_vendor     String,
    covered        UInt8,
    tick           UInt32,
    updated_at     DateTime
) ENGINE = {REPLICATED}ReplacingMergeTree(tick)
ORDER BY company_id;

-- First sighting of each board carrying each req.
CREATE TABLE IF NOT EXISTS req_boards {ON_CLUSTER} (
    req_key     String,
    company_id  UInt64,
    board       String,
    source_type String,
    first_seen  DateTime
) ENGINE = {REPLICATED}ReplacingMergeTree()
ORDER BY (company_id, req_key, board);

-- First sighting of each ATS vendor at each company: consecutive vendors are migrations.
CREATE TABLE IF NOT EXISTS ats_history {ON_CLUSTER} (
    company_id  UInt64,
    vendor      String,
    tenant      String,
    first_seen  DateTime,
    tick        UInt32
) ENGINE = {REPLICATED}ReplacingMergeTree()
ORDER BY (company_id, vendor, tenant);
