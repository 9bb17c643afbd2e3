-- Expiry (schema version 11), as SQLite's 0011: a turn or memory may carry the time it
-- expires at (fixed-width ISO-8601 UTC text, as every other time) and the ttl it was given (seconds; NULL when it was
-- given a time, or none). An expired row is out of every read from that moment (checked
-- against the store clock); `Memory.sweep` removes it for good. The partial indexes hold only
-- rows that expire: they answer "expired rows of a tenant" (the sweep) and "does this user
-- have expiring rows" (the search's cheap path) without touching the rest.
ALTER TABLE messages ADD COLUMN expires_at TEXT;
ALTER TABLE messages ADD COLUMN ttl_seconds BIGINT;
ALTER TABLE memories ADD COLUMN expires_at TEXT;
ALTER TABLE memories ADD COLUMN ttl_seconds BIGINT;
CREATE INDEX messages_expiry ON messages (tenant, expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX messages_user_expiry ON messages (tenant, user_id, expires_at)
    WHERE expires_at IS NOT NULL;
CREATE INDEX memories_expiry ON memories (tenant, expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX memories_user_expiry ON memories (tenant, user_id, expires_at)
    WHERE expires_at IS NOT NULL;
