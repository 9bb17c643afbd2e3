"""The write-path tiers' part of the PostgreSQL store: fact batches, context documents,
profile facts, session reads and eviction.

The shared statement modules (``sql.documents``, ``sql.profile``) run here on a
:class:`~mnemo.storage.postgres.tx.PgTx`; memory writes inside a fact
batch use :mod:`mnemo.storage.postgres.memories`, so a batch is one transaction, as in SQLite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemo.schemas import (
    Document,
    HistoryEntry,
    MemoryItem,
    Message,
    ProfileFact,
    format_time,
    utcnow,
)
from mnemo.storage.base import (
    DocumentChunks,
    FactBatch,
    ListFilter,
    NewDocument,
    NewProfileFact,
    ProfileDecide,
    ProfileDecision,
)
from mnemo.storage.postgres import memories as mem_sql
from mnemo.storage.postgres.tx import PgTransactions, PgTx
from mnemo.storage.sql import documents as docs
from mnemo.storage.sql import profile as profile_sql
from mnemo.storage.sql import rows
from mnemo.storage.sql.dialect import POSTGRES

if TYPE_CHECKING:
    from mnemo.storage.postgres.conn import PgConnections

MESSAGE_COLS = (
    "rowid, id, tenant, user_id, session_id, seq, role, name, content, created_at, metadata,"
    " topic_id"
)


class PgTiers:
    """Fact, document, profile and eviction methods of the PostgreSQL store."""

    db: PgConnections
    tx: PgTransactions

    def apply_facts(self, batch: FactBatch) -> list[MemoryItem] | None:
        """Apply a fact batch with history; None (and no change) if its turns were done."""
        now = format_time(utcnow())
        with self.db.write() as c:
            mem_sql.lock_user(c, batch.tenant, batch.user_id, now)
            done = docs.processed(PgTx(c), batch.tenant, [t.message_id for t in batch.turns])
            if done:
                return None
            src, actor = batch.source_message_ids, batch.actor
            out = [mem_sql.insert(c, row, actor, src, now) for row in batch.adds]
            for memory_id, changes in batch.updates.items():
                out.append(mem_sql.update(c, batch.tenant, memory_id, changes, actor, src, now))
            for memory_id in batch.deletes:
                out.append(mem_sql.delete(c, batch.tenant, memory_id, actor, src, now))
            docs.mark_processed(PgTx(c), batch, now)
        return out

    def facts_processed(self, tenant: str, message_ids: list[str]) -> set[str]:
        """Which of these turns the fact tier has already finished with."""
        with self.tx.auto() as c:
            return docs.processed(c, tenant, message_ids)

    def add_document(self, row: NewDocument) -> Document:
        """Insert a context document and its chunks."""
        with self.db.write() as c:
            mem_sql.lock_user(c, row.tenant, row.user_id, row.created_at)
            return docs.insert(PgTx(c), row)

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

    def recent_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, newest first (the tail of a conversation)."""
        where, args = rows.list_where(flt, POSTGRES)
        sql = (
            f"SELECT {MESSAGE_COLS} FROM messages WHERE {' AND '.join(where)}"
            " ORDER BY created_at DESC, session_id DESC, seq DESC LIMIT %s OFFSET %s"
        )
        with self.db.connection() as c:
            found = c.execute(sql, [*args, flt.limit, flt.offset]).fetchall()
        return [rows.message(r) for r in found]

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
        with self.db.write() as c:
            mem_sql.lock_user(c, row.tenant, row.user_id, now)
            return profile_sql.put_fact(PgTx(c), row, actor, decide, now)

    def profile_history(self, tenant: str, user_id: str) -> list[HistoryEntry]:
        """History entries of every profile fact of a user, oldest first."""
        with self.tx.read() as c:
            ids = [
                r[0]
                for r in c.execute(
                    "SELECT id FROM profile_facts WHERE tenant=%s AND user_id=%s", (tenant, user_id)
                )
            ]
            found = profile_sql.profile_history(c, tenant, ids)
            return [rows.history(r) for r in found]

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
        with self.db.write() as c:
            mem_sql.lock_user(c, tenant, user_id, None)
            msg_ids, mem_ids = profile_sql.evict_oldest(
                PgTx(c), tenant, user_id, session_id, max_entries, kinds, now
            )
            for memory_id in mem_ids:
                mem_sql.delete(c, tenant, memory_id, actor, [], now)
            if msg_ids:
                mem_sql.bump(c, tenant, user_id)
        return len(msg_ids) + len(mem_ids)
