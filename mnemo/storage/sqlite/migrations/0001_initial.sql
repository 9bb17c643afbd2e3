-- mnemo schema, version 1 (SQLite). Times are fixed-width ISO-8601 UTC text; vectors are
-- float32 blobs tagged with the embedder that made them.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per (tenant, user): generation is bumped by every change other than an insert,
-- so readers can tell whether a cached vector matrix is still valid.
CREATE TABLE users (
    tenant     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    generation INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, user_id)
);

CREATE TABLE messages (
    rowid        INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    tenant       TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    session_id   TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    role         TEXT NOT NULL,
    name         TEXT,
    content      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    metadata     TEXT NOT NULL DEFAULT '{}',
    topic_id     TEXT,
    content_hash TEXT NOT NULL,
    embedder     TEXT,
    embedding    BLOB
);
CREATE INDEX messages_scope ON messages (tenant, user_id, session_id, seq);
CREATE INDEX messages_time ON messages (tenant, user_id, created_at);
CREATE INDEX messages_hash ON messages (content_hash);
CREATE INDEX messages_embedder ON messages (embedder);

CREATE TABLE memories (
    rowid              INTEGER PRIMARY KEY,
    id                 TEXT NOT NULL UNIQUE,
    tenant             TEXT NOT NULL,
    user_id            TEXT NOT NULL,
    session_id         TEXT,
    kind               TEXT NOT NULL,
    content            TEXT NOT NULL,
    tags               TEXT NOT NULL DEFAULT '[]',
    metadata           TEXT NOT NULL DEFAULT '{}',
    importance         REAL NOT NULL DEFAULT 0.5,
    confidence         REAL NOT NULL DEFAULT 1.0,
    source_message_ids TEXT NOT NULL DEFAULT '[]',
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    valid_until        TEXT,
    deleted_at         TEXT,
    access_count       INTEGER NOT NULL DEFAULT 0,
    last_accessed_at   TEXT,
    content_hash       TEXT NOT NULL,
    embedder           TEXT,
    embedding          BLOB
);
CREATE INDEX memories_scope ON memories (tenant, user_id, kind, created_at);
CREATE INDEX memories_hash ON memories (content_hash);
CREATE INDEX memories_embedder ON memories (embedder);

-- Tags, one row each, so `list(tag=...)` is an index lookup.
CREATE TABLE memory_tags (
    memory_rowid INTEGER NOT NULL REFERENCES memories (rowid) ON DELETE CASCADE,
    tag          TEXT NOT NULL,
    PRIMARY KEY (memory_rowid, tag)
);
CREATE INDEX memory_tags_tag ON memory_tags (tag);

CREATE TABLE profile_facts (
    rowid              INTEGER PRIMARY KEY,
    id                 TEXT NOT NULL UNIQUE,
    tenant             TEXT NOT NULL,
    user_id            TEXT NOT NULL,
    category           TEXT NOT NULL,
    key                TEXT NOT NULL,
    value              TEXT NOT NULL,
    confidence         REAL NOT NULL DEFAULT 1.0,
    importance         REAL NOT NULL DEFAULT 0.8,
    active             INTEGER NOT NULL DEFAULT 1,
    source_message_ids TEXT NOT NULL DEFAULT '[]',
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);
CREATE UNIQUE INDEX profile_facts_active
    ON profile_facts (tenant, user_id, category, key) WHERE active = 1;

CREATE TABLE history (
    rowid              INTEGER PRIMARY KEY,
    tenant             TEXT NOT NULL,
    user_id            TEXT NOT NULL,
    memory_id          TEXT NOT NULL,
    event              TEXT NOT NULL CHECK (event IN ('ADD', 'UPDATE', 'DELETE')),
    old                TEXT,
    new                TEXT,
    actor              TEXT NOT NULL,
    at                 TEXT NOT NULL,
    source_message_ids TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX history_memory ON history (memory_id, rowid);
CREATE INDEX history_user ON history (tenant, user_id);

CREATE TABLE topics (
    rowid          INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    tenant         TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    session_id     TEXT,
    title          TEXT NOT NULL,
    summary        TEXT,
    importance     REAL NOT NULL DEFAULT 0.5,
    access_count   INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    last_active_at TEXT NOT NULL,
    message_count  INTEGER NOT NULL DEFAULT 0,
    compressed     TEXT,
    embedder       TEXT,
    embedding      BLOB
);
CREATE INDEX topics_scope ON topics (tenant, user_id, session_id);

CREATE TABLE jobs (
    rowid      INTEGER PRIMARY KEY,
    tenant     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    kind       TEXT NOT NULL,
    payload    TEXT NOT NULL,
    status     TEXT NOT NULL DEFAULT 'pending'
               CHECK (status IN ('pending', 'running', 'done', 'dead')),
    attempts   INTEGER NOT NULL DEFAULT 0,
    run_after  TEXT NOT NULL,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX jobs_ready ON jobs (status, run_after);
CREATE INDEX jobs_user ON jobs (tenant, user_id);

-- Full-text indexes. `owner` holds one token per (tenant, user) so a query can be confined to
-- a user inside the index; bm25() weighs it 0.
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    text, owner, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE memories_fts USING fts5 (
    text, owner, tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, text, owner)
    VALUES (new.rowid, coalesce(new.name || ': ', '') || new.content,
            'o' || hex(new.tenant || char(31) || new.user_id));
END;
CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER messages_fts_au AFTER UPDATE OF content, name ON messages BEGIN
    UPDATE messages_fts SET text = coalesce(new.name || ': ', '') || new.content
    WHERE rowid = new.rowid;
END;

-- Only live memories are indexed: a soft delete removes the row from the index.
CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories WHEN new.deleted_at IS NULL BEGIN
    INSERT INTO memories_fts (rowid, text, owner)
    VALUES (new.rowid, new.content, 'o' || hex(new.tenant || char(31) || new.user_id));
END;
CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
    DELETE FROM memories_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER memories_fts_au AFTER UPDATE OF content, deleted_at ON memories BEGIN
    DELETE FROM memories_fts WHERE rowid = old.rowid;
    INSERT INTO memories_fts (rowid, text, owner)
    SELECT new.rowid, new.content, 'o' || hex(new.tenant || char(31) || new.user_id)
    WHERE new.deleted_at IS NULL;
END;
