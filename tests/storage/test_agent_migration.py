"""Migration 0010 (agent scope) on a store of schema version 9, on both stores: the store
migrates forward, every row reads as shared (agent_id None) and every answer is what it was.

The old store is made by taking a filled store back to version 9 exactly (the inverse of
0010 and of the later migrations: their indexes and columns dropped, the old unique index
of active profile facts back, the version set to 9); opening it again runs 0010 and the
later ones on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemo import Memory

USER = "u1"

#: The inverse of the migrations after 0010 (0011 expiry, 0013 profile supersession, 0014 turn
#: rules, 0015 entities; 0012's jsonb copies exist on PostgreSQL only, see POSTGRES_DOWNGRADE),
#: newest first.
LATER = (
    "DROP TABLE entity_mentions",
    "DROP TABLE entities",
    "DROP INDEX messages_turn_rules",
    "ALTER TABLE messages DROP COLUMN turn_rules",
    "ALTER TABLE messages DROP COLUMN turn_kind",
    "ALTER TABLE messages DROP COLUMN name_cues",
    "ALTER TABLE profile_facts DROP COLUMN superseded_at",
    "DROP INDEX messages_expiry",
    "DROP INDEX messages_user_expiry",
    "DROP INDEX memories_expiry",
    "DROP INDEX memories_user_expiry",
    "ALTER TABLE messages DROP COLUMN expires_at",
    "ALTER TABLE messages DROP COLUMN ttl_seconds",
    "ALTER TABLE memories DROP COLUMN expires_at",
    "ALTER TABLE memories DROP COLUMN ttl_seconds",
)
POSTGRES_DOWNGRADE = (
    "ALTER TABLE memories DROP COLUMN metadata_jsonb, DROP COLUMN tags_jsonb",
    "ALTER TABLE messages DROP COLUMN metadata_jsonb",
)
DOWNGRADE = (
    "DROP INDEX messages_agent",
    "DROP INDEX memories_agent",
    "DROP INDEX profile_facts_agent",
    "DROP INDEX profile_facts_active",
    "ALTER TABLE messages DROP COLUMN agent_id",
    "ALTER TABLE memories DROP COLUMN agent_id",
    "ALTER TABLE profile_facts DROP COLUMN agent_id",
    "CREATE UNIQUE INDEX profile_facts_active"
    " ON profile_facts (tenant, user_id, category, key) WHERE active = 1",
)


def to_version_9(mem: Memory, backend: str) -> None:
    """Take the store of ``mem`` (closed afterwards) back to schema version 9."""
    store: Any = mem.store
    if backend == "sqlite":
        conn = store.db.get()
        conn.execute("BEGIN IMMEDIATE")
        for statement in (*LATER, *DOWNGRADE):
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 9")
        conn.execute("COMMIT")
    else:
        with store.db.write() as c:
            for statement in (*LATER, *POSTGRES_DOWNGRADE, *DOWNGRADE):
                c.execute(statement)
            c.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    mem.close()


def answers(mem: Memory) -> dict[str, Any]:
    """What the store answers: searches, listings, profile and context, ids and order."""
    return {
        "search": [(h.id, round(h.score, 9)) for h in mem.search("cat Paris coffee", USER)],
        "list": [m.id for m in mem.list(USER)],
        "messages": [m.id for m in mem.messages(USER)],
        "profile": [(f.key, f.value) for f in mem.profile(USER, include_inactive=True)],
        "context": mem.context("where do I live", USER).render(),
        "users": [u.user_id for u in mem.users()],
    }


def test_a_version_9_store_migrates_and_answers_as_before(
    open_mem: Callable[..., Memory], backend: str
) -> None:
    mem = open_mem()
    mem.add_messages(
        [
            {"role": "user", "content": "I adopted a cat named Miso."},
            {"role": "assistant", "content": "Lovely name for a cat."},
            {"role": "user", "content": "I live in Paris and drink coffee daily."},
        ],
        USER,
    )
    mem.add("User's cat is called Miso", USER, tags=["pets"])
    mem.drain()
    before = answers(mem)
    assert before["search"] and before["profile"]
    to_version_9(mem, backend)

    again = open_mem()
    assert answers(again) == before
    assert all(m.agent_id is None for m in again.list(USER))
    assert all(m.agent_id is None for m in again.messages(USER))
    assert all(f.agent_id is None for f in again.profile(USER))
    # shared rows are what every agent of the user sees
    assert [h.id for h in again.search("cat Paris coffee", USER, agent_id="alpha")] == [
        h for h, _ in before["search"]
    ]
    # and the migrated store takes agent rows
    again.add("alpha's private note", USER, agent_id="alpha")
    assert len(again.list(USER)) == len(before["list"]) + 1
