-- How each metered call reached the API: 'rest' (an HTTP request to its route) or 'mcp' (a tool
-- call of the agent interface at /mcp that ran the route in-process). Set by the chain from where
-- the call came in, never from anything the caller sends; GET /v1/usage reports calls by it.
ALTER TABLE usage_events ADD COLUMN channel text NOT NULL DEFAULT 'rest';
