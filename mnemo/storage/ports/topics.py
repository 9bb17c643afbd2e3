"""The topics port: a conversation's topics, loaded and written back in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from mnemo.storage.topic_records import Conversation, TopicRow

T = TypeVar("T")


class TopicStore(Protocol):
    """Load a conversation's topics, let the tier change them, write them back."""

    def apply_topics(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        fn: Callable[[Conversation], T],
        write: bool = True,
        also: str | None = None,
    ) -> T:
        """Load a conversation, run ``fn`` on it and (``write``) persist its changes, atomically.

        ``topics`` holds the working set, plus topic ``also`` when named. With ``write=False``
        nothing is written and ``pending`` is left empty.
        """
        ...

    def list_topics(
        self, tenant: str, user_id: str, session_id: str | None, include_inactive: bool
    ) -> list[TopicRow]:
        """Topics of a user (or one conversation), newest activity first, without messages."""
        ...

    def get_topic(self, tenant: str, topic_id: str) -> TopicRow | None:
        """One topic by id (without messages), or None."""
        ...


__all__ = ["TopicStore"]
