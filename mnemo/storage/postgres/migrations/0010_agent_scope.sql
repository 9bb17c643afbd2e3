-- Agent scope (schema version 10), as SQLite's 0010: the agent a turn, memory or profile fact
-- belongs to.
-- NULL = shared by every agent serving the user (what every older row is, so nothing stored
-- changes meaning); an agent id = private to that agent. An agent's own memories (no user) are
-- stored under the reserved user key '' (callers cannot pass an empty user id).
ALTER TABLE messages ADD COLUMN agent_id TEXT;
ALTER TABLE memories ADD COLUMN agent_id TEXT;
ALTER TABLE profile_facts ADD COLUMN agent_id TEXT;

-- delete_agent, and a user's rows of one agent; partial: shared rows are not indexed.
CREATE INDEX messages_agent ON messages (tenant, agent_id, user_id) WHERE agent_id IS NOT NULL;
CREATE INDEX memories_agent ON memories (tenant, agent_id, user_id) WHERE agent_id IS NOT NULL;
CREATE INDEX profile_facts_agent ON profile_facts (tenant, agent_id, user_id)
    WHERE agent_id IS NOT NULL;

-- One active fact per (user, agent or shared, category, key).
DROP INDEX profile_facts_active;
CREATE UNIQUE INDEX profile_facts_active
    ON profile_facts (tenant, user_id, coalesce(agent_id, ''), category, key) WHERE active = 1;
