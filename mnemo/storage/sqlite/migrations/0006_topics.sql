-- Topic memory (seed 004): compaction state, working-set membership, topic-message links and
-- one cursor per conversation. Raw message rows are never deleted by compaction or decay.

-- How many messages the compressed history holds, the user turns folded into the embedding
-- (a running mean), when decay took the topic out of the working set, which topic absorbed it,
-- and who wrote the summary (llm | rules).
ALTER TABLE topics ADD COLUMN compressed_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE topics ADD COLUMN embedding_weight INTEGER NOT NULL DEFAULT 0;
ALTER TABLE topics ADD COLUMN evicted_at TEXT;
ALTER TABLE topics ADD COLUMN merged_into TEXT;
ALTER TABLE topics ADD COLUMN summary_actor TEXT;
ALTER TABLE topics ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
CREATE INDEX topics_working_set ON topics (tenant, user_id, session_id, evicted_at, merged_into);

-- Which topic a message belongs to, and whether it sits in the compressed history (1) or among
-- the topic's active messages (0). `at` is the message's time in epoch seconds.
CREATE TABLE topic_messages (
    message_id TEXT PRIMARY KEY,
    topic_id   TEXT NOT NULL,
    tenant     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    at         REAL NOT NULL,
    seq        INTEGER NOT NULL,
    compacted  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX topic_messages_topic ON topic_messages (topic_id, compacted, at, seq);
CREATE INDEX topic_messages_user ON topic_messages (tenant, user_id);

-- One row per conversation: its active topic and the last message seq applied to topics.
CREATE TABLE topic_conversations (
    tenant          TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    active_topic_id TEXT,
    applied_seq     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, user_id, session_id)
);
