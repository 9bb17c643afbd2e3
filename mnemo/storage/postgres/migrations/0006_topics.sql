-- Topic memory (seed 004, schema version 6), as SQLite's 0006. Topic vectors are compared in
-- process only (never searched by an index), so they become float32 bytes, as in SQLite.
ALTER TABLE topics ALTER COLUMN embedding TYPE BYTEA USING NULL;
ALTER TABLE topics ADD COLUMN compressed_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE topics ADD COLUMN embedding_weight INTEGER NOT NULL DEFAULT 0;
ALTER TABLE topics ADD COLUMN evicted_at TEXT;
ALTER TABLE topics ADD COLUMN merged_into TEXT;
ALTER TABLE topics ADD COLUMN summary_actor TEXT;
ALTER TABLE topics ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
CREATE INDEX topics_working_set ON topics (tenant, user_id, session_id, evicted_at, merged_into);

CREATE TABLE topic_messages (
    message_id TEXT PRIMARY KEY,
    topic_id   TEXT NOT NULL,
    tenant     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    at         DOUBLE PRECISION NOT NULL,
    seq        BIGINT NOT NULL,
    compacted  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX topic_messages_topic ON topic_messages (topic_id, compacted, at, seq);
CREATE INDEX topic_messages_user ON topic_messages (tenant, user_id);

CREATE TABLE topic_conversations (
    tenant          TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    active_topic_id TEXT,
    applied_seq     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, user_id, session_id)
);
