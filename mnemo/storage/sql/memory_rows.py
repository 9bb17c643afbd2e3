"""The memory-rows role of a SQL store: turns and memories, their history, listing and erasure.

Every method is one transaction of the shared statement modules; each write tells the store's
observers once it has committed (:class:`~mnemo.storage.ports.observer.WriteObserver`).
"""

from __future__ import annotations

from typing import Any

from mnemo.schemas import (
    HistoryEntry,
    MemoryItem,
    Message,
    SessionSummary,
    Stats,
    UserSummary,
    format_time,
)
from mnemo.storage.base import FactBatch, ListFilter, NewJob, NewMemory, NewMessage
from mnemo.storage.sql import directory, rows
from mnemo.storage.sql import documents as docs
from mnemo.storage.sql import jobs as job_sql
from mnemo.storage.sql import memories as mem_sql
from mnemo.storage.sql import messages as msg_sql
from mnemo.storage.sql import search as search_sql
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sql.role import SQLRole


class SQLMemoryRows(SQLRole):
    """:class:`~mnemo.storage.ports.rows.MemoryRows` over the store's transactions."""

    location: str

    def add_messages(self, new: list[NewMessage], jobs: list[NewJob]) -> list[Message]:
        """Insert turns (assigning per-session ``seq``) and their jobs atomically."""
        now = format_time(self.clock())
        self.index_vectors({m.embedder: m.embedding for m in new if m.embedder})
        with self.tx.write() as c:
            out = msg_sql.insert(c, new, now)
            job_sql.enqueue(c, jobs, now)
        self.committed(lambda o: o.messages_written(out))
        return out

    def add_memory(self, row: NewMemory, actor: str) -> MemoryItem:
        """Insert a memory and its ADD history entry."""
        now = format_time(self.clock())
        if row.embedder:
            self.index_vectors({row.embedder: row.embedding})
        with self.tx.write() as c:
            item = mem_sql.insert(c, row, actor, row.source_message_ids, now)
        self.committed(lambda o: o.memories_written([item]))
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
        now = format_time(self.clock())
        if changes.get("embedder"):
            self.index_vectors({changes["embedder"]: changes.get("embedding")})
        with self.tx.write() as c:
            item = mem_sql.update(
                c, tenant, memory_id, changes, actor, source_message_ids or [], now
            )
        self.committed(lambda o: o.memories_written([item]))
        return item

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a live memory and record DELETE in history."""
        now = format_time(self.clock())
        with self.tx.write() as c:
            item = mem_sql.delete(c, tenant, memory_id, actor, [], now)
        self.committed(lambda o: o.memories_written([item]))
        return item

    def delete_memories(self, flt: ListFilter, actor: str) -> list[MemoryItem]:
        """Soft-delete every live memory ``flt`` selects (its limit and offset aside), each
        with its DELETE history entry, in one transaction; returns them deleted."""
        now = format_time(self.clock())
        with self.tx.write() as c:
            out = mem_sql.delete_selected(c, flt, actor, now)
        if out:
            self.committed(lambda o: o.memories_written(out))
        return out

    def apply_facts(self, batch: FactBatch) -> list[MemoryItem] | None:
        """Apply a fact batch with history; None (and no change) if its turns were done."""
        now = format_time(self.clock())
        with self.tx.write() as c:
            mem_sql.own_user(c, batch.tenant, batch.user_id, now)
            if docs.processed(c, batch.tenant, [t.message_id for t in batch.turns]):
                return None
            src, actor, tenant = batch.source_message_ids, batch.actor, batch.tenant
            out = [mem_sql.insert(c, row, actor, src, now) for row in batch.adds]
            for memory_id, changes in batch.updates.items():
                out.append(mem_sql.update(c, tenant, memory_id, changes, actor, src, now))
            for memory_id in batch.deletes:
                out.append(mem_sql.delete(c, tenant, memory_id, actor, src, now))
            docs.mark_processed(c, batch, now)
        self.committed(lambda o: o.memories_written(out))
        return out

    def facts_processed(self, tenant: str, message_ids: list[str]) -> set[str]:
        """Which of these turns the fact tier has already finished with."""
        with self.tx.auto() as c:
            return docs.processed(c, tenant, message_ids)

    def get_message(self, tenant: str, message_id: str) -> Message | None:
        """One message by id, or None."""
        with self.tx.auto() as c:
            return msg_sql.find(c, tenant, message_id)

    def get_memory(self, tenant: str, memory_id: str) -> MemoryItem | None:
        """One memory by id (deleted ones too), or None."""
        with self.tx.auto() as c:
            return mem_sql.find(c, tenant, memory_id)

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        with self.tx.auto() as c:
            return mem_sql.listed(c, flt)

    def count_memories(self, flt: ListFilter) -> int:
        """How many memories match ``flt`` (its limit and offset aside)."""
        with self.tx.auto() as c:
            return mem_sql.counted(c, flt)

    def count_messages(self, flt: ListFilter) -> int:
        """How many messages match ``flt`` (its limit and offset aside)."""
        with self.tx.auto() as c:
            return msg_sql.counted(c, flt)

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        with self.tx.auto() as c:
            return msg_sql.listed(c, flt, msg_sql.FORWARD)

    def recent_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, newest first (the tail of a conversation)."""
        with self.tx.auto() as c:
            return msg_sql.listed(c, flt, msg_sql.BACKWARD)

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first."""
        with self.tx.auto() as c:
            q = c.dialect.mark
            sql = f"SELECT * FROM history WHERE tenant={q} AND memory_id={q} ORDER BY rowid"
            return [rows.history(r) for r in c.execute(sql, (tenant, memory_id))]

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user (derived rows and indexes go with them)."""
        counts = self.erase_user(tenant, user_id)
        self.committed(lambda o: o.user_erased(tenant, user_id))
        return counts

    def erase_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """The erasure itself, in one transaction (a backend may erase more thoroughly)."""
        with self.tx.write() as c:
            return stats_sql.delete_user(c, tenant, user_id)

    def list_users(self, tenant: str, limit: int = 100, offset: int = 0) -> list[UserSummary]:
        """The users of ``tenant`` by id, with their counts and last activity."""
        with self.tx.read() as c:
            return directory.users(c, tenant, limit, offset)

    def list_sessions(self, tenant: str, user_id: str) -> list[SessionSummary]:
        """A user's sessions, the most recently active first."""
        with self.tx.read() as c:
            return directory.sessions(c, tenant, user_id)

    def stats(self, tenant: str) -> Stats:
        """Counts of users, sessions, messages, memories by kind and jobs by status."""
        with self.tx.read() as c:
            embedder = next(iter(search_sql.embedders(c)), None)
            return stats_sql.stats(c, tenant, embedder, self.location)


__all__ = ["SQLMemoryRows"]
