-- Indexes that make "max(rowid) of a user" a single index scan: the vector index checks it
-- before every search (PostgreSQL needs the rowid named; SQLite appends it implicitly).
CREATE INDEX messages_user ON messages (tenant, user_id, rowid);
CREATE INDEX memories_user ON memories (tenant, user_id, rowid);
