"""The sweep: expired turns and memories removed for good, with erasure's guarantees; and
the refresh of a ttl on read (``refresh_on_read``).

:func:`sweep` deletes the rows expired at a time (see :mod:`mnemo.storage.sql.expiry`) with
what hangs off them: the history of swept memories, their tags (by cascade), the topic links,
fact runs and entity mentions of swept turns (and the entities no turn mentions any more).
Full-text rows go with their rows (SQLite's triggers; the generated tsvector column on
PostgreSQL), and each user's generation is bumped so cached vector indexes drop the vectors. A
backend may erase more thoroughly (SQLite merges its full-text segments and checkpoints under
``secure_delete``, as erasure does)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from mnemo.schemas import MemoryItem, Message, format_time
from mnemo.storage.sql import rows
from mnemo.storage.sql.entity_erasure import forget_unmentioned
from mnemo.storage.sql.memories import MEMORY_COLS, bump, own_user
from mnemo.storage.sql.messages import MESSAGE_COLS
from mnemo.storage.sql.tx import Row, Tx

#: Rows per ``IN (...)`` list of a sweep's deletes.
CHUNK = 500


def _expired(c: Tx, table: str, tenant: str | None, now: str) -> list[Row]:
    """The rows of ``table`` (their record columns) expired at ``now``."""
    q = c.dialect.mark
    cols = MESSAGE_COLS if table == "messages" else MEMORY_COLS
    where, args = f"expires_at <= {q}", [now]
    if tenant is not None:
        where, args = (
            f"tenant = {q} AND expires_at IS NOT NULL AND expires_at <= {q}",
            [
                tenant,
                now,
            ],
        )
    return list(c.execute(f"SELECT {cols} FROM {table} WHERE {where}", args))


@dataclass
class Swept:
    """What a sweep removed: counts per table, and the turns and memories as they were."""

    counts: dict[str, int]
    messages: list[Message] = field(default_factory=list)
    memories: list[MemoryItem] = field(default_factory=list)


def _delete_in(c: Tx, table: str, column: str, values: list[Any]) -> int:
    """Delete the rows of ``table`` whose ``column`` is one of ``values``; how many."""
    n = 0
    for i in range(0, len(values), CHUNK):
        chunk = values[i : i + CHUNK]
        cur = c.execute(
            f"DELETE FROM {table} WHERE {column} IN ({c.dialect.marks(len(chunk))})", chunk
        )
        n += max(cur.rowcount, 0)
    return n


def sweep(c: Tx, tenant: str | None, now: str) -> Swept:
    """Delete every turn and memory of ``tenant`` (None: of every tenant) expired at ``now``,
    with the history of those memories and the topic links and fact runs of those turns.
    The users' locks are taken first, in a fixed order, and the rows read again under them."""
    found = _expired(c, "messages", tenant, now) + _expired(c, "memories", tenant, now)
    users = sorted({(r["tenant"], r["user_id"]) for r in found})
    for t, u in users:
        own_user(c, t, u, None)
    messages = [rows.message(r) for r in _expired(c, "messages", tenant, now)]
    memories = [rows.memory(r) for r in _expired(c, "memories", tenant, now)]
    message_ids, memory_ids = [m.id for m in messages], [m.id for m in memories]
    counts = {
        "messages": _delete_in(c, "messages", "id", message_ids),
        "memories": _delete_in(c, "memories", "id", memory_ids),
        "history": _delete_in(c, "history", "memory_id", memory_ids),
        "topic_messages": _delete_in(c, "topic_messages", "message_id", message_ids),
        "fact_runs": _delete_in(c, "fact_runs", "message_id", message_ids),
        "entity_mentions": _delete_in(c, "entity_mentions", "message_id", message_ids),
    }
    counts["entities"] = forget_unmentioned(c, users)
    for t, u in users:
        bump(c, t, u)
    return Swept(counts, messages, memories)


def first_expiry(c: Tx, tenant: str | None) -> str | None:
    """The earliest ``expires_at`` of ``tenant``'s turns and memories (None: of any tenant),
    read from the expiry indexes; None when no row expires."""
    q = c.dialect.mark
    where, args = "expires_at IS NOT NULL", []
    if tenant is not None:
        where, args = f"tenant = {q} AND expires_at IS NOT NULL", [tenant]
    found = [
        c.execute(f"SELECT min(expires_at) FROM {table} WHERE {where}", args).fetchone()[0]
        for table in ("messages", "memories")
    ]
    return min((f for f in found if f is not None), default=None)


def refresh(c: Tx, tenant: str, ids: list[str], now: datetime) -> dict[str, str]:
    """Move the expiry of the live rows among ``ids`` (turns or memories of ``tenant``) that
    carry a ttl to ``now`` + that ttl; returns their new ``expires_at`` by id."""
    d = c.dialect
    q, at = d.mark, format_time(now)
    found: list[tuple[str, str, str, int]] = []
    for table in ("messages", "memories"):
        for i in range(0, len(ids), CHUNK):
            chunk = ids[i : i + CHUNK]
            found += [
                (table, r[0], r[1], int(r[2]))
                for r in c.execute(
                    f"SELECT id, user_id, ttl_seconds FROM {table} WHERE tenant = {q}"
                    f" AND id IN ({d.marks(len(chunk))}) AND ttl_seconds IS NOT NULL"
                    f" AND expires_at > {q}",
                    [tenant, *chunk, at],
                )
            ]
    users = sorted({u for _, _, u, _ in found})
    for u in users:
        own_user(c, tenant, u, None)
    out = {}
    for table, id, _, ttl in found:
        out[id] = format_time(now + timedelta(seconds=ttl))
        c.execute(
            f"UPDATE {table} SET expires_at = {q} WHERE tenant = {q} AND id = {q}",
            (out[id], tenant, id),
        )
    for u in users:
        bump(c, tenant, u)
    return out


__all__ = ["CHUNK", "Swept", "first_expiry", "refresh", "sweep"]
