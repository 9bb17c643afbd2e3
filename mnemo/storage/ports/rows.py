"""The memory-rows port: turns and memories written, read, listed and erased."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from mnemo.schemas import (
    HistoryEntry,
    MemoryItem,
    Message,
    SessionSummary,
    Stats,
    UserSummary,
)
from mnemo.storage.base import FactBatch, ListFilter, NewJob, NewMemory, NewMessage


@dataclass(frozen=True)
class MemoryChange:
    """A change of one live memory: ``changes`` (content, tags, metadata, importance,
    confidence, embedding...), recorded in its history as UPDATE by ``actor`` with the turns
    ``source_message_ids``."""

    tenant: str
    memory_id: str
    changes: dict[str, Any]
    actor: str
    source_message_ids: list[str] = field(default_factory=list)


class MemoryRows(Protocol):
    """Messages and memories with their history; every method is one transaction."""

    def add_messages(self, rows: list[NewMessage], jobs: list[NewJob]) -> list[Message]:
        """Insert turns (assigning per-session ``seq``) and their jobs atomically."""
        ...

    def add_memory(self, row: NewMemory, actor: str) -> MemoryItem:
        """Insert a memory and its ADD history entry."""
        ...

    def update_memory(self, change: MemoryChange) -> MemoryItem:
        """Apply ``change`` to its memory (NotFoundError for none that is live)."""
        ...

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a memory (it leaves search) and record DELETE in history."""
        ...

    def delete_memories(self, flt: ListFilter, actor: str) -> list[MemoryItem]:
        """Soft-delete every live memory ``flt`` selects (limit and offset aside), each with
        its DELETE history entry, in one transaction; returns them deleted."""
        ...

    def apply_facts(self, batch: FactBatch) -> list[MemoryItem] | None:
        """Apply a fact batch with history; None (and no change) if its turns were done."""
        ...

    def facts_processed(self, tenant: str, message_ids: list[str]) -> set[str]:
        """Which of these turns the fact tier has already finished with."""
        ...

    def get_message(self, tenant: str, message_id: str) -> Message | None:
        """One message by id, or None."""
        ...

    def get_memory(self, tenant: str, memory_id: str) -> MemoryItem | None:
        """One memory by id (deleted ones too), or None."""
        ...

    def memory_rowid(self, tenant: str, memory_id: str) -> int | None:
        """The store's sequence number of a memory (deleted ones too), which breaks ties of
        ``created_at`` in the memory listing (a page cursor keeps it); None for none."""
        ...

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        ...

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        ...

    def count_memories(self, flt: ListFilter) -> int:
        """How many memories match ``flt`` (its limit and offset aside)."""
        ...

    def count_messages(self, flt: ListFilter) -> int:
        """How many messages match ``flt`` (its limit and offset aside)."""
        ...

    def recent_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, newest first (the tail of a conversation)."""
        ...

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first."""
        ...

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user; returns counts per table."""
        ...

    def sweep(self, tenant: str | None) -> dict[str, int]:
        """Erase the turns and memories of ``tenant`` (None: every tenant) expired by the
        store clock, with what hangs off them; counts per table."""
        ...

    def refresh_expiry(self, tenant: str, ids: list[str]) -> dict[str, datetime]:
        """Move the expiry of the live rows among ``ids`` that carry a ttl to now + ttl;
        their new ``expires_at`` by id."""
        ...

    def delete_agent(self, tenant: str, agent_id: str) -> tuple[dict[str, int], list[str]]:
        """Erase every row tagged with an agent; returns counts per table and the user keys
        that held them."""
        ...

    def list_users(
        self, tenant: str, limit: int = 100, offset: int = 0, *, after: str | None = None
    ) -> list[UserSummary]:
        """The users of ``tenant`` by id (only those after the id ``after``: a page cursor's
        position), with their counts and last activity."""
        ...

    def list_sessions(self, tenant: str, user_id: str) -> list[SessionSummary]:
        """A user's sessions, the most recently active first."""
        ...

    def stats(self, tenant: str) -> Stats:
        """Counts of users, sessions, messages, memories by kind and jobs by status."""
        ...


__all__ = ["MemoryChange", "MemoryRows"]
