-- Profile facts, episodes and summaries, eviction (seeds 000, 002, 003).

-- When the statement a profile fact came from was made (its message's created_at and seq), so
-- a fact from an older message never replaces one from a newer message (re-runs are no-ops).
ALTER TABLE profile_facts ADD COLUMN observed_at TEXT;
ALTER TABLE profile_facts ADD COLUMN observed_seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX profile_facts_user ON profile_facts (tenant, user_id, active, importance);

-- Eviction (seed 002's per-conversation max_entries) takes a turn out of the working set
-- (search) without deleting it: the row stays in the event log.
ALTER TABLE messages ADD COLUMN evicted_at TEXT;
CREATE TRIGGER messages_fts_evict AFTER UPDATE OF evicted_at ON messages
WHEN new.evicted_at IS NOT NULL AND old.evicted_at IS NULL BEGIN
    DELETE FROM messages_fts WHERE rowid = old.rowid;
END;
