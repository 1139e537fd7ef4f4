-- Destinations people use (docs/decisions.md, "Destinations: Slack and the email digest"): an
-- endpoint is a signed webhook (kind webhook, as before), a Slack incoming webhook (kind slack) or
-- an email address that gets one digest a day (kind email). Watches, deliveries, the wall, the
-- cap, replays and test deliveries are the same for every kind; only the sending differs.
--
-- A Slack incoming-webhook URL is a secret (whoever holds it posts to the channel): it is kept
-- sealed in secret_sealed (secretbox, additional data oltp.TargetAAD), never in url. For a slack
-- endpoint url holds "slack:" + the SHA-256 of the URL (hex), the key that makes registering the
-- same URL again idempotent without storing it, and shown_url the masked URL every answer shows.
-- For an email endpoint url holds "mailto:" + the address (lower-cased) and secret_sealed the
-- address sealed the same way (what the digest sends to is what was validated).
ALTER TABLE webhook_endpoints ADD COLUMN kind text NOT NULL DEFAULT 'webhook';
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_kind CHECK (kind IN ('webhook', 'slack', 'email'));
ALTER TABLE webhook_endpoints ADD COLUMN shown_url text;
CREATE INDEX webhook_endpoints_email_idx ON webhook_endpoints (endpoint_id) WHERE kind = 'email' AND deleted_at IS NULL;

-- The daily email digest of an endpoint: one row per endpoint and digest day (UNIQUE), written
-- before the message is sent (record first) with the Message-ID and the deliveries it lists, so a
-- restart sends the same message again (the same Message-ID, the same deliveries) instead of a
-- second digest. status: sending (recorded, not yet accepted by the SMTP server), sent, failed
-- (gave up; its deliveries failed), empty (nothing to list that day: nothing was sent).
-- lease_until keeps two digest runners from sending one row at once.
CREATE TABLE email_digests (
    endpoint_id   bigint NOT NULL REFERENCES webhook_endpoints (endpoint_id) ON DELETE CASCADE,
    digest_day    date NOT NULL,
    message_id    text NOT NULL,
    delivery_ids  bigint[] NOT NULL,
    status        text NOT NULL CHECK (status IN ('sending', 'sent', 'failed', 'empty')),
    attempts      integer NOT NULL DEFAULT 0,
    last_error    text,
    next_try_at   timestamptz,
    lease_until   timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    sent_at       timestamptz,
    PRIMARY KEY (endpoint_id, digest_day)
);
CREATE INDEX email_digests_sending_idx ON email_digests (next_try_at) WHERE status = 'sending';
