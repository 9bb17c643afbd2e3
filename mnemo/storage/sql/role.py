"""What every role class of :class:`~mnemo.storage.sql.store.SQLStore` stands on.

A store is assembled from one class per role (memory rows, documents, jobs, conversation
tiers, topics, and the backend's search), each method written once in its role's class. They
share the store's transactions, its clock, its write observers and its vector-index hook through
:class:`SQLRole`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mnemo.storage.clock import Clock
from mnemo.storage.ports.observer import WriteObserver
from mnemo.storage.sql.tx import Transactions

#: Vector samples of a write, by embedder: what a store may need to index first.
Samples = dict[str | None, np.ndarray | None]


class SQLRole:
    """The state every role of a store shares (set up by the store)."""

    tx: Transactions
    observers: list[WriteObserver]
    #: What "now" is for every row time, job lease and retry the role writes.
    clock: Clock

    def index_vectors(self, samples: Samples) -> None:
        """Prepare the store for vectors of these embedders before they are written (a backend
        without a vector index in the database has nothing to do)."""

    def committed(self, tell: Callable[[WriteObserver], None]) -> None:
        """Tell every observer about a write that has just committed."""
        for observer in self.observers:
            tell(observer)


__all__ = ["SQLRole", "Samples"]
