"""Memory writes shared by both stores: insert, update and soft delete with their history, the
``users`` rows and generations. Each function takes the caller's open write :class:`Tx`, so one
transaction can hold several of them (a fact batch adds, updates and deletes together).

Every write first takes the user's write lock (:func:`~mnemo.storage.sql.user_lock.lock_user`):
on PostgreSQL it serialises a user's writers and keeps their rowid order equal to their commit
order, which the incremental vector index relies on; SQLite serialises writers by itself. A
write made by a job whose user was erased meanwhile raises there, before anything is written.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from mnemo import memory_fields
from mnemo.errors import NotFoundError
from mnemo.schemas import MemoryItem, format_time
from mnemo.storage.base import MEMORY, ListFilter, NewMemory
from mnemo.storage.ports.rows import MemoryChange
from mnemo.storage.sql import keyset, rows
from mnemo.storage.sql.dialect import Dialect
from mnemo.storage.sql.tx import Tx
from mnemo.storage.sql.user_lock import lock_user

#: Columns a MemoryItem is read from (every field of :data:`mnemo.memory_fields.FIELDS`).
MEMORY_COLS = ", ".join(["rowid", *(f.selected for f in memory_fields.FIELDS)])
#: The fields an insert writes, each from the NewMemory or the clock (``insert``).
INSERTED = tuple(f for f in memory_fields.FIELDS if f.insert is not None)
#: The columns of an embedded content, inserted and updated together.
EMBEDDING_COLUMNS = ("content_hash", "embedder", "embedding")
INSERT_COLUMNS = (*(f.column for f in INSERTED), *EMBEDDING_COLUMNS)
#: The fields an update's ``changes`` may set (besides the embedding).
FIELDS = memory_fields.fields_where(rewritable=True)
HISTORY_COLUMNS = (
    "tenant",
    "user_id",
    "memory_id",
    "event",
    "old",
    "new",
    "actor",
    "at",
    "source_message_ids",
)


def listed_where(flt: ListFilter, d: Dialect) -> tuple[str, list[Any]]:
    """The WHERE condition and arguments of the memories ``flt`` selects (its scope, times,
    tag)."""
    where, args = rows.list_where(flt, MEMORY, d)
    if flt.tag:
        where.append(f"rowid IN (SELECT memory_rowid FROM memory_tags WHERE tag = {d.mark})")
        args.append(flt.tag)
    return " AND ".join(where), args


def listed(c: Tx, flt: ListFilter) -> list[MemoryItem]:
    """The memories ``flt`` selects, newest first, its window of them."""
    where, args = listed_where(flt, c.dialect)
    after, after_args = keyset.memories_after(flt, c.dialect)
    where, args = " AND ".join([where, *after]), [*args, *after_args]
    q = c.dialect.mark
    sql = (
        f"SELECT {MEMORY_COLS} FROM memories WHERE {where}"
        f" ORDER BY created_at DESC, rowid DESC LIMIT {q} OFFSET {q}"
    )
    return [rows.memory(r) for r in c.execute(sql, [*args, flt.limit, flt.offset])]


def counted(c: Tx, flt: ListFilter) -> int:
    """How many memories ``flt`` selects (its limit and offset aside)."""
    where, args = listed_where(flt, c.dialect)
    return int(c.execute(f"SELECT count(*) FROM memories WHERE {where}", args).fetchone()[0])


def own_user(c: Tx, tenant: str, user_id: str, now: str | None) -> None:
    """Take the user's write lock for this transaction; with ``now``, ensure the users row."""
    lock_user(c, tenant, user_id)
    if now is not None:
        c.execute(
            c.dialect.insert_ignore("users", ("tenant", "user_id", "created_at")),
            (tenant, user_id, now),
        )


def bump(c: Tx, tenant: str, user_id: str) -> None:
    """A change other than an insert: cached vector indexes of the user reload."""
    q = c.dialect.mark
    c.execute(
        f"UPDATE users SET generation = generation + 1 WHERE tenant={q} AND user_id={q}",
        (tenant, user_id),
    )


def find(c: Tx, tenant: str, memory_id: str) -> MemoryItem | None:
    """One memory (deleted ones too), or None."""
    q = c.dialect.mark
    sql = f"SELECT {MEMORY_COLS} FROM memories WHERE tenant={q} AND id={q}"
    r = c.execute(sql, (tenant, memory_id)).fetchone()
    return None if r is None else rows.memory(r)


def get(c: Tx, tenant: str, memory_id: str) -> MemoryItem:
    """One memory (deleted ones too); NotFoundError when there is none."""
    item = find(c, tenant, memory_id)
    if item is None:
        raise NotFoundError(f"no memory with id {memory_id!r}")
    return item


