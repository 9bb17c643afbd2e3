-- Fact tier (schema version 4): context documents attached to a user or one session (seed
-- 001's "context files"), their embedded chunks, and the turns the fact tier has processed.

-- A document attached to one session, or to every session of the user when session_id is NULL.
CREATE TABLE documents (
    rowid      INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    tenant     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    session_id TEXT,
    title      TEXT,
    content    TEXT NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
CREATE INDEX documents_scope ON documents (tenant, user_id, session_id);

-- A document cut into embedder-sized pieces; new facts are compared with each piece.
CREATE TABLE document_chunks (
    document_rowid INTEGER NOT NULL REFERENCES documents (rowid) ON DELETE CASCADE,
    idx            INTEGER NOT NULL,
    content        TEXT NOT NULL,
    embedder       TEXT,
    embedding      BLOB,
    PRIMARY KEY (document_rowid, idx)
);

-- One row per turn the fact tier has finished with, written in the same transaction as the
-- facts it produced: a re-run job skips these turns, so it adds nothing twice.
CREATE TABLE fact_runs (
    tenant     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    message_id TEXT NOT NULL,
    actor      TEXT NOT NULL,
    note       TEXT,
    at         TEXT NOT NULL,
    PRIMARY KEY (tenant, message_id)
);
CREATE INDEX fact_runs_user ON fact_runs (tenant, user_id);
