-- What migration 0004's facts could not say: the wider areas a remote role is open to
-- (normalize.RemoteRegions: worldwide, europe, emea, americas, north_america, latam, apac; read
-- from its text or from its feed's location, "Remote - EMEA"), beside remote_countries; and
-- whether stated pay's currency was inferred (1: the text wrote a bare "$", read as the req's
-- country's dollar or USD) rather than written. ClickHouse 18.16 has no ADD COLUMN IF NOT
-- EXISTS: analytics.Migrate drops each ADD COLUMN whose column exists.
ALTER TABLE events {ON_CLUSTER}
    ADD COLUMN remote_regions Array(String),
    ADD COLUMN stated_pay_currency_inferred UInt8 DEFAULT 0;
