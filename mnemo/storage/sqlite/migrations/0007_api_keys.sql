-- API keys of the REST server: each maps to one tenant. Only a SHA-256 hash of the key is
-- stored; the key itself is shown once, when it is created.
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    tenant       TEXT NOT NULL,
    name         TEXT,
    key_hash     TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    revoked_at   TEXT,
    last_used_at TEXT
);
CREATE INDEX api_keys_tenant ON api_keys (tenant);
