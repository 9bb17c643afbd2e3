"""What both stores share: every role but full text, one object each, over one
:class:`~mnemo.storage.sql.role.StoreCore`.

:class:`SQLStore` holds the roles as attributes (``rows``, ``documents``, ``search``, ``jobs``,
``conversation``, ``topics``, ``entities``, ``api_keys``, ``idempotency``, ``maintenance``),
each port method written once in its role's class. A backend builds the core (its transactions,
a clock (:mod:`mnemo.storage.clock`; a test passes one it advances) and, when it keeps a vector
index in the database, its vector-index hook) and passes in its search role (the shared
:class:`~mnemo.storage.sql.search.SQLSearch` plus its own full text), its job claim, its
erasure, its own drift check for ``mnemo repair`` and its ``table_rows``; it implements
:meth:`SQLStore.close`. Write observers (:meth:`SQLStore.observe`) hear of every committed
write."""

from __future__ import annotations

from mnemo.storage.ports.observer import WriteObserver
from mnemo.storage.ports.tables import TableRows
from mnemo.storage.sql.api_keys import ApiKeyTable
from mnemo.storage.sql.conversation import SQLConversationStore
from mnemo.storage.sql.document_store import SQLDocumentStore
from mnemo.storage.sql.entities import SQLEntities
from mnemo.storage.sql.erasure import Erasure
from mnemo.storage.sql.idempotency import IdempotencyTable
from mnemo.storage.sql.job_queue import Claim, SQLJobQueue
from mnemo.storage.sql.maintenance import Drift, SQLMaintenance
from mnemo.storage.sql.memory_rows import SQLMemoryRows
from mnemo.storage.sql.role import Samples, StoreCore
from mnemo.storage.sql.search import SQLSearch
from mnemo.storage.sql.topics import SQLTopics


class SQLStore:
    """The :class:`~mnemo.storage.ports.store.Store` both backends share."""

    table_rows: TableRows

    def __init__(
        self,
        location: str,
        core: StoreCore,
        search: SQLSearch,
        claim: Claim,
        erasure: Erasure,
        drift: Drift | None = None,
    ) -> None:
        self.location = location
        self.core = core
        self.tx = core.tx
        self.clock = core.clock
        self.rows = SQLMemoryRows(core, erasure, location)
        self.documents = SQLDocumentStore(core)
        self.search = search
        self.jobs = SQLJobQueue(core, claim)
        self.conversation = SQLConversationStore(core)
        self.topics = SQLTopics(core)
        self.entities = SQLEntities(core)
        self.api_keys = ApiKeyTable(core)
        self.idempotency = IdempotencyTable(core)
        self.maintenance = SQLMaintenance(core, drift)
        # turns written before migration 0014, or under other rules (mnemo.text.turn_rules)
        self.maintenance.refresh_turn_rules()

    def observe(self, observer: WriteObserver) -> None:
        """Tell ``observer`` about every write that commits from now on."""
        self.core.observers.append(observer)

    def close(self) -> None:
        """Close every connection (the backend's own)."""
        raise NotImplementedError


__all__ = ["Claim", "SQLStore", "Samples"]
