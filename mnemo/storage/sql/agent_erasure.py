"""Erasure of an agent (``Memory.delete_agent``): every row tagged with it, in one
transaction. Its own memories (user key ``""``) and the items private to it in every user go,
with their history, tags (by cascade), fact-tier records, topic links and entity mentions
(an entity no turn mentions any more goes too); SQLite's full-text
rows go by trigger. Shared rows stay: they belong to their user."""

from __future__ import annotations

from mnemo.storage.sql.entity_erasure import forget_unmentioned
from mnemo.storage.sql.memories import bump, own_user
from mnemo.storage.sql.tx import Tx

#: Tables holding rows tagged with an agent.
AGENT_TABLES = ("messages", "memories", "profile_facts")


def agent_users(c: Tx, tenant: str, agent_id: str) -> list[str]:
    """The user keys holding rows of ``agent_id``, sorted (the order their locks are taken)."""
    q = c.dialect.mark
    union = " UNION ".join(
        f"SELECT user_id FROM {t} WHERE tenant={q} AND agent_id={q}" for t in AGENT_TABLES
    )
    found = c.execute(union, (tenant, agent_id) * len(AGENT_TABLES))
    return sorted({r[0] for r in found})


def delete_agent(c: Tx, tenant: str, agent_id: str) -> tuple[dict[str, int], list[str]]:
    """Erase every row tagged ``agent_id``; returns counts per table and the users touched."""
    users = agent_users(c, tenant, agent_id)
    for user_id in users:
        own_user(c, tenant, user_id, None)
    q = c.dialect.mark
    mine = f"tenant={q} AND agent_id={q}"
    counts: dict[str, int] = {}
    for table, column, owner in (
        ("history", "memory_id", "memories"),
        ("history", "memory_id", "profile_facts"),
        ("fact_runs", "message_id", "messages"),
        ("topic_messages", "message_id", "messages"),
        ("entity_mentions", "message_id", "messages"),
    ):
        cur = c.execute(
            f"DELETE FROM {table} WHERE tenant={q} AND {column} IN"
            f" (SELECT id FROM {owner} WHERE {mine})",
            (tenant, tenant, agent_id),
        )
        counts[table] = counts.get(table, 0) + cur.rowcount
    for table in AGENT_TABLES:
        counts[table] = c.execute(f"DELETE FROM {table} WHERE {mine}", (tenant, agent_id)).rowcount
    counts["entities"] = forget_unmentioned(c, [(tenant, u) for u in users])
    for user_id in users:
        bump(c, tenant, user_id)  # cached vector indexes of the user reload
    return counts, users


__all__ = ["AGENT_TABLES", "agent_users", "delete_agent"]
