"""The roles a few callers use together (each tier of the write path), as attributes of a
store; a caller that needs everything takes :class:`~mnemo.storage.ports.store.Store`."""

from __future__ import annotations

from typing import Protocol

from mnemo.storage.ports.conversation import ConversationStore
from mnemo.storage.ports.documents import DocumentStore
from mnemo.storage.ports.entities import HasEntities
from mnemo.storage.ports.jobs import JobQueue
from mnemo.storage.ports.rows import MemoryRows
from mnemo.storage.ports.search import SearchSource
from mnemo.storage.ports.topics import TopicStore


class HasRows(Protocol):
    """A store's memory rows (``store.rows``)."""

    @property
    def rows(self) -> MemoryRows:
        """Turns and memories, their history, listing and erasure."""
        ...


class ConversationTierStore(HasRows, Protocol):
    """What the profile, episode, summary and eviction tiers use: memories and the
    conversation-tier reads and writes."""

    @property
    def conversation(self) -> ConversationStore:
        """Profile facts, session reads and eviction."""
        ...


class TopicTierStore(HasRows, Protocol):
    """What the topic tier uses: topics, and the turns they are made of."""

    @property
    def topics(self) -> TopicStore:
        """A conversation's topics."""
        ...


class FactTierStore(HasRows, Protocol):
    """What the fact tier uses: memories and fact batches, context documents, and hit fields of
    the candidates it compares against."""

    @property
    def documents(self) -> DocumentStore:
        """Context documents and their chunks."""
        ...

    @property
    def search(self) -> SearchSource:
        """Hit fields, stored vectors."""
        ...

    @property
    def jobs(self) -> JobQueue:
        """The job queue (the fact job reads the next fact jobs' turns ahead)."""
        ...


class EntityTierStore(HasRows, HasEntities, Protocol):
    """What the entity index uses: the turns it reads, and the index it writes."""


__all__ = [
    "ConversationTierStore",
    "EntityTierStore",
    "FactTierStore",
    "HasRows",
    "TopicTierStore",
]
