-- Profile facts, episodes and summaries, eviction (schema version 5), as SQLite's 0005.
ALTER TABLE profile_facts ADD COLUMN observed_at TEXT;
ALTER TABLE profile_facts ADD COLUMN observed_seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX profile_facts_user ON profile_facts (tenant, user_id, active, importance);

-- An evicted turn leaves the working set (search) but stays in the event log. SQLite drops it
-- from its FTS table with a trigger; here every search query filters on evicted_at.
ALTER TABLE messages ADD COLUMN evicted_at TEXT;
