-- The entity index (schema version 15), as SQLite's 0015: per user, the entities the user
-- talks about with their aliases (a JSON list), and which turns mention each.
CREATE TABLE entities (
    id         TEXT PRIMARY KEY,
    tenant     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    aliases    TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX entities_user ON entities (tenant, user_id);

CREATE TABLE entity_mentions (
    entity_id  TEXT NOT NULL,
    message_id TEXT NOT NULL,
    tenant     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    PRIMARY KEY (entity_id, message_id)
);
CREATE INDEX entity_mentions_message ON entity_mentions (tenant, user_id, message_id);
