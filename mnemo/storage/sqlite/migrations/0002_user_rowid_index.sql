-- Indexes whose implicit trailing rowid makes "max(rowid) of a user" a single seek: the
-- vector index checks it before every search.
CREATE INDEX messages_user ON messages (tenant, user_id);
CREATE INDEX memories_user ON memories (tenant, user_id);
