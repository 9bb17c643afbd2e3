"""Role-sized protocols of the store: each caller depends on the one role it uses.

* :class:`MemoryRows` (``rows``): turns and memories, their history and listing.
* :class:`DocumentStore` (``documents``): context documents and chunks.
* :class:`SearchSource` (``search``): full text, vectors and hit fields for retrieval.
* :class:`JobQueue` (``jobs``): the durable job queue.
* :class:`ConversationStore` (``tiers``): profile facts, session reads, eviction.
* :class:`TopicStore` (``topics``): a conversation's topics.
* :class:`EntityStore` (``entities``): a user's entity index.
* :class:`ApiKeys` (``api_keys``), :class:`IdempotencyKeys` (``idempotency``) and
  :class:`Maintenance` (``maintenance``): held by a store as attributes.
* :class:`Store` (``store``): all of them, for the facade, plus ``observe``: a
  :class:`WriteObserver` (the Markdown mirror) hears of every committed write.
* ``unions``: a few roles together, one union per tier of the write path.
"""

from __future__ import annotations

from mnemo.storage.ports.api_keys import ApiKeys, KeyHolder
from mnemo.storage.ports.conversation import ConversationStore
from mnemo.storage.ports.documents import DocumentStore
from mnemo.storage.ports.entities import EntityStore
from mnemo.storage.ports.idempotency import IdempotencyHolder, IdempotencyKeys, Receipt
from mnemo.storage.ports.jobs import JobQueue
from mnemo.storage.ports.maintenance import Maintenance
from mnemo.storage.ports.observer import WriteObserver
from mnemo.storage.ports.rows import MemoryRows
from mnemo.storage.ports.search import SearchSource
from mnemo.storage.ports.store import Store
from mnemo.storage.ports.topics import TopicStore
from mnemo.storage.ports.unions import ConversationTierStore, FactTierStore, TopicTierStore

__all__ = [
    "ApiKeys",
    "ConversationStore",
    "ConversationTierStore",
    "DocumentStore",
    "EntityStore",
    "FactTierStore",
    "IdempotencyHolder",
    "IdempotencyKeys",
    "JobQueue",
    "KeyHolder",
    "Maintenance",
    "MemoryRows",
    "Receipt",
    "SearchSource",
    "Store",
    "TopicStore",
    "TopicTierStore",
    "WriteObserver",
]
