"""The memory-rows role of a SQL store: turns and memories, their history, listing and erasure.

Every method is one transaction of the shared statement modules; each write tells the store's
observers once it has committed (:class:`~mnemo.storage.ports.observer.WriteObserver`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from mnemo.schemas import (
    HistoryEntry,
    MemoryItem,
    Message,
    SessionSummary,
    Stats,
    UserSummary,
    format_time,
    parse_time,
)
from mnemo.storage.base import FactBatch, ListFilter, NewJob, NewMemory, NewMessage
from mnemo.storage.sql import agent_erasure, directory, keyset, rows
from mnemo.storage.sql import documents as docs
from mnemo.storage.sql import jobs as job_sql
from mnemo.storage.sql import memories as mem_sql
from mnemo.storage.sql import messages as msg_sql
from mnemo.storage.sql import search as search_sql
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sql import sweep as sweep_sql
from mnemo.storage.sql.role import SQLRole

R = TypeVar("R", MemoryItem, Message)


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

    def memory_rowid(self, tenant: str, memory_id: str) -> int | None:
        """The rowid of a memory (deleted ones too), or None."""
        with self.tx.auto() as c:
            return keyset.memory_rowid(c, tenant, memory_id)

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        with self.tx.auto() as c:
            found = mem_sql.listed(c, self.now(flt))
        return self.refreshed(flt.scope.tenant, found) if flt.refresh else found

    def count_memories(self, flt: ListFilter) -> int:
        """How many memories match ``flt`` (its limit and offset aside)."""
        with self.tx.auto() as c:
            return mem_sql.counted(c, self.now(flt))

    def count_messages(self, flt: ListFilter) -> int:
        """How many messages match ``flt`` (its limit and offset aside)."""
        with self.tx.auto() as c:
            return msg_sql.counted(c, self.now(flt))

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        with self.tx.auto() as c:
            found = msg_sql.listed(c, self.now(flt), msg_sql.FORWARD)
        return self.refreshed(flt.scope.tenant, found) if flt.refresh else found

    def recent_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, newest first (the tail of a conversation)."""
        with self.tx.auto() as c:
            return msg_sql.listed(c, self.now(flt), msg_sql.BACKWARD)

    def now(self, flt: ListFilter) -> ListFilter:
        """``flt`` with its scope bound to the store's now, unless it names its own time."""
        return replace(flt, scope=flt.scope.at_clock(self.clock))

    def refresh_expiry(self, tenant: str, ids: list[str]) -> dict[str, datetime]:
        """Move the expiry of the live turns and memories among ``ids`` that carry a ttl to
        now + ttl (``refresh_on_read``); their new ``expires_at`` by id."""
        if not ids:
            return {}
        with self.tx.write() as c:
            moved = sweep_sql.refresh(c, tenant, ids, self.clock())
        return {id: parse_time(at) for id, at in moved.items()}

    def refreshed(self, tenant: str, items: list[R]) -> list[R]:
        """``items`` with the expiry of those carrying a ttl refreshed (see
        :meth:`refresh_expiry`)."""
        moved = self.refresh_expiry(tenant, [i.id for i in items if i.ttl_seconds is not None])
        return [
            i.model_copy(update={"expires_at": moved[i.id]}) if i.id in moved else i for i in items
        ]

    def sweep(self, tenant: str | None) -> dict[str, int]:
        """Remove the turns and memories of ``tenant`` (None: every tenant) expired by the
        store clock for good; counts per table."""
        swept = self.erase_expired(tenant, format_time(self.clock()))
        if swept.messages or swept.memories:
            self.committed(lambda o: o.expired(swept.messages, swept.memories))
        return swept.counts

    def next_expiry(self, tenant: str | None) -> datetime | None:
        """When the first turn or memory of ``tenant`` (None: any) expires, or None."""
        with self.tx.auto() as c:
            first = sweep_sql.first_expiry(c, tenant)
        return None if first is None else parse_time(first)

    def erase_expired(self, tenant: str | None, now: str) -> sweep_sql.Swept:
        """The sweep itself, in one transaction (a backend may erase more thoroughly)."""
        with self.tx.write() as c:
            return sweep_sql.sweep(c, tenant, now)

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

    def delete_agent(self, tenant: str, agent_id: str) -> tuple[dict[str, int], list[str]]:
        """Erase every row tagged with an agent (see :mod:`mnemo.storage.sql.agent_erasure`);
        counts per table and the user keys that held them."""
        return self.erase_agent(tenant, agent_id)

    def erase_agent(self, tenant: str, agent_id: str) -> tuple[dict[str, int], list[str]]:
        """The agent's erasure itself, in one transaction (a backend may erase more
        thoroughly)."""
        with self.tx.write() as c:
            return agent_erasure.delete_agent(c, tenant, agent_id)

    def erase_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """The erasure itself, in one transaction (a backend may erase more thoroughly)."""
        with self.tx.write() as c:
            return stats_sql.delete_user(c, tenant, user_id)

    def list_users(
        self, tenant: str, limit: int = 100, offset: int = 0, *, after: str | None = None
    ) -> list[UserSummary]:
        """The users of ``tenant`` by id (after the id ``after``), with their counts and last
        activity."""
        with self.tx.read() as c:
            return directory.users(c, tenant, limit, offset, after)

    def list_sessions(self, tenant: str, user_id: str) -> list[SessionSummary]:
        """A user's sessions, the most recently active first."""
        with self.tx.read() as c:
            return directory.sessions(c, tenant, user_id)

    def stats(self, tenant: str) -> Stats:
        """Counts of users, sessions, messages, memories by kind and jobs by status."""
        with self.tx.read() as c:
            embedder = next(iter(search_sql.embedders(c)), None)
            return stats_sql.stats(c, tenant, embedder, self.location, format_time(self.clock()))


__all__ = ["SQLMemoryRows"]
