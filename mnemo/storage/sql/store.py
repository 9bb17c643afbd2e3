"""What both stores share: every port but full text, one role class each, over one
:class:`~mnemo.storage.sql.tx.Transactions`.

:class:`SQLStore` is assembled from the role classes (:class:`SQLMemoryRows`,
:class:`SQLDocumentStore`, :class:`SQLJobQueue`, :class:`SQLConversationStore`,
:class:`SQLTopics`), each port method written once in its role's class; a backend adds its
search class (the shared :class:`~mnemo.storage.sql.search.SQLSearch` plus its own full text)
and passes in its transactions, its job claim, its own drift check for ``mnemo repair`` and a
clock (:mod:`mnemo.storage.clock`; a test passes one it advances). It overrides
:meth:`SQLStore.index_vectors` when it keeps a vector index in the database, and
:meth:`SQLStore.close`. Write observers (:meth:`SQLStore.observe`) hear of every committed
write.
"""

from __future__ import annotations

from mnemo.storage.clock import SYSTEM_CLOCK, Clock
from mnemo.storage.ports.observer import WriteObserver
from mnemo.storage.sql.api_keys import ApiKeyTable
from mnemo.storage.sql.conversation import SQLConversationStore
from mnemo.storage.sql.document_store import SQLDocumentStore
from mnemo.storage.sql.idempotency import IdempotencyTable
from mnemo.storage.sql.job_queue import Claim, SQLJobQueue
from mnemo.storage.sql.maintenance import Drift, SQLMaintenance
from mnemo.storage.sql.memory_rows import SQLMemoryRows
from mnemo.storage.sql.role import Samples
from mnemo.storage.sql.topics import SQLTopics
from mnemo.storage.sql.tx import Transactions


class SQLStore(SQLMemoryRows, SQLDocumentStore, SQLJobQueue, SQLConversationStore, SQLTopics):
    """The :class:`~mnemo.storage.ports.store.Store` roles both backends share."""

    def __init__(
        self,
        location: str,
        tx: Transactions,
        claim: Claim,
        drift: Drift | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.location = location
        self.tx = tx
        self.claim = claim
        self.clock = clock
        self.observers = []
        self.api_keys = ApiKeyTable(tx)
        self.idempotency = IdempotencyTable(tx)
        self.maintenance = SQLMaintenance(tx, drift)
        # turns written before migration 0014, or under other rules (mnemo.text.turn_rules)
        self.maintenance.refresh_turn_rules()

    def observe(self, observer: WriteObserver) -> None:
        """Tell ``observer`` about every write that commits from now on."""
        self.observers.append(observer)

    def close(self) -> None:
        """Close every connection (the backend's own)."""
        raise NotImplementedError


__all__ = ["Claim", "SQLStore", "Samples"]
