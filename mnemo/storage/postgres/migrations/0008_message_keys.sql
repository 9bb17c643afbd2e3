-- Extra index keys of long user turns (schema version 8), as SQLite's 0008: float32 vectors
-- packed into one bytea. NULL = not computed yet; empty = none needed.
ALTER TABLE messages ADD COLUMN key_vectors bytea;
