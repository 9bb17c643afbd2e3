"""SQLite statements of the conversation tiers: profile facts, session reads and eviction.

Functions take an open connection (inside the caller's transaction) so :class:`SQLiteStore`
keeps one method per operation and this module holds the SQL.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from mnemo.schemas import Message, ProfileFact, parse_time
from mnemo.storage.base import NewProfileFact, ProfileDecide, ProfileDecision
from mnemo.storage.sql import rows


def profile_fact(r: sqlite3.Row) -> ProfileFact:
    """A ProfileFact from a ``profile_facts`` row."""
    return ProfileFact(
        id=r["id"],
        tenant=r["tenant"],
        user_id=r["user_id"],
        category=r["category"],
        key=r["key"],
        value=r["value"],
        confidence=r["confidence"],
        importance=r["importance"],
        active=bool(r["active"]),
        source_message_ids=json.loads(r["source_message_ids"]),
        observed_at=None if r["observed_at"] is None else parse_time(r["observed_at"]),
        created_at=parse_time(r["created_at"]),
        updated_at=parse_time(r["updated_at"]),
    )


def fact_snapshot(f: ProfileFact) -> dict[str, Any]:
    """The fields of a profile fact that history records before and after a change."""
    return {
        "id": f.id,
        "category": f.category,
        "key": f.key,
        "value": f.value,
        "confidence": f.confidence,
        "importance": f.importance,
        "active": f.active,
    }


def select_facts(
    c: sqlite3.Connection,
    tenant: str,
    user_id: str,
    include_inactive: bool,
    min_importance: float | None,
    category: str | None,
    key: str | None,
) -> list[ProfileFact]:
    """Facts of a user: active ones by importance (then key), history rows after, oldest first."""
    where = ["tenant = ?", "user_id = ?"]
    args: list[Any] = [tenant, user_id]
    if not include_inactive:
        where.append("active = 1")
    if min_importance is not None:
        where.append("importance >= ?")
        args.append(min_importance)
    for col, value in (("category", category), ("key", key)):
        if value is not None:
            where.append(f"{col} = ?")
            args.append(value)
    sql = (
        f"SELECT * FROM profile_facts WHERE {' AND '.join(where)}"
        " ORDER BY active DESC, CASE WHEN active = 1 THEN -importance ELSE 0 END,"
        " category, key, rowid"
    )
    return [profile_fact(r) for r in c.execute(sql, args)]


def put_fact(
    c: sqlite3.Connection, row: NewProfileFact, actor: str, decide: ProfileDecide, now: str
) -> tuple[ProfileDecision, ProfileFact | None]:
    """Apply ``decide(current active fact, its observed_seq)`` to one candidate.

    ``ADD`` inserts; ``UPDATE`` marks the current row inactive and inserts the new one;
    ``REFRESH`` raises confidence/importance of the current row in place; ``NONE`` writes
    nothing. Every write is recorded in ``history`` under the fact's id.
    """
    done = c.execute("SELECT * FROM profile_facts WHERE id=?", (row.id,)).fetchone()
    if done is not None:  # this very candidate was applied before: a re-run changes nothing
        return "NONE", profile_fact(done)
    cur = c.execute(
        "SELECT * FROM profile_facts WHERE tenant=? AND user_id=? AND category=? AND key=?"
        " AND active=1",
        (row.tenant, row.user_id, row.category, row.key),
    ).fetchone()
    old = profile_fact(cur) if cur else None
    decision = decide(old, int(cur["observed_seq"]) if cur else 0)
    if decision == "NONE":
        return decision, old
    if decision == "REFRESH" and old is not None:
        sources = list(dict.fromkeys([*old.source_message_ids, *row.source_message_ids]))
        c.execute(
            "UPDATE profile_facts SET confidence=max(confidence, ?), importance=max(importance, ?),"
            " source_message_ids=?, updated_at=? WHERE id=?",
            (row.confidence, row.importance, json.dumps(sources), now, old.id),
        )
        new = _fact(c, old.id)
        _history(c, new, "UPDATE", fact_snapshot(old), fact_snapshot(new), actor, row, now)
        return decision, new
    if old is not None:
        c.execute("UPDATE profile_facts SET active=0, updated_at=? WHERE id=?", (now, old.id))
    c.execute(
        "INSERT INTO profile_facts (id, tenant, user_id, category, key, value, confidence,"
        " importance, active, source_message_ids, created_at, updated_at, observed_at,"
        " observed_seq) VALUES (?,?,?,?,?,?,?,?,1,?,?,?,?,?)",
        (
            row.id,
            row.tenant,
            row.user_id,
            row.category,
            row.key,
            row.value,
            row.confidence,
            row.importance,
            json.dumps(row.source_message_ids),
            now,
            now,
            row.observed_at,
            row.observed_seq,
        ),
    )
    new = _fact(c, row.id)
    event: ProfileDecision = "ADD" if old is None else "UPDATE"
    before = None if old is None else {**fact_snapshot(old), "active": False}
    _history(c, new, event, before, fact_snapshot(new), actor, row, now)
    return event, new


def _fact(c: sqlite3.Connection, fact_id: str) -> ProfileFact:
    return profile_fact(c.execute("SELECT * FROM profile_facts WHERE id=?", (fact_id,)).fetchone())


def _history(
    c: sqlite3.Connection,
    fact: ProfileFact,
    event: str,
    old: dict[str, Any] | None,
    new: dict[str, Any],
    actor: str,
    row: NewProfileFact,
    now: str,
) -> None:
    if row.note:
        new = {**new, "note": row.note}
    c.execute(
        "INSERT INTO history (tenant, user_id, memory_id, event, old, new, actor, at,"
        " source_message_ids) VALUES (?,?,?,?,?,?,?,?,?)",
        (
            fact.tenant,
            fact.user_id,
            fact.id,
            event,
            None if old is None else json.dumps(old),
            json.dumps(new),
            actor,
            now,
            json.dumps(row.source_message_ids),
        ),
    )


def profile_history(c: sqlite3.Connection, tenant: str, fact_ids: list[str]) -> list[sqlite3.Row]:
    """History rows of the given profile fact ids, oldest first."""
    if not fact_ids:
        return []
    marks = ",".join("?" * len(fact_ids))
    return c.execute(
        f"SELECT * FROM history WHERE tenant=? AND memory_id IN ({marks}) ORDER BY rowid",
        [tenant, *fact_ids],
    ).fetchall()


def session_messages(
    c: sqlite3.Connection,
    tenant: str,
    user_id: str,
    session_id: str,
    after_seq: int,
    ids: list[str] | None,
) -> list[Message]:
    """Messages of one session after ``after_seq`` (or with the given ids), by seq."""
    sql = "SELECT * FROM messages WHERE tenant=? AND user_id=? AND session_id=? AND seq>?"
    args: list[Any] = [tenant, user_id, session_id, after_seq]
    if ids is not None:
        if not ids:
            return []
        sql += f" AND id IN ({','.join('?' * len(ids))})"
        args += ids
    return [rows.message(r) for r in c.execute(sql + " ORDER BY seq", args)]


def evict_oldest(
    c: sqlite3.Connection,
    tenant: str,
    user_id: str,
    session_id: str,
    max_entries: int,
    kinds: tuple[str, ...],
    now: str,
) -> tuple[list[str], list[str]]:
    """Take the oldest entries of a conversation out of the working set until at most
    ``max_entries`` remain. Entries are live turns plus live memories of ``kinds``; turns get
    ``evicted_at`` (the row stays), memories are soft-deleted. Returns (message ids, memory ids).
    """
    marks = ",".join("?" * len(kinds))
    entries = c.execute(
        "SELECT 'm' AS t, id, created_at, seq AS pos FROM messages WHERE tenant=? AND user_id=?"
        " AND session_id=? AND evicted_at IS NULL"
        " UNION ALL SELECT 'x', id, created_at, rowid FROM memories WHERE tenant=? AND user_id=?"
        f" AND session_id=? AND deleted_at IS NULL AND kind IN ({marks})"
        " ORDER BY created_at, t, pos",
        [tenant, user_id, session_id, tenant, user_id, session_id, *kinds],
    ).fetchall()
    overflow = entries[: max(len(entries) - max_entries, 0)]
    msg_ids = [r["id"] for r in overflow if r["t"] == "m"]
    mem_ids = [r["id"] for r in overflow if r["t"] == "x"]
    for start in range(0, len(msg_ids), 500):
        chunk = msg_ids[start : start + 500]
        c.execute(
            f"UPDATE messages SET evicted_at=? WHERE id IN ({','.join('?' * len(chunk))})",
            [now, *chunk],
        )
    return msg_ids, mem_ids
