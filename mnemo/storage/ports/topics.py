"""The topics port: a conversation's topics, loaded and written back in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from mnemo.storage.topic_records import Conversation, TopicRow

T = TypeVar("T")


@dataclass(frozen=True)
class TopicLoad:
    """Which conversation to load and how: its ``topics`` hold the working set, plus topic
    ``also`` when named; with ``write`` False it is read only (nothing is written and its
    ``pending`` turns are left empty)."""

    tenant: str
    user_id: str
    session_id: str
    write: bool = True
    also: str | None = None


class TopicStore(Protocol):
    """Load a conversation's topics, let the tier change them, write them back."""

    def apply_topics(self, load: TopicLoad, fn: Callable[[Conversation], T]) -> T:
        """Load the conversation of ``load``, run ``fn`` on it and (when ``load`` says
        ``write``) persist its changes, atomically."""
        ...

    def list_topics(
        self, tenant: str, user_id: str, session_id: str | None, include_inactive: bool
    ) -> list[TopicRow]:
        """Topics of a user (or one conversation), newest activity first, without messages."""
        ...

    def get_topic(self, tenant: str, topic_id: str) -> TopicRow | None:
        """One topic by id (without messages), or None."""
        ...


__all__ = ["TopicLoad", "TopicStore"]