def live(c: Tx, tenant: str, memory_id: str) -> MemoryItem:
    """A live memory, read again under its user's lock (a concurrent change may have won)."""
    item = get(c, tenant, memory_id)
    lock_user(c, tenant, item.user_id)
    item = get(c, tenant, memory_id)
    if item.deleted_at is not None:
        raise NotFoundError(f"memory {memory_id!r} was deleted")
    return item


def insert(c: Tx, row: NewMemory, actor: str, sources: list[str], now: str) -> MemoryItem:
    """Insert a memory, its tags and its ADD history entry."""
    own_user(c, row.tenant, row.user_id, now)
    d = c.dialect
    rowid = c.insert(
        d.insert("memories", INSERT_COLUMNS),
        (
            *(rows.stored(f, now if f.insert == "now" else getattr(row, f.name)) for f in INSERTED),
            row.content_hash,
            row.embedder,
            d.vector(row.embedding),
        ),
    )
    _tags(c, rowid, row.tags)
    item = get(c, row.tenant, row.id)
    record(c, item, "ADD", None, rows.snapshot(item), actor, sources, now)
    return item


def update(c: Tx, change: MemoryChange, now: str) -> MemoryItem:
    """Apply ``change`` to a live memory (not expired at ``now``) and record UPDATE in
    history."""
    tenant, memory_id, changes = change.tenant, change.memory_id, change.changes
    old = live(c, tenant, memory_id)
    if old.expires_at is not None and format_time(old.expires_at) <= now:
        raise NotFoundError(f"memory {memory_id!r} expired")
    d = c.dialect
    q = d.mark
    sets, args = [f"updated_at = {q}"], [now]
    for f in FIELDS:
        if f.name in changes:
            sets.append(f"{f.column} = {q}")
            args.append(rows.stored(f, changes[f.name]))
    if "embedding" in changes:
        sets += [f"embedding = {q}", f"embedder = {q}", f"content_hash = {q}"]
        args += [d.vector(changes["embedding"]), changes["embedder"], changes["content_hash"]]
    c.execute(
        f"UPDATE memories SET {', '.join(sets)} WHERE tenant={q} AND id={q}",
        [*args, tenant, memory_id],
    )
    if "tags" in changes:
        rowid = c.execute(f"SELECT rowid FROM memories WHERE id={q}", (memory_id,)).fetchone()[0]
        c.execute(f"DELETE FROM memory_tags WHERE memory_rowid={q}", (rowid,))
        _tags(c, rowid, changes["tags"])
    new = get(c, tenant, memory_id)
    bump(c, tenant, old.user_id)
    snapshots = rows.snapshot(old), rows.snapshot(new)
    record(c, new, "UPDATE", *snapshots, change.actor, change.source_message_ids, now)
    return new


def delete(
    c: Tx, tenant: str, memory_id: str, actor: str, sources: list[str], now: str
) -> MemoryItem:
    """Soft-delete a live memory and record DELETE in history."""
    old = live(c, tenant, memory_id)
    q = c.dialect.mark
    c.execute(
        f"UPDATE memories SET deleted_at={q}, updated_at={q} WHERE tenant={q} AND id={q}",
        (now, now, tenant, memory_id),
    )
    bump(c, tenant, old.user_id)
    record(c, old, "DELETE", rows.snapshot(old), None, actor, sources, now)
    return get(c, tenant, memory_id)


def delete_selected(c: Tx, flt: ListFilter, actor: str, now: str) -> list[MemoryItem]:
    """Soft-delete every live memory ``flt`` selects (limit and offset aside), as
    :func:`delete` does one, and return them deleted. The rows are those :func:`listed` and
    :func:`counted` select (same WHERE: the read scope), rows expired at ``now`` (unless the
    scope names its own time) left out as a list leaves them."""
    scope = replace(flt.scope, deleted=False, live_at=flt.scope.live_at or now)
    where, args = listed_where(replace(flt, scope=scope), c.dialect)
    ids = [r[0] for r in c.execute(f"SELECT id FROM memories WHERE {where}", args).fetchall()]
    return [delete(c, scope.tenant, memory_id, actor, [], now) for memory_id in ids]


def record(
    c: Tx,
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
        c.dialect.insert("history", HISTORY_COLUMNS),
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


def _tags(c: Tx, rowid: int, tags: list[str]) -> None:
    if tags:
        c.executemany(
            c.dialect.insert_ignore("memory_tags", ("memory_rowid", "tag")),
            [(rowid, t) for t in tags],
        )
