"""The default store: one SQLite file (WAL, FTS5 with bm25, float32 vector blobs)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from mnemo.errors import StorageError
from mnemo.schemas import (
    Document,
    HistoryEntry,
    MemoryItem,
    Message,
    ProfileFact,
    Stats,
    format_time,
    utcnow,
)
from mnemo.storage.base import (
    MEMORY,
    MESSAGE,
    DocumentChunks,
    FactBatch,
    ListFilter,
    NewDocument,
    NewJob,
    NewMemory,
    NewMessage,
    NewProfileFact,
    ProfileDecide,
    ProfileDecision,
    Ref,
)
from mnemo.storage.sql import documents as docs
from mnemo.storage.sql import profile as profile_sql
from mnemo.storage.sql import rows
from mnemo.storage.sql.api_keys import ApiKeyTable
from mnemo.storage.sql.dialect import SQLITE
from mnemo.storage.sql.maintenance import SQLMaintenance
from mnemo.storage.sql.topics import Topics
from mnemo.storage.sqlite import memories as mem_sql
from mnemo.storage.sqlite.conn import Connections
from mnemo.storage.sqlite.fts_repair import repair_fts
from mnemo.storage.sqlite.jobs import SQLiteJobs
from mnemo.storage.sqlite.tx import SQLiteTransactions
from mnemo.storage.sqlite.vectors import SQLiteVectors
from mnemo.storage.topic_records import Conversation, TopicRow


def owner_token(tenant: str, user_id: str) -> str:
    """The FTS token that confines a query to one (tenant, user), as the triggers write it."""
    return "o" + (tenant + "\x1f" + user_id).encode("utf-8").hex().upper()


T = TypeVar("T")


class SQLiteStore(SQLiteJobs, SQLiteVectors):
    """Store protocol over one SQLite file; safe to share between threads and processes."""

    def __init__(self, path: str, busy_timeout_ms: int = 30_000, synchronous: str = "FULL"):
        self.location = path
        self.db = Connections(path, busy_timeout_ms, synchronous)
        try:
            self.db.migrate()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise StorageError(f"{path} is not a usable mnemo database: {exc}") from exc
        self.tx = SQLiteTransactions(self.db)
        self.api_keys = ApiKeyTable(self.tx)
        self.maintenance = SQLMaintenance(self.tx, drift=repair_fts)
        self.topics = Topics(self.tx)

    # ---- writes --------------------------------------------------------------------------
    def add_messages(self, new: list[NewMessage], jobs: list[NewJob]) -> list[Message]:
        """Insert turns (assigning per-session ``seq``) and their jobs atomically."""
        now = format_time(utcnow())
        out = []
        with self.db.write() as c:
            next_seq: dict[tuple[str, str, str], int] = {}
            for m in new:
                key = (m.tenant, m.user_id, m.session_id)
                if key not in next_seq:
                    mem_sql.ensure_user(c, m.tenant, m.user_id, now)
                    row = c.execute(
                        "SELECT coalesce(max(seq), 0) FROM messages"
                        " WHERE tenant=? AND user_id=? AND session_id=?",
                        key,
                    ).fetchone()
                    next_seq[key] = row[0] + 1
                seq = next_seq[key]
                next_seq[key] = seq + 1
                c.execute(
                    "INSERT INTO messages (id, tenant, user_id, session_id, seq, role, name,"
                    " content, created_at, metadata, content_hash, embedder, embedding,"
                    " key_vectors) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
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
                        mem_sql.blob(m.embedding),
                        rows.key_blob(m.key_vectors),
                    ),
                )
                out.append(rows.message_from_new(m, seq))
            self._enqueue(c, jobs, now)
        return out

    def add_memory(self, row: NewMemory, actor: str) -> MemoryItem:
        """Insert a memory and its ADD history entry."""
        now = format_time(utcnow())
        with self.db.write() as c:
            return mem_sql.insert_memory(c, row, actor, row.source_message_ids, now)

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
        with self.db.write() as c:
            return mem_sql.update_memory(
                c, tenant, memory_id, changes, actor, source_message_ids or [], now
            )

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a live memory and record DELETE in history."""
        now = format_time(utcnow())
        with self.db.write() as c:
            return mem_sql.delete_memory(c, tenant, memory_id, actor, [], now)

    def apply_facts(self, batch: FactBatch) -> list[MemoryItem] | None:
        """Apply a fact batch with history; None (and no change) if its turns were done."""
        now = format_time(utcnow())
        with self.tx.write() as tx:
            c = tx.conn
            if docs.processed(tx, batch.tenant, [t.message_id for t in batch.turns]):
                return None
            src = batch.source_message_ids
            out = [mem_sql.insert_memory(c, row, batch.actor, src, now) for row in batch.adds]
            for memory_id, changes in batch.updates.items():
                out.append(
                    mem_sql.update_memory(
                        c, batch.tenant, memory_id, changes, batch.actor, src, now
                    )
                )
            for memory_id in batch.deletes:
                out.append(mem_sql.delete_memory(c, batch.tenant, memory_id, batch.actor, src, now))
            docs.mark_processed(tx, batch, now)
        return out

    def facts_processed(self, tenant: str, message_ids: list[str]) -> set[str]:
        """Which of these turns the fact tier has already finished with."""
        with self.tx.auto() as c:
            return docs.processed(c, tenant, message_ids)

    def add_document(self, row: NewDocument) -> Document:
        """Insert a context document and its chunks."""
        with self.tx.write() as c:
            mem_sql.ensure_user(c.conn, row.tenant, row.user_id, row.created_at)
            return docs.insert(c, row)

    def delete_document(self, tenant: str, document_id: str) -> Document:
        """Remove a document and its chunks; NotFoundError when it does not exist."""
        with self.tx.write() as c:
            return docs.delete(c, tenant, document_id)

    def list_documents(
        self, tenant: str, user_id: str, session_id: str | None = None
    ) -> list[Document]:
        """A user's documents, oldest first; with ``session_id``, those attached to that
        session plus those attached to every session."""
        with self.tx.auto() as c:
            return docs.listed(c, tenant, user_id, session_id)

    def document_chunks(self, tenant: str, user_id: str, embedder: str) -> DocumentChunks:
        """Every chunk of a user's documents, with vectors made by ``embedder``."""
        with self.tx.read() as c:
            return docs.chunks(c, tenant, user_id, embedder)

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user (FTS rows go with their rows through triggers)."""
        counts = {}
        with self.db.write() as c:
            for table in (
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
            ):
                cur = c.execute(
                    f"DELETE FROM {table} WHERE tenant=? AND user_id=?", (tenant, user_id)
                )
                counts[table] = cur.rowcount
            c.execute("DELETE FROM users WHERE tenant=? AND user_id=?", (tenant, user_id))
        return counts

    # ---- reads ---------------------------------------------------------------------------
    def get_message(self, tenant: str, message_id: str) -> Message | None:
        """One message by id, or None."""
        r = (
            self.db.get()
            .execute("SELECT * FROM messages WHERE tenant=? AND id=?", (tenant, message_id))
            .fetchone()
        )
        return rows.message(r) if r else None

    def get_memory(self, tenant: str, memory_id: str) -> MemoryItem | None:
        """One memory by id (deleted ones too), or None."""
        r = (
            self.db.get()
            .execute("SELECT * FROM memories WHERE tenant=? AND id=?", (tenant, memory_id))
            .fetchone()
        )
        return rows.memory(r) if r else None

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        where, args = rows.list_where(flt, SQLITE)
        if flt.kind:
            where.append("kind = ?")
            args.append(flt.kind)
        if flt.tag:
            where.append("rowid IN (SELECT memory_rowid FROM memory_tags WHERE tag = ?)")
            args.append(flt.tag)
        if not flt.include_deleted:
            where.append("deleted_at IS NULL")
        sql = (
            f"SELECT * FROM memories WHERE {' AND '.join(where)}"
            " ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?"
        )
        cur = self.db.get().execute(sql, [*args, flt.limit, flt.offset])
        return [rows.memory(r) for r in cur]

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        where, args = rows.list_where(flt, SQLITE)
        sql = (
            f"SELECT * FROM messages WHERE {' AND '.join(where)}"
            " ORDER BY created_at, session_id, seq LIMIT ? OFFSET ?"
        )
        cur = self.db.get().execute(sql, [*args, flt.limit, flt.offset])
        return [rows.message(r) for r in cur]

    def recent_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, newest first (the tail of a conversation)."""
        where, args = rows.list_where(flt, SQLITE)
        sql = (
            f"SELECT * FROM messages WHERE {' AND '.join(where)}"
            " ORDER BY created_at DESC, session_id DESC, seq DESC LIMIT ? OFFSET ?"
        )
        cur = self.db.get().execute(sql, [*args, flt.limit, flt.offset])
        return [rows.message(r) for r in cur]

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first."""
        cur = self.db.get().execute(
            "SELECT * FROM history WHERE tenant=? AND memory_id=? ORDER BY rowid",
            (tenant, memory_id),
        )
        return [rows.history(r) for r in cur]

    def count_items(self, tenant: str, user_id: str, session_id: str) -> int:
        """Messages plus live memories in one session."""
        c = self.db.get()
        n = c.execute(
            "SELECT count(*) FROM messages WHERE tenant=? AND user_id=? AND session_id=?",
            (tenant, user_id, session_id),
        ).fetchone()[0]
        m = c.execute(
            "SELECT count(*) FROM memories WHERE tenant=? AND user_id=? AND session_id=?"
            " AND deleted_at IS NULL",
            (tenant, user_id, session_id),
        ).fetchone()[0]
        return int(n + m)

    def lexical(
        self,
        tenant: str,
        user_id: str,
        match: str,
        limit: int,
        session_id: str | None = None,
        kinds: tuple[str, ...] | None = None,
    ) -> list[tuple[Ref, float]]:
        """BM25 candidates for an FTS5 query over messages and memories, best first."""
        c = self.db.get()
        owners = c.execute("SELECT tenant, user_id FROM users LIMIT 2").fetchall()
        if [tuple(o) for o in owners] == [(tenant, user_id)]:
            query = match  # the only owner: confining to it would cost a full doclist read
        else:
            query = f'owner : "{owner_token(tenant, user_id)}" AND ({match})'
        out: list[tuple[Ref, float]] = []
        if kinds is None or "message" in kinds:
            sql = (
                "SELECT f.rowid, -bm25(messages_fts, 1.0, 0.0) FROM messages_fts f"
                " WHERE messages_fts MATCH ?"
            )
            args: list[Any] = [query]
            if session_id is not None:
                sql += " AND f.rowid IN (SELECT rowid FROM messages WHERE tenant=? AND user_id=?"
                sql += " AND session_id=?)"
                args += [tenant, user_id, session_id]
            sql += " ORDER BY bm25(messages_fts, 1.0, 0.0) LIMIT ?"
            out += [((MESSAGE, r[0]), r[1]) for r in c.execute(sql, [*args, limit])]
        mem_kinds = [k for k in (kinds or ("fact", "episode", "summary", "note")) if k != "message"]
        if mem_kinds:
            sql = (
                "SELECT f.rowid, -bm25(memories_fts, 1.0, 0.0) FROM memories_fts f"
                " JOIN memories m ON m.rowid = f.rowid WHERE memories_fts MATCH ?"
                f" AND m.kind IN ({','.join('?' * len(mem_kinds))})"
            )
            args = [query, *mem_kinds]
            if session_id is not None:
                sql += " AND m.session_id = ?"
                args.append(session_id)
            sql += " ORDER BY bm25(memories_fts, 1.0, 0.0) LIMIT ?"
            out += [((MEMORY, r[0]), r[1]) for r in c.execute(sql, [*args, limit])]
        out.sort(key=lambda x: -x[1])
        return out[:limit]

    def fetch(self, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """Hit fields of the given refs (those still present); see ``sqlite_rows.fetched``."""
        out: dict[Ref, dict[str, Any]] = {}
        c = self.db.get()
        for table, name in ((MESSAGE, "messages"), (MEMORY, "memories")):
            ids = [r for t, r in refs if t == table]
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for r in c.execute(f"SELECT * FROM {name} WHERE rowid IN ({marks})", chunk):
                    out[(table, r["rowid"])] = rows.fetched(table == MESSAGE, r)
        return out

    def stats(self, tenant: str) -> Stats:
        """Counts of users, sessions, messages, memories by kind and jobs by status."""
        with self.db.read() as c:
            one = lambda sql: c.execute(sql, (tenant,)).fetchone()[0]  # noqa: E731
            kinds = dict(
                c.execute(
                    "SELECT kind, count(*) FROM memories WHERE tenant=?"
                    " AND deleted_at IS NULL GROUP BY kind",
                    (tenant,),
                ).fetchall()
            )
            jobs = dict(
                c.execute(
                    "SELECT status, count(*) FROM jobs WHERE tenant=? GROUP BY status", (tenant,)
                ).fetchall()
            )
            fallbacks = one(
                "SELECT coalesce(sum(json_extract(usage, '$.fallbacks')), 0) FROM jobs"
                " WHERE tenant=? AND usage IS NOT NULL"
            )
            errors = [
                f"job {r[0]} {r[1]} ({r[2]}, attempt {r[3]}): {r[4]}"
                for r in c.execute(
                    "SELECT rowid, kind, status, attempts, last_error FROM jobs WHERE tenant=?"
                    " AND status IN ('pending', 'dead') AND last_error IS NOT NULL"
                    " ORDER BY updated_at DESC LIMIT 5",
                    (tenant,),
                )
            ]
            return Stats(
                users=one("SELECT count(*) FROM users WHERE tenant=?"),
                sessions=one(
                    "SELECT count(*) FROM (SELECT DISTINCT user_id, session_id"
                    " FROM messages WHERE tenant=?)"
                ),
                messages=one("SELECT count(*) FROM messages WHERE tenant=?"),
                memories=kinds,
                jobs=jobs,
                embedder=next(iter(self.embedders_in_use()), None),
                path=self.location,
                llm_fallbacks=int(fallbacks),
                job_errors=errors,
            )

    # ---- conversation tiers --------------------------------------------------------------
    def profile_facts(
        self,
        tenant: str,
        user_id: str,
        *,
        include_inactive: bool = False,
        min_importance: float | None = None,
        category: str | None = None,
        key: str | None = None,
    ) -> list[ProfileFact]:
        """A user's profile facts: active ones by importance, then inactive history."""
        with self.tx.auto() as c:
            return profile_sql.select_facts(
                c, tenant, user_id, include_inactive, min_importance, category, key
            )

    def put_profile_fact(
        self, row: NewProfileFact, actor: str, decide: ProfileDecide
    ) -> tuple[ProfileDecision, ProfileFact | None]:
        """Apply ``decide`` to a candidate against the active fact, in one transaction."""
        now = format_time(utcnow())
        with self.tx.write() as c:
            mem_sql.ensure_user(c.conn, row.tenant, row.user_id, now)
            decision, fact = profile_sql.put_fact(c, row, actor, decide, now)
        return decision, fact

    def profile_history(self, tenant: str, user_id: str) -> list[HistoryEntry]:
        """History entries of every profile fact of a user, oldest first."""
        with self.tx.read() as c:
            ids = [
                r[0]
                for r in c.execute(
                    "SELECT id FROM profile_facts WHERE tenant=? AND user_id=?", (tenant, user_id)
                )
            ]
            return [rows.history(r) for r in profile_sql.profile_history(c, tenant, ids)]

    def session_messages(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        after_seq: int = 0,
        ids: list[str] | None = None,
    ) -> list[Message]:
        """Messages of one session with seq > ``after_seq`` (optionally only ``ids``), by seq."""
        with self.tx.auto() as c:
            return profile_sql.session_messages(c, tenant, user_id, session_id, after_seq, ids)

    def evict_oldest(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        max_entries: int,
        kinds: tuple[str, ...],
        actor: str,
    ) -> int:
        """Evict the oldest turns (kept, flagged) and memories (soft-deleted, with history)."""
        now = format_time(utcnow())
        with self.tx.write() as tx:
            c = tx.conn
            msg_ids, mem_ids = profile_sql.evict_oldest(
                tx, tenant, user_id, session_id, max_entries, kinds, now
            )
            for memory_id in mem_ids:
                old = mem_sql.live_memory(c, tenant, memory_id)
                c.execute(
                    "UPDATE memories SET deleted_at=?, updated_at=? WHERE id=?",
                    (now, now, memory_id),
                )
                mem_sql.record(c, old, "DELETE", rows.snapshot(old), None, actor, [], now)
            if msg_ids or mem_ids:
                mem_sql.bump(c, tenant, user_id)
        return len(msg_ids) + len(mem_ids)

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
        its changes, atomically."""
        return self.topics.apply_topics(tenant, user_id, session_id, fn, write, also)

    def list_topics(
        self, tenant: str, user_id: str, session_id: str | None, include_inactive: bool
    ) -> list[TopicRow]:
        """Topics of a user (or one conversation), latest activity first, without messages."""
        return self.topics.list_topics(tenant, user_id, session_id, include_inactive)

    def get_topic(self, tenant: str, topic_id: str) -> TopicRow | None:
        """One topic by id (without messages), or None."""
        return self.topics.get_topic(tenant, topic_id)

    def integrity_check(self) -> str:
        """SQLite's own verdict on the file ('ok' when sound)."""
        return str(self.db.get().execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
        """Close every connection."""
        self.db.close()
