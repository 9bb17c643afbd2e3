-- API keys of the REST server (schema version 7), as SQLite's 0007: each maps to one tenant;
-- only a SHA-256 hash of the key is stored.
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
