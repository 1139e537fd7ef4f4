-- A key's limits (60-second window, daily quota, calls in flight) are kept per lineage, not per
-- key: a replacement minted by rotation inherits the rotated key's limit_id, so rotating a key
-- never resets what it already spent. NULL means the key heads its own lineage (limit_id =
-- key_id); every key minted before this migration does.
ALTER TABLE api_keys ADD COLUMN limit_id bigint REFERENCES api_keys (key_id);
