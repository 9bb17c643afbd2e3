"""What every role of a SQL store stands on: one :class:`StoreCore` shared by all of them.

A store holds one object per role (``store.rows``, ``store.documents``, ``store.search``,
``store.jobs``, ``store.conversation``, ``store.topics``, ``store.api_keys``,
``store.idempotency``, ``store.maintenance``), each a :class:`SQLRole` over the store's core:
its transactions, its clock, its write observers and its vector-index hook. A role method is
its statement call under one of the transaction decorators of
:mod:`mnemo.storage.sql.transactional`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mnemo.schemas import format_time
from mnemo.storage.clock import SYSTEM_CLOCK, Clock
from mnemo.storage.ports.observer import WriteObserver
from mnemo.storage.sql.tx import Transactions

#: Vector samples of a write, by embedder: what a store may need to index first.
Samples = dict[str | None, np.ndarray | None]
#: What to tell each observer about a write that has committed.
Notice = Callable[[WriteObserver], None]


def no_index(samples: Samples) -> None:
    """The vector-index hook of a backend without a vector index in the database."""


@dataclass
class StoreCore:
    """The state every role of one store shares."""

    tx: Transactions
    #: What "now" is for every row time, job lease and retry the roles write.
    clock: Clock = SYSTEM_CLOCK
    #: Prepares the store for vectors of these embedders before they are written (PostgreSQL:
    #: creates their HNSW indexes); :func:`no_index` where there is nothing to do.
    index_vectors: Callable[[Samples], None] = no_index
    observers: list[WriteObserver] = field(default_factory=list)

    def now(self) -> str:
        """The clock's now as a stored time."""
        return format_time(self.clock())

    def committed(self, tell: Notice) -> None:
        """Tell every observer about a write that has just committed."""
        for observer in self.observers:
            tell(observer)


class SQLRole:
    """One role of a store, over the store's :class:`StoreCore`."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core


__all__ = ["Notice", "SQLRole", "Samples", "StoreCore", "no_index"]
