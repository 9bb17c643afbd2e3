"""What a store exchanges with the topic tier: a conversation's topics as mutable records.

The tier's decisions are pure functions over a :class:`Conversation`; a store loads one inside a
write transaction, lets the tier change it, and writes back what changed (``dirty`` topics,
``links``, the cursor, follow-up ``jobs``), all in that one transaction. That is what keeps
concurrent writers to one conversation consistent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class TopicEntry:
    """One message of a topic: the seed's ``MessageEntry`` plus the stored row's id and seq."""

    role: str
    content: str
    timestamp: float
    message_id: str = ""
    seq: int = 0

    def as_dict(self) -> dict[str, object]:
        """The seed's serialised form: role, content, timestamp."""
        return {"role": self.role, "content": self.content, "timestamp": self.timestamp}


@dataclass
class TopicRow:
    """One topic and, when loaded for a conversation, its active messages and (on demand) the
    compacted rows behind ``compressed``, each in time order."""

    id: str
    tenant: str
    user_id: str
    session_id: str
    title: str
    created_at: float
    last_active_at: float
    summary: str | None = None
    summary_actor: str | None = None
    importance: float = 0.5
    access_count: int = 0
    message_count: int = 0
    compressed: str | None = None
    compressed_count: int = 0
    embedding: np.ndarray | None = None
    embedder: str | None = None
    embedding_weight: int = 0
    evicted_at: float | None = None
    merged_into: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    messages: list[TopicEntry] = field(default_factory=list)
    compacted: list[TopicEntry] | None = None  # None until loaded: see Conversation.compacted

    @property
    def in_working_set(self) -> bool:
        """Neither evicted by decay nor merged into another topic."""
        return self.evicted_at is None and self.merged_into is None


@dataclass
class PendingTurn:
    """A stored message not yet applied to the conversation's topics."""

    message_id: str
    seq: int
    role: str
    content: str
    timestamp: float
    embedding: np.ndarray | None
    embedder: str | None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Conversation:
    """A conversation's working-set topics, its cursor and the turns waiting to be applied."""

    tenant: str
    user_id: str
    session_id: str
    active_topic_id: str | None
    applied_seq: int
    topics: dict[str, TopicRow]
    pending: list[PendingTurn] = field(default_factory=list)
    dirty: set[str] = field(default_factory=set)
    links: dict[str, tuple[str, bool, float, int]] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)
    jobs: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    loader: Callable[[str], list[TopicEntry]] | None = None

    def compacted(self, topic: TopicRow) -> list[TopicEntry]:
        """A topic's compacted rows, read through ``loader`` on first use (they are only needed
        to compact, restore or merge, so plain turns never read a long history)."""
        if topic.compacted is None:
            topic.compacted = self.loader(topic.id) if self.loader else []
        return topic.compacted

    def link(self, topic_id: str, entry: TopicEntry, compacted: bool) -> None:
        """Record that ``entry``'s message belongs to ``topic_id`` (compacted or active)."""
        if entry.message_id:
            self.links[entry.message_id] = (topic_id, compacted, entry.timestamp, entry.seq)

    def touch(self, topic: TopicRow) -> None:
        """Mark a topic to be written back."""
        self.topics[topic.id] = topic
        self.dirty.add(topic.id)


__all__ = ["Conversation", "PendingTurn", "TopicEntry", "TopicRow"]
