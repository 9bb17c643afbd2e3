"""The PostgreSQL store: the SQLite schema on PostgreSQL, with pgvector and tsvector.

Rows have the same columns and the same text encodings (times, JSON) as in SQLite, so the
row converters of :mod:`mnemo.storage.sqlite_rows` serve both stores and ``mnemo migrate``
copies rows unchanged. The search side (full text, vectors) is in
:mod:`mnemo.storage.postgres_search`, the job queue in :mod:`mnemo.storage.postgres_jobs`.

Concurrency: every write to a user's rows first takes a transaction-scoped advisory lock on
that (tenant, user). It serialises the per-session ``seq`` of concurrent writers, and it makes
a user's ``rowid`` order their commit order, which the incremental vector index relies on.
"""

from __future__ import annotations

import json
from typing import Any

from mnemo.errors import NotFoundError
from mnemo.schemas import HistoryEntry, MemoryItem, Message, Stats, format_time, utcnow
from mnemo.storage import sqlite_rows as rows
from mnemo.storage.base import ListFilter, NewJob, NewMemory, NewMessage
from mnemo.storage.postgres_conn import Conn, PgConnections, as_row, to_pg
from mnemo.storage.postgres_jobs import PgJobs
from mnemo.storage.postgres_search import PgSearch

_MEMORY_FIELDS = ("content", "tags", "metadata", "importance", "confidence", "session_id")
MESSAGE_COLS = (
    "rowid, id, tenant, user_id, session_id, seq, role, name, content, created_at, metadata,"
    " topic_id"
)
MEMORY_COLS = (
    "rowid, id, tenant, user_id, session_id, kind, content, tags, metadata, importance,"
    " confidence, source_message_ids, created_at, updated_at, valid_until, deleted_at,"
    " access_count, last_accessed_at"
)
#: Tables holding a user's rows, erased by ``delete_user`` (memory_tags go by cascade).
USER_TABLES = ("messages", "memories", "profile_facts", "history", "topics", "jobs")


