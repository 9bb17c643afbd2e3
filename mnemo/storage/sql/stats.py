"""Counting statements shared by both stores: a tenant's stats, a session's size, and the
erasure of a user (which reports what it removed per table)."""

from __future__ import annotations

from mnemo.schemas import Stats
from mnemo.storage.base import MEMORY
from mnemo.storage.sql.expiry import live as live_at
from mnemo.storage.sql.memories import own_user
from mnemo.storage.sql.scoping import kept
from mnemo.storage.sql.tx import Tx

#: Tables holding a user's rows, erased by :func:`delete_user` (memory_tags go by cascade,
#: SQLite's full-text rows by trigger).
USER_TABLES = (
    "messages",
    "memories",
    "profile_facts",
    "history",
    "topics",
    "topic_messages",
    "topic_conversations",
    "jobs",
    "documents",
    "fact_runs",
    "idempotency_keys",
    "entities",
    "entity_mentions",
)


def stats(c: Tx, tenant: str, embedder: str | None, location: str, now: str) -> Stats:
    """Counts of users, sessions, messages, memories by kind and jobs by status (turns and
    memories expired at ``now`` left out)."""
    d = c.dialect
    q = d.mark
    live = live_at(d)

    def one(sql: str, *more: str) -> int:
        return int(c.execute(sql, (tenant, *more)).fetchone()[0])

    def grouped(sql: str, *more: str) -> dict[str, int]:
        return {r[0]: int(r[1]) for r in c.execute(sql, (tenant, *more))}

    return Stats(
        users=one(f"SELECT count(*) FROM users WHERE tenant={q} AND user_id <> ''"),
        sessions=one(
            "SELECT count(*) FROM (SELECT DISTINCT user_id, session_id"
            f" FROM messages WHERE tenant={q} AND user_id <> '' AND {live}) s",
            now,
        ),
        messages=one(f"SELECT count(*) FROM messages WHERE tenant={q} AND {live}", now),
        memories=grouped(
            f"SELECT kind, count(*) FROM memories WHERE tenant={q}"
            f" AND {kept(MEMORY)} AND {live} GROUP BY kind",
            now,
        ),
        jobs=grouped(f"SELECT status, count(*) FROM jobs WHERE tenant={q} GROUP BY status"),
        embedder=embedder,
        path=location,
        llm_fallbacks=one(
            f"SELECT coalesce(sum({d.json_number('usage', 'fallbacks')}), 0) FROM jobs"
            f" WHERE tenant={q} AND usage IS NOT NULL"
        ),
        job_errors=[
            f"job {r[0]} {r[1]} ({r[2]}, attempt {r[3]}): {r[4]}"
            for r in c.execute(
                "SELECT rowid, kind, status, attempts, last_error FROM jobs"
                f" WHERE tenant={q} AND status IN ('pending', 'dead')"
                " AND last_error IS NOT NULL ORDER BY updated_at DESC LIMIT 5",
                (tenant,),
            )
        ],
    )


def count_items(c: Tx, tenant: str, user_id: str, session_id: str) -> int:
    """Messages plus live memories in one session."""
    q = c.dialect.mark
    r = c.execute(
        f"SELECT (SELECT count(*) FROM messages WHERE tenant={q} AND user_id={q}"
        f" AND session_id={q}) + (SELECT count(*) FROM memories WHERE tenant={q}"
        f" AND user_id={q} AND session_id={q} AND {kept(MEMORY)})",
        (tenant, user_id, session_id) * 2,
    ).fetchone()
    return int(r[0])


def delete_user(c: Tx, tenant: str, user_id: str) -> dict[str, int]:
    """Erase every row of a user; returns counts per table."""
    own_user(c, tenant, user_id, None)
    q = c.dialect.mark
    counts = {}
    for table in USER_TABLES:
        cur = c.execute(f"DELETE FROM {table} WHERE tenant={q} AND user_id={q}", (tenant, user_id))
        counts[table] = cur.rowcount
    c.execute(f"DELETE FROM users WHERE tenant={q} AND user_id={q}", (tenant, user_id))
    return counts
