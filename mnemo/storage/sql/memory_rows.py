"""The memory-rows role of a SQL store (``store.rows``): turns and memories, their history,
listing and erasure.

Each method is one transaction of the shared statement modules
(:mod:`mnemo.storage.sql.transactional`); each write tells the store's observers once it has
committed (:class:`~mnemo.storage.ports.observer.WriteObserver`). The port
(:class:`~mnemo.storage.ports.rows.MemoryRows`) documents every method.
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
    parse_time,
)
from mnemo.storage.base import FactBatch, ListFilter, NewJob, NewMemory, NewMessage
from mnemo.storage.ports.rows import MemoryChange, MemoryRows
from mnemo.storage.sql import directory, keyset, rows
from mnemo.storage.sql import documents as docs
from mnemo.storage.sql import jobs as job_sql
from mnemo.storage.sql import memories as mem_sql
from mnemo.storage.sql import messages as msg_sql
from mnemo.storage.sql import search as search_sql
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sql import sweep as sweep_sql
from mnemo.storage.sql.erasure import Erasure
from mnemo.storage.sql.role import Notice, Samples, SQLRole, StoreCore
from mnemo.storage.sql.transactional import auto, reads, stamped
from mnemo.storage.sql.tx import Tx

R = TypeVar("R", MemoryItem, Message)


def _one(item: MemoryItem, *_: Any, **__: Any) -> Notice:
    """Observers hear of one memory as it now is."""
    return lambda o: o.memories_written([item])


def _vector(embedder: str | None, vector: Any) -> Samples:
    """The sample of one written vector (none without an embedder)."""
    return {embedder: vector} if embedder else {}


class SQLMemoryRows(SQLRole, MemoryRows):
    """:class:`~mnemo.storage.ports.rows.MemoryRows` over the store's core; erasure is
    ``erasure``'s (a backend's may be more thorough)."""

    def __init__(self, core: StoreCore, erasure: Erasure, location: str) -> None:
        super().__init__(core)
        self.erasure = erasure
        self.location = location

    @stamped(
        index=lambda new, *_, **__: {m.embedder: m.embedding for m in new if m.embedder},
        observe=lambda out, *_, **__: lambda o: o.messages_written(out),
    )
    def add_messages(
        self, c: Tx, now: str, new: list[NewMessage], jobs: list[NewJob]
    ) -> list[Message]:
        out = msg_sql.insert(c, new, now)
        job_sql.enqueue(c, jobs, now)
        return out

    @stamped(index=lambda row, *_, **__: _vector(row.embedder, row.embedding), observe=_one)
    def add_memory(self, c: Tx, now: str, row: NewMemory, actor: str) -> MemoryItem:
        return mem_sql.insert(c, row, actor, row.source_message_ids, now)

    @stamped(
        index=lambda change: _vector(
            change.changes.get("embedder"), change.changes.get("embedding")
        ),
        observe=_one,
    )
    def update_memory(self, c: Tx, now: str, change: MemoryChange) -> MemoryItem:
        return mem_sql.update(c, change, now)

    @stamped(observe=_one)
    def delete_memory(self, c: Tx, now: str, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        return mem_sql.delete(c, tenant, memory_id, actor, [], now)

    @stamped(observe=lambda out, *_, **__: (lambda o: o.memories_written(out)) if out else None)
    def delete_memories(self, c: Tx, now: str, flt: ListFilter, actor: str) -> list[MemoryItem]:
        return mem_sql.delete_selected(c, flt, actor, now)

    @stamped(
        observe=lambda out, *_, **__: None if out is None else lambda o: o.memories_written(out)
    )
    def apply_facts(self, c: Tx, now: str, batch: FactBatch) -> list[MemoryItem] | None:
        mem_sql.own_user(c, batch.tenant, batch.user_id, now)
        if docs.processed(c, batch.tenant, [t.message_id for t in batch.turns]):
            return None
        src, actor, tenant = batch.source_message_ids, batch.actor, batch.tenant
        out = [mem_sql.insert(c, row, actor, src, now) for row in batch.adds]
        for memory_id, changes in batch.updates.items():
            change = MemoryChange(tenant, memory_id, changes, actor, src)
            out.append(mem_sql.update(c, change, now))
        for memory_id in batch.deletes:
            out.append(mem_sql.delete(c, tenant, memory_id, actor, src, now))
        docs.mark_processed(c, batch, now)
        return out

    @auto
    def facts_processed(self, c: Tx, tenant: str, message_ids: list[str]) -> set[str]:
        return docs.processed(c, tenant, message_ids)

    @auto
    def get_message(self, c: Tx, tenant: str, message_id: str) -> Message | None:
        return msg_sql.find(c, tenant, message_id)

    @auto
    def get_memory(self, c: Tx, tenant: str, memory_id: str) -> MemoryItem | None:
        return mem_sql.find(c, tenant, memory_id)

    @auto
    def memory_rowid(self, c: Tx, tenant: str, memory_id: str) -> int | None:
        return keyset.memory_rowid(c, tenant, memory_id)

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        with self.core.tx.auto() as c:
            found = mem_sql.listed(c, self.now(flt))
        return self.refreshed(flt.scope.tenant, found) if flt.refresh else found

    @auto
    def count_memories(self, c: Tx, flt: ListFilter) -> int:
        return mem_sql.counted(c, self.now(flt))

    @auto
    def count_messages(self, c: Tx, flt: ListFilter) -> int:
        return msg_sql.counted(c, self.now(flt))

    def list_messages(self, flt: ListFilter) -> list[Message]:
        with self.core.tx.auto() as c:
            found = msg_sql.listed(c, self.now(flt), msg_sql.FORWARD)
        return self.refreshed(flt.scope.tenant, found) if flt.refresh else found

    @auto
    def recent_messages(self, c: Tx, flt: ListFilter) -> list[Message]:
        return msg_sql.listed(c, self.now(flt), msg_sql.BACKWARD)

    def now(self, flt: ListFilter) -> ListFilter:
        """``flt`` with its scope bound to the store's now, unless it names its own time."""
        return replace(flt, scope=flt.scope.at_clock(self.core.clock))

    def refresh_expiry(self, tenant: str, ids: list[str]) -> dict[str, datetime]:
        if not ids:
            return {}
        with self.core.tx.write() as c:
            moved = sweep_sql.refresh(c, tenant, ids, self.core.clock())
        return {id: parse_time(at) for id, at in moved.items()}

    def refreshed(self, tenant: str, items: list[R]) -> list[R]:
        """``items`` with the expiry of those carrying a ttl refreshed (see
        :meth:`refresh_expiry`)."""
        moved = self.refresh_expiry(tenant, [i.id for i in items if i.ttl_seconds is not None])
        return [
            i.model_copy(update={"expires_at": moved[i.id]}) if i.id in moved else i for i in items
        ]

    def sweep(self, tenant: str | None) -> dict[str, int]:
        swept = self.erasure.expired(tenant, self.core.now())
        if swept.messages or swept.memories:
            self.core.committed(lambda o: o.expired(swept.messages, swept.memories))
        return swept.counts

    @auto
    def history(self, c: Tx, tenant: str, memory_id: str) -> list[HistoryEntry]:
        q = c.dialect.mark
        sql = f"SELECT * FROM history WHERE tenant={q} AND memory_id={q} ORDER BY rowid"
        return [rows.history(r) for r in c.execute(sql, (tenant, memory_id))]

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        counts = self.erasure.user(tenant, user_id)
        self.core.committed(lambda o: o.user_erased(tenant, user_id))
        return counts

    def delete_agent(self, tenant: str, agent_id: str) -> tuple[dict[str, int], list[str]]:
        return self.erasure.agent(tenant, agent_id)

    @reads
    def list_users(
        self, c: Tx, tenant: str, limit: int = 100, offset: int = 0, *, after: str | None = None
    ) -> list[UserSummary]:
        return directory.users(c, tenant, limit, offset, after)

    @reads
    def list_sessions(self, c: Tx, tenant: str, user_id: str) -> list[SessionSummary]:
        return directory.sessions(c, tenant, user_id)

    @reads
    def stats(self, c: Tx, tenant: str) -> Stats:
        embedder = next(iter(search_sql.embedders(c)), None)
        return stats_sql.stats(c, tenant, embedder, self.location, self.core.now())


__all__ = ["SQLMemoryRows"]
