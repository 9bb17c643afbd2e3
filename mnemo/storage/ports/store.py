"""The whole store: one attribute per role-sized port, for the facade that needs them all."""

from __future__ import annotations

from typing import Protocol

from mnemo.storage.clock import Clock
from mnemo.storage.ports.api_keys import KeyHolder
from mnemo.storage.ports.entities import HasEntities
from mnemo.storage.ports.idempotency import IdempotencyHolder
from mnemo.storage.ports.jobs import JobQueue
from mnemo.storage.ports.maintenance import Maintainable
from mnemo.storage.ports.observer import WriteObserver
from mnemo.storage.ports.tables import TableRows
from mnemo.storage.ports.unions import ConversationTierStore, FactTierStore, TopicTierStore


class Store(
    ConversationTierStore,
    TopicTierStore,
    FactTierStore,
    Maintainable,
    KeyHolder,
    IdempotencyHolder,
    HasEntities,
    Protocol,
):
    """Persistence for mnemo: each role is an attribute (``store.rows.add_messages(...)``;
    ``rows``, ``conversation``, ``topics``, ``documents``, ``search``, ``entities``,
    ``maintenance``, ``api_keys`` and ``idempotency`` come from the bases). Every role method is one
    transaction; writes are durable on return."""

    #: the clock every row time is read from (:mod:`mnemo.storage.clock`)
    clock: Clock

    @property
    def location(self) -> str:
        """Where the data lives (a path, or a URL without its password)."""
        ...

    @property
    def jobs(self) -> JobQueue:
        """The durable job queue."""
        ...

    @property
    def table_rows(self) -> TableRows:
        """The store's tables as plain rows (``mnemo migrate``, export, import)."""
        ...

    def observe(self, observer: WriteObserver) -> None:
        """Tell ``observer`` about every write that commits from now on."""
        ...

    def close(self) -> None:
        """Close every connection."""
        ...


__all__ = ["Store"]
