"""Memory writes of the PostgreSQL store, inside the caller's transaction.

Each function takes an open connection, so one transaction can hold several of them (a fact
batch adds, updates and deletes together). Every write first takes the user's advisory lock
(:func:`lock_user`), which serialises a user's writers and keeps their rowid order equal to
their commit order (the incremental vector index relies on it).
"""

from __future__ import annotations

import json
from typing import Any

from mnemo.errors import NotFoundError
from mnemo.schemas import MemoryItem
from mnemo.storage.base import NewMemory
from mnemo.storage.postgres.conn import Conn
from mnemo.storage.sql import rows

FIELDS = ("content", "tags", "metadata", "importance", "confidence", "session_id")
JSON_FIELDS = ("tags", "metadata", "source_message_ids")
MEMORY_COLS = (
    "rowid, id, tenant, user_id, session_id, kind, content, tags, metadata, importance,"
    " confidence, source_message_ids, created_at, updated_at, valid_until, deleted_at,"
    " access_count, last_accessed_at"
)


def lock_user(c: Conn, tenant: str, user_id: str, now: str | None) -> None:
    """Take the (tenant, user) write lock for this transaction; with ``now``, ensure the row."""
    c.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (tenant + "\x1f" + user_id,))
    if now is not None:
        c.execute(
            "INSERT INTO users (tenant, user_id, created_at) VALUES (%s,%s,%s)"
            " ON CONFLICT DO NOTHING",
            (tenant, user_id, now),
        )


def bump(c: Conn, tenant: str, user_id: str) -> None:
    """A change other than an insert: cached vector indexes of the user reload."""
    c.execute(
        "UPDATE users SET generation = generation + 1 WHERE tenant=%s AND user_id=%s",
        (tenant, user_id),
    )


def get(c: Conn, tenant: str, memory_id: str) -> MemoryItem:
    """One memory (deleted ones too); NotFoundError when there is none."""
    r = c.execute(
        f"SELECT {MEMORY_COLS} FROM memories WHERE tenant=%s AND id=%s", (tenant, memory_id)
    ).fetchone()
    if r is None:
        raise NotFoundError(f"no memory with id {memory_id!r}")
    return rows.memory(r)


def live(c: Conn, tenant: str, memory_id: str) -> MemoryItem:
    """A live memory, read again under its user's lock (a concurrent change may have won)."""
    item = get(c, tenant, memory_id)
    lock_user(c, tenant, item.user_id, None)
    item = get(c, tenant, memory_id)
    if item.deleted_at is not None:
        raise NotFoundError(f"memory {memory_id!r} was deleted")
    return item


def insert(c: Conn, row: NewMemory, actor: str, sources: list[str], now: str) -> MemoryItem:
    """Insert a memory, its tags and its ADD history entry."""
    lock_user(c, row.tenant, row.user_id, now)
    got = c.execute(
        "INSERT INTO memories (id, tenant, user_id, session_id, kind, content, tags,"
        " metadata, importance, confidence, source_message_ids, created_at, updated_at,"
        " content_hash, embedder, embedding)"
        " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) RETURNING rowid",
        params(row, now),
    ).fetchone()
    assert got is not None
    _tags(c, got["rowid"], row.tags)
    item = get(c, row.tenant, row.id)
    history(c, item, "ADD", None, rows.snapshot(item), actor, sources, now)
    return item


def update(
    c: Conn,
    tenant: str,
    memory_id: str,
    changes: dict[str, Any],
    actor: str,
    sources: list[str],
    now: str,
) -> MemoryItem:
    """Apply ``changes`` to a live memory and record UPDATE in history."""
    old = live(c, tenant, memory_id)
    sets, args = ["updated_at = %s"], [now]
    for key in (*FIELDS, "source_message_ids"):
        if key in changes:
            sets.append(f"{key} = %s")
            args.append(json.dumps(changes[key]) if key in JSON_FIELDS else changes[key])
    if "embedding" in changes:
        sets += ["embedding = %s", "embedder = %s", "content_hash = %s"]
        args += [changes["embedding"], changes["embedder"], changes["content_hash"]]
    got = c.execute(
        f"UPDATE memories SET {', '.join(sets)} WHERE tenant=%s AND id=%s RETURNING rowid",
        [*args, tenant, memory_id],
    ).fetchone()
    if "tags" in changes and got is not None:
        c.execute("DELETE FROM memory_tags WHERE memory_rowid=%s", (got["rowid"],))
        _tags(c, got["rowid"], changes["tags"])
    new = get(c, tenant, memory_id)
    bump(c, tenant, old.user_id)
    history(c, new, "UPDATE", rows.snapshot(old), rows.snapshot(new), actor, sources, now)
    return new


def delete(
    c: Conn, tenant: str, memory_id: str, actor: str, sources: list[str], now: str
) -> MemoryItem:
    """Soft-delete a live memory and record DELETE in history."""
    old = live(c, tenant, memory_id)
    c.execute(
        "UPDATE memories SET deleted_at=%s, updated_at=%s WHERE tenant=%s AND id=%s",
        (now, now, tenant, memory_id),
    )
    bump(c, tenant, old.user_id)
    history(c, old, "DELETE", rows.snapshot(old), None, actor, sources, now)
    return get(c, tenant, memory_id)


def history(
    c: Conn,
    item: MemoryItem,
    event: str,
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    actor: str,
    sources: list[str],
    now: str,
) -> None:
    """Record one change of a memory."""
    c.execute(
        "INSERT INTO history (tenant, user_id, memory_id, event, old, new, actor, at,"
        " source_message_ids) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
        (
            item.tenant,
            item.user_id,
            item.id,
            event,
            None if old is None else json.dumps(old),
            None if new is None else json.dumps(new),
            actor,
            now,
            json.dumps(sources),
        ),
    )


def _tags(c: Conn, rowid: int, tags: list[str]) -> None:
    if tags:
        c.cursor().executemany(
            "INSERT INTO memory_tags (memory_rowid, tag) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            [(rowid, t) for t in tags],
        )


def params(row: NewMemory, now: str) -> tuple[Any, ...]:
    """INSERT parameters of one memory, in the column order of :func:`insert`."""
    return (
        row.id,
        row.tenant,
        row.user_id,
        row.session_id,
        row.kind,
        row.content,
        json.dumps(row.tags),
        json.dumps(row.metadata),
        row.importance,
        row.confidence,
        json.dumps(row.source_message_ids),
        row.created_at,
        now,
        row.content_hash,
        row.embedder,
        row.embedding,
    )
