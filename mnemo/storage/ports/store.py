"""The whole store: every role-sized port at once, for the facade that needs them all."""

from __future__ import annotations

from typing import Protocol

from mnemo.storage.clock import Clock
from mnemo.storage.ports.api_keys import ApiKeys
from mnemo.storage.ports.conversation import ConversationStore
from mnemo.storage.ports.documents import DocumentStore
from mnemo.storage.ports.idempotency import IdempotencyKeys
from mnemo.storage.ports.jobs import JobQueue
from mnemo.storage.ports.maintenance import Maintenance
from mnemo.storage.ports.observer import WriteObserver
from mnemo.storage.ports.rows import MemoryRows
from mnemo.storage.ports.search import SearchSource
from mnemo.storage.ports.tables import TableRows
from mnemo.storage.ports.topics import TopicStore


class Store(
    MemoryRows, DocumentStore, SearchSource, JobQueue, ConversationStore, TopicStore, Protocol
):
    """Persistence for mnemo. Every method is one transaction; writes are durable on return."""

    #: the clock every row time is read from (:mod:`mnemo.storage.clock`)
    clock: Clock

    @property
    def location(self) -> str:
        """Where the data lives (a path, or a URL without its password)."""
        ...

    @property
    def api_keys(self) -> ApiKeys:
        """The store's API key table."""
        ...

    @property
    def idempotency(self) -> IdempotencyKeys:
        """The store's idempotency-key table."""
        ...

    @property
    def table_rows(self) -> TableRows:
        """The store's tables as plain rows (``mnemo migrate``, export, import)."""
        ...

    @property
    def maintenance(self) -> Maintenance:
        """Batches and fixes for ``mnemo reembed`` and ``mnemo repair``."""
        ...

    def observe(self, observer: WriteObserver) -> None:
        """Tell ``observer`` about every write that commits from now on."""
        ...

    def close(self) -> None:
        """Close every connection."""
        ...


__all__ = ["Store"]
