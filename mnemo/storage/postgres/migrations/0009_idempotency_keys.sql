-- Idempotency keys of writes (schema version 9), as SQLite's 0009: per tenant and key, the
-- hash of the request and the ids its rows are written under, reserved before the write.
CREATE TABLE idempotency_keys (
    tenant       TEXT NOT NULL,
    key          TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    ids          TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (tenant, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (tenant, created_at);
CREATE INDEX idempotency_keys_user ON idempotency_keys (tenant, user_id);
