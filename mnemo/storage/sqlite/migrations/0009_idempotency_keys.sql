-- Idempotency keys of writes (an HTTP `Idempotency-Key`, `idempotency_key=` of add and
-- add_messages): per tenant and key, the hash of the request and the ids its rows are written
-- under, reserved before the write. A retry finds the reservation: it returns the rows when they
-- are there, and writes them under the same ids when they are not. Forgotten after
-- `idempotency_ttl_s`; erased with the user.
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
