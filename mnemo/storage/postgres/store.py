"""The PostgreSQL store: the SQLite schema on PostgreSQL, with pgvector and tsvector.

Rows have the same columns and the same text encodings (times, JSON) as in SQLite, so the
row converters of :mod:`mnemo.storage.sql.rows` serve both stores and ``mnemo migrate``
copies rows unchanged. The search side (full text, vectors) is in
:mod:`mnemo.storage.postgres.search`, the job queue in :mod:`mnemo.storage.postgres.jobs`.

Concurrency: every write to a user's rows first takes a transaction-scoped advisory lock on
that (tenant, user). It serialises the per-session ``seq`` of concurrent writers, and it makes
a user's ``rowid`` order their commit order, which the incremental vector index relies on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from mnemo.schemas import HistoryEntry, MemoryItem, Message, Stats, format_time, utcnow
from mnemo.storage.base import ListFilter, NewJob, NewMemory, NewMessage
from mnemo.storage.postgres import memories as mem_sql
from mnemo.storage.postgres.conn import PgConnections
from mnemo.storage.postgres.jobs import PgJobs
from mnemo.storage.postgres.memories import MEMORY_COLS, lock_user
from mnemo.storage.postgres.search import PgSearch
from mnemo.storage.postgres.tiers import PgTiers
from mnemo.storage.postgres.tx import PgTransactions, PgTx
from mnemo.storage.sql import rows
from mnemo.storage.sql.api_keys import ApiKeyTable
from mnemo.storage.sql.dialect import POSTGRES
from mnemo.storage.sql.maintenance import SQLMaintenance
from mnemo.storage.sql.topics import Topics
from mnemo.storage.sql.tx import Tx
from mnemo.storage.topic_records import Conversation, TopicRow

MESSAGE_COLS = (
    "rowid, id, tenant, user_id, session_id, seq, role, name, content, created_at, metadata,"
    " topic_id"
)
#: Tables holding a user's rows, erased by ``delete_user`` (memory_tags go by cascade).
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
)


T = TypeVar("T")


class PostgresStore(PgSearch, PgJobs, PgTiers):
    """Store protocol over one PostgreSQL database (pgvector + full-text search)."""

    def __init__(
        self,
        url: str,
        pool_size: int = 10,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self.db = PgConnections(url, pool_size, connect_timeout_s)
        self.location = self.db.location
        self.tx = PgTransactions(self.db)
        self.api_keys = ApiKeyTable(self.tx)
        self.maintenance = SQLMaintenance(self.tx)
        self.topics = Topics(self.tx, lock=_lock)
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
                " content, created_at, metadata, content_hash, embedder, embedding,"
                " key_vectors) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
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
            return mem_sql.insert(c, row, actor, row.source_message_ids, now)

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
            return mem_sql.update(
                c, tenant, memory_id, changes, actor, source_message_ids or [], now
            )

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a live memory and record DELETE in history."""
        now = format_time(utcnow())
        with self.db.write() as c:
            return mem_sql.delete(c, tenant, memory_id, actor, [], now)

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
        return rows.message(r) if r else None

    def get_memory(self, tenant: str, memory_id: str) -> MemoryItem | None:
        """One memory by id (deleted ones too), or None."""
        with self.db.connection() as c:
            r = c.execute(
                f"SELECT {MEMORY_COLS} FROM memories WHERE tenant=%s AND id=%s",
                (tenant, memory_id),
            ).fetchone()
        return rows.memory(r) if r else None

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        where, args = rows.list_where(flt, POSTGRES)
        if flt.kind:
            where.append("kind = %s")
            args.append(flt.kind)
        if flt.tag:
            where.append("rowid IN (SELECT memory_rowid FROM memory_tags WHERE tag = %s)")
            args.append(flt.tag)
        if not flt.include_deleted:
            where.append("deleted_at IS NULL")
        sql = (
            f"SELECT {MEMORY_COLS} FROM memories WHERE {' AND '.join(where)}"
            " ORDER BY created_at DESC, rowid DESC LIMIT %s OFFSET %s"
        )
        with self.db.connection() as c:
            found = c.execute(sql, [*args, flt.limit, flt.offset]).fetchall()
        return [rows.memory(r) for r in found]

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        where, args = rows.list_where(flt, POSTGRES)
        sql = (
            f"SELECT {MESSAGE_COLS} FROM messages WHERE {' AND '.join(where)}"
            " ORDER BY created_at, session_id, seq LIMIT %s OFFSET %s"
        )
        with self.db.connection() as c:
            found = c.execute(sql, [*args, flt.limit, flt.offset]).fetchall()
        return [rows.message(r) for r in found]

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first."""
        with self.db.connection() as c:
            found = c.execute(
                "SELECT * FROM history WHERE tenant=%s AND memory_id=%s ORDER BY rowid",
                (tenant, memory_id),
            ).fetchall()
        return [rows.history(r) for r in found]

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
                llm_fallbacks=one(
                    "SELECT coalesce(sum((usage::json->>'fallbacks')::bigint), 0) AS n"
                    " FROM jobs WHERE tenant=%s AND usage IS NOT NULL"
                ),
                job_errors=[
                    f"job {r['rowid']} {r['kind']} ({r['status']}, attempt {r['attempts']}):"
                    f" {r['last_error']}"
                    for r in c.execute(
                        "SELECT rowid, kind, status, attempts, last_error FROM jobs"
                        " WHERE tenant=%s AND status IN ('pending', 'dead')"
                        " AND last_error IS NOT NULL ORDER BY updated_at DESC LIMIT 5",
                        (tenant,),
                    )
                ],
            )

    # ---- topics ---------------------------------------------------------------------------
    def apply_topics(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        fn: Callable[[Conversation], T],
        write: bool = True,
        also: str | None = None,
    ) -> T:
        """Load a conversation (plus topic ``also``), run ``fn`` on it and (``write``) persist
        its changes, atomically, under the user's write lock."""
        return self.topics.apply_topics(tenant, user_id, session_id, fn, write, also)

    def list_topics(
        self, tenant: str, user_id: str, session_id: str | None, include_inactive: bool
    ) -> list[TopicRow]:
        """Topics of a user (or one conversation), latest activity first, without messages."""
        return self.topics.list_topics(tenant, user_id, session_id, include_inactive)

    def get_topic(self, tenant: str, topic_id: str) -> TopicRow | None:
        """One topic by id (without messages), or None."""
        return self.topics.get_topic(tenant, topic_id)

    def close(self) -> None:
        """Close every connection."""
        self.db.close()


def _lock(c: Tx, tenant: str, user_id: str) -> None:
    """The user's write lock around a writing ``apply_topics`` (SQLite serialises writers by
    itself; PostgreSQL does not)."""
    assert isinstance(c, PgTx)
    lock_user(c.conn, tenant, user_id, None)


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
        rows.key_blob(m.key_vectors),
    )