class PostgresStore(PgSearch, PgJobs):
    """Store protocol over one PostgreSQL database (pgvector + full-text search)."""

    def __init__(
        self,
        url: str,
        pool_size: int = 10,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self.db = PgConnections(url, pool_size, connect_timeout_s)
        self.location = self.db.location
        self._indexed: set[str] = set()

    # ---- writes --------------------------------------------------------------------------
    def add_messages(self, new: list[NewMessage], jobs: list[NewJob]) -> list[Message]:
        """Insert turns (assigning per-session ``seq``) and their jobs atomically."""
        now = format_time(utcnow())
        out, params = [], []
        self.ensure_vector_index({m.embedder: m.embedding for m in new if m.embedder})
        with self.db.write() as c:
            next_seq: dict[tuple[str, str, str], int] = {}
            for tenant, user_id in sorted({(m.tenant, m.user_id) for m in new}):
                lock_user(c, tenant, user_id, now)
            for m in new:
                key = (m.tenant, m.user_id, m.session_id)
                if key not in next_seq:
                    row = c.execute(
                        "SELECT coalesce(max(seq), 0) AS s FROM messages"
                        " WHERE tenant=%s AND user_id=%s AND session_id=%s",
                        key,
                    ).fetchone()
                    next_seq[key] = int(row["s"]) + 1 if row else 1
                seq = next_seq[key]
                next_seq[key] = seq + 1
                params.append(message_params(m, seq))
                out.append(rows.message_from_new(m, seq))
            c.cursor().executemany(
                "INSERT INTO messages (id, tenant, user_id, session_id, seq, role, name,"
                " content, created_at, metadata, content_hash, embedder, embedding)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                params,
            )
            self._enqueue(c, jobs, now)
        return out

    def add_memory(self, row: NewMemory, actor: str) -> MemoryItem:
        """Insert a memory and its ADD history entry."""
        now = format_time(utcnow())
        if row.embedder:
            self.ensure_vector_index({row.embedder: row.embedding})
        with self.db.write() as c:
            lock_user(c, row.tenant, row.user_id, now)
            got = c.execute(
                "INSERT INTO memories (id, tenant, user_id, session_id, kind, content, tags,"
                " metadata, importance, confidence, source_message_ids, created_at, updated_at,"
                " content_hash, embedder, embedding)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) RETURNING rowid",
                memory_params(row, now),
            ).fetchone()
            assert got is not None
            c.cursor().executemany(
                "INSERT INTO memory_tags (memory_rowid, tag) VALUES (%s, %s)"
                " ON CONFLICT DO NOTHING",
                [(got["rowid"], t) for t in row.tags],
            )
            item = self._memory(c, row.tenant, row.id)
            self._history(
                c, item, "ADD", None, rows.snapshot(item), actor, row.source_message_ids, now
            )
        return item

    def update_memory(
        self,
        tenant: str,
        memory_id: str,
        changes: dict[str, Any],
        actor: str,
        source_message_ids: list[str] | None = None,
    ) -> MemoryItem:
        """Apply ``changes`` to a live memory and record UPDATE in history."""
        now = format_time(utcnow())
        if changes.get("embedder"):
            self.ensure_vector_index({changes["embedder"]: changes.get("embedding")})
        with self.db.write() as c:
            old = self._live_memory(c, tenant, memory_id, lock=True)
            sets, args = ["updated_at = %s"], [now]
            for key in _MEMORY_FIELDS:
                if key in changes:
                    value = changes[key]
                    sets.append(f"{key} = %s")
                    args.append(json.dumps(value) if key in ("tags", "metadata") else value)
            if "embedding" in changes:
                sets += ["embedding = %s", "embedder = %s", "content_hash = %s"]
                args += [changes["embedding"], changes["embedder"], changes["content_hash"]]
            got = c.execute(
                f"UPDATE memories SET {', '.join(sets)} WHERE tenant=%s AND id=%s RETURNING rowid",
                [*args, tenant, memory_id],
            ).fetchone()
            if "tags" in changes and got is not None:
                c.execute("DELETE FROM memory_tags WHERE memory_rowid=%s", (got["rowid"],))
                c.cursor().executemany(
                    "INSERT INTO memory_tags VALUES (%s, %s) ON CONFLICT DO NOTHING",
                    [(got["rowid"], t) for t in changes["tags"]],
                )
            new = self._memory(c, tenant, memory_id)
            self._bump(c, tenant, old.user_id)
            old_snap, new_snap = rows.snapshot(old), rows.snapshot(new)
            self._history(
                c, new, "UPDATE", old_snap, new_snap, actor, source_message_ids or [], now
            )
        return new

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a live memory and record DELETE in history."""
        now = format_time(utcnow())
        with self.db.write() as c:
            old = self._live_memory(c, tenant, memory_id, lock=True)
            c.execute(
                "UPDATE memories SET deleted_at=%s, updated_at=%s WHERE tenant=%s AND id=%s",
                (now, now, tenant, memory_id),
            )
            self._bump(c, tenant, old.user_id)
            self._history(c, old, "DELETE", rows.snapshot(old), None, actor, [], now)
            return self._memory(c, tenant, memory_id)

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user (the full-text and vector indexes go with the rows)."""
        counts = {}
        with self.db.write() as c:
            lock_user(c, tenant, user_id, None)
            for table in USER_TABLES:
                cur = c.execute(
                    f"DELETE FROM {table} WHERE tenant=%s AND user_id=%s", (tenant, user_id)
                )
                counts[table] = cur.rowcount
            c.execute("DELETE FROM users WHERE tenant=%s AND user_id=%s", (tenant, user_id))
        return counts

    # ---- reads ---------------------------------------------------------------------------
    def get_message(self, tenant: str, message_id: str) -> Message | None:
        """One message by id, or None."""
        with self.db.connection() as c:
            r = c.execute(
                f"SELECT {MESSAGE_COLS} FROM messages WHERE tenant=%s AND id=%s",
                (tenant, message_id),
            ).fetchone()
        return rows.message(as_row(r)) if r else None

    def get_memory(self, tenant: str, memory_id: str) -> MemoryItem | None:
        """One memory by id (deleted ones too), or None."""
        with self.db.connection() as c:
            r = c.execute(
                f"SELECT {MEMORY_COLS} FROM memories WHERE tenant=%s AND id=%s",
                (tenant, memory_id),
            ).fetchone()
        return rows.memory(as_row(r)) if r else None

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        where, args = rows.list_where(flt, time_col="created_at")
        if flt.kind:
            where.append("kind = ?")
            args.append(flt.kind)
        if flt.tag:
            where.append("rowid IN (SELECT memory_rowid FROM memory_tags WHERE tag = ?)")
            args.append(flt.tag)
        if not flt.include_deleted:
            where.append("deleted_at IS NULL")
        sql = (
            f"SELECT {MEMORY_COLS} FROM memories WHERE {' AND '.join(where)}"
            " ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?"
        )
        with self.db.connection() as c:
            found = c.execute(to_pg(sql), [*args, flt.limit, flt.offset]).fetchall()
        return [rows.memory(as_row(r)) for r in found]

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        where, args = rows.list_where(flt, time_col="created_at")
        sql = (
            f"SELECT {MESSAGE_COLS} FROM messages WHERE {' AND '.join(where)}"
            " ORDER BY created_at, session_id, seq LIMIT ? OFFSET ?"
        )
        with self.db.connection() as c:
            found = c.execute(to_pg(sql), [*args, flt.limit, flt.offset]).fetchall()
        return [rows.message(as_row(r)) for r in found]

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first."""
        with self.db.connection() as c:
            found = c.execute(
                "SELECT * FROM history WHERE tenant=%s AND memory_id=%s ORDER BY rowid",
                (tenant, memory_id),
            ).fetchall()
        return [rows.history(as_row(r)) for r in found]

    def count_items(self, tenant: str, user_id: str, session_id: str) -> int:
        """Messages plus live memories in one session."""
        with self.db.connection() as c:
            r = c.execute(
                "SELECT (SELECT count(*) FROM messages WHERE tenant=%s AND user_id=%s"
                " AND session_id=%s) + (SELECT count(*) FROM memories WHERE tenant=%s"
                " AND user_id=%s AND session_id=%s AND deleted_at IS NULL) AS n",
                (tenant, user_id, session_id) * 2,
            ).fetchone()
        return int(r["n"]) if r else 0

    def stats(self, tenant: str) -> Stats:
        """Counts of users, sessions, messages, memories by kind and jobs by status."""
        with self.db.read() as c:

            def one(sql: str) -> int:
                r = c.execute(sql, (tenant,)).fetchone()
                return int(r["n"]) if r else 0

            def grouped(sql: str) -> dict[str, int]:
                return {r["k"]: int(r["n"]) for r in c.execute(sql, (tenant,))}

            return Stats(
                users=one("SELECT count(*) AS n FROM users WHERE tenant=%s"),
                sessions=one(
                    "SELECT count(*) AS n FROM (SELECT DISTINCT user_id, session_id"
                    " FROM messages WHERE tenant=%s) s"
                ),
                messages=one("SELECT count(*) AS n FROM messages WHERE tenant=%s"),
                memories=grouped(
                    "SELECT kind AS k, count(*) AS n FROM memories WHERE tenant=%s"
                    " AND deleted_at IS NULL GROUP BY kind"
                ),
                jobs=grouped(
                    "SELECT status AS k, count(*) AS n FROM jobs WHERE tenant=%s GROUP BY status"
                ),
                embedder=next(iter(self.embedders_in_use()), None),
                path=self.location,
            )

    def close(self) -> None:
        """Close every connection."""
        self.db.close()

    # ---- helpers -------------------------------------------------------------------------
    def _bump(self, c: Conn, tenant: str, user_id: str) -> None:
        c.execute(
            "UPDATE users SET generation = generation + 1 WHERE tenant=%s AND user_id=%s",
            (tenant, user_id),
        )

    def _memory(self, c: Conn, tenant: str, memory_id: str) -> MemoryItem:
        r = c.execute(
            f"SELECT {MEMORY_COLS} FROM memories WHERE tenant=%s AND id=%s", (tenant, memory_id)
        ).fetchone()
        if r is None:
            raise NotFoundError(f"no memory with id {memory_id!r}")
        return rows.memory(as_row(r))

    def _live_memory(self, c: Conn, tenant: str, memory_id: str, lock: bool) -> MemoryItem:
        item = self._memory(c, tenant, memory_id)
        if lock:  # take the user's lock, then read again: a concurrent change may have won
            lock_user(c, tenant, item.user_id, None)
            item = self._memory(c, tenant, memory_id)
        if item.deleted_at is not None:
            raise NotFoundError(f"memory {memory_id!r} was deleted")
        return item

    def _history(
        self,
        c: Conn,
        item: MemoryItem,
        event: str,
        old: dict[str, Any] | None,
        new: dict[str, Any] | None,
        actor: str,
        sources: list[str],
        now: str,
    ) -> None:
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


def lock_user(c: Conn, tenant: str, user_id: str, now: str | None) -> None:
    """Take the (tenant, user) write lock for this transaction; with ``now``, ensure the row."""
    c.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (tenant + "\x1f" + user_id,))
    if now is not None:
        c.execute(
            "INSERT INTO users (tenant, user_id, created_at) VALUES (%s,%s,%s)"
            " ON CONFLICT DO NOTHING",
            (tenant, user_id, now),
        )


def message_params(m: NewMessage, seq: int) -> tuple[Any, ...]:
    """INSERT parameters of one turn, in the column order of ``add_messages``."""
    return (
        m.id,
        m.tenant,
        m.user_id,
        m.session_id,
        seq,
        m.role,
        m.name,
        m.content,
        m.created_at,
        json.dumps(m.metadata),
        m.content_hash,
        m.embedder,
        m.embedding,
    )


def memory_params(row: NewMemory, now: str) -> tuple[Any, ...]:
    """INSERT parameters of one memory, in the column order of ``add_memory``."""
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
