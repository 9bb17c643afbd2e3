"""Unions of role ports, for callers that use a few roles together (each tier of the write
path); a caller that needs everything takes :class:`~mnemo.storage.ports.store.Store`."""

from __future__ import annotations

from typing import Protocol

from mnemo.storage.ports.conversation import ConversationStore
from mnemo.storage.ports.documents import DocumentStore
from mnemo.storage.ports.rows import MemoryRows
from mnemo.storage.ports.search import SearchSource
from mnemo.storage.ports.topics import TopicStore


class ConversationTierStore(MemoryRows, ConversationStore, Protocol):
    """What the profile, episode, summary and eviction tiers use: memories and the
    conversation-tier reads and writes."""


class TopicTierStore(MemoryRows, TopicStore, Protocol):
    """What the topic tier uses: topics, and the turns they are made of."""


class FactTierStore(MemoryRows, DocumentStore, SearchSource, Protocol):
    """What the fact tier uses: memories and fact batches, context documents, and hit fields of
    the candidates it compares against."""


__all__ = ["ConversationTierStore", "FactTierStore", "TopicTierStore"]
