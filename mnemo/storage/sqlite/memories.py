"""SQL of memory rows shared by the SQLite store's writes: insert, update and soft delete with
their history, the users table's rows and generations. Each function takes the open write
connection of the caller's transaction."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import numpy as np

from mnemo.errors import NotFoundError
from mnemo.schemas import MemoryItem
from mnemo.storage.base import NewMemory
from mnemo.storage.sql import rows

MEMORY_FIELDS = (
    "content",
    "tags",
    "metadata",
    "importance",
    "confidence",
    "session_id",
    "source_message_ids",
)


def blob(vec: np.ndarray | None) -> bytes | None:
    """A vector as the float32 bytes stored in an ``embedding`` column."""
    return None if vec is None else np.asarray(vec, dtype=np.float32).tobytes()


def ensure_user(c: sqlite3.Connection, tenant: str, user_id: str, now: str) -> None:
    """Create the (tenant, user) row if it is missing."""
    c.execute(
        "INSERT OR IGNORE INTO users (tenant, user_id, created_at) VALUES (?,?,?)",
        (tenant, user_id, now),
    )


def bump(c: sqlite3.Connection, tenant: str, user_id: str) -> None:
    """Advance a user's generation: cached vector indexes of the user must reload."""
    c.execute(
        "UPDATE users SET generation = generation + 1 WHERE tenant=? AND user_id=?",
        (tenant, user_id),
    )


def get(c: sqlite3.Connection, tenant: str, memory_id: str) -> MemoryItem:
    """A memory by id, deleted or not; NotFoundError when there is none."""
    r = c.execute("SELECT * FROM memories WHERE tenant=? AND id=?", (tenant, memory_id)).fetchone()
    if r is None:
        raise NotFoundError(f"no memory with id {memory_id!r}")
    return rows.memory(r)


def live_memory(c: sqlite3.Connection, tenant: str, memory_id: str) -> MemoryItem:
    """A memory by id that is not deleted; NotFoundError otherwise."""
    item = get(c, tenant, memory_id)
    if item.deleted_at is not None:
        raise NotFoundError(f"memory {memory_id!r} was deleted")
    return item


def insert_memory(
    c: sqlite3.Connection, row: NewMemory, actor: str, sources: list[str], now: str
) -> MemoryItem:
    """Insert a memory row and its ADD history entry."""
    ensure_user(c, row.tenant, row.user_id, now)
    cur = c.execute(
        "INSERT INTO memories (id, tenant, user_id, session_id, kind, content, tags,"
        " metadata, importance, confidence, source_message_ids, created_at, updated_at,"
        " content_hash, embedder, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
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
            blob(row.embedding),
        ),
    )
    rowid = cur.lastrowid
    c.executemany(
        "INSERT OR IGNORE INTO memory_tags (memory_rowid, tag) VALUES (?, ?)",
        [(rowid, t) for t in row.tags],
    )
    item = get(c, row.tenant, row.id)
    record(c, item, "ADD", None, rows.snapshot(item), actor, sources, now)
    return item


def update_memory(
    c: sqlite3.Connection,
    tenant: str,
    memory_id: str,
    changes: dict[str, Any],
    actor: str,
    sources: list[str],
    now: str,
) -> MemoryItem:
    """Apply ``changes`` to a live memory and record UPDATE in history."""
    old = live_memory(c, tenant, memory_id)
    sets: list[str] = ["updated_at = ?"]
    args: list[Any] = [now]
    for key in MEMORY_FIELDS:
        if key in changes:
            value = changes[key]
            if key in ("tags", "metadata", "source_message_ids"):
                value = json.dumps(value)
            sets.append(f"{key} = ?")
            args.append(value)
    if "embedding" in changes:
        sets += ["embedding = ?", "embedder = ?", "content_hash = ?"]
        args += [blob(changes["embedding"]), changes["embedder"], changes["content_hash"]]
    c.execute(
        f"UPDATE memories SET {', '.join(sets)} WHERE tenant=? AND id=?",
        [*args, tenant, memory_id],
    )
    if "tags" in changes:
        rowid = c.execute("SELECT rowid FROM memories WHERE id=?", (memory_id,)).fetchone()[0]
        c.execute("DELETE FROM memory_tags WHERE memory_rowid=?", (rowid,))
        c.executemany(
            "INSERT OR IGNORE INTO memory_tags VALUES (?, ?)",
            [(rowid, t) for t in changes["tags"]],
        )
    new = get(c, tenant, memory_id)
    bump(c, tenant, old.user_id)
    record(c, new, "UPDATE", rows.snapshot(old), rows.snapshot(new), actor, sources, now)
    return new


def delete_memory(
    c: sqlite3.Connection,
    tenant: str,
    memory_id: str,
    actor: str,
    sources: list[str],
    now: str,
) -> MemoryItem:
    """Soft-delete a live memory and record DELETE in history."""
    old = live_memory(c, tenant, memory_id)
    c.execute(
        "UPDATE memories SET deleted_at=?, updated_at=? WHERE tenant=? AND id=?",
        (now, now, tenant, memory_id),
    )
    bump(c, tenant, old.user_id)
    record(c, old, "DELETE", rows.snapshot(old), None, actor, sources, now)
    return get(c, tenant, memory_id)


def record(
    c: sqlite3.Connection,
    item: MemoryItem,
    event: str,
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    actor: str,
    sources: list[str],
    now: str,
) -> None:
    """Append one history entry of a memory change."""
    c.execute(
        "INSERT INTO history (tenant, user_id, memory_id, event, old, new, actor, at,"
        " source_message_ids) VALUES (?,?,?,?,?,?,?,?,?)",
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
