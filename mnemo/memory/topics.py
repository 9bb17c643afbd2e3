"""The topic calls of :class:`mnemo.Memory`: `topics`'s API over the topic tier.

A conversation is ``(user_id, session_id)``, the seed's ``conversation_id``. The seed's calls are
synchronous: ``add_user_message`` stores the turn, matches it to a topic in the same call and
returns that topic. Turns written with ``add_messages`` reach topics through the
``turns.topics`` job (``topics_enabled``), which applies the same code.
"""

from __future__ import annotations

import builtins
from typing import Any

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.schemas import Topic, TopicHit, TopicStats
from mnemo.tiers.topics.memory import TopicMemory


class Topics:
    """`topics`'s calls over the topic tier, their input validated."""

    def __init__(self, topic_memory: TopicMemory) -> None:
        self.topic_memory = topic_memory

    def add_user_message(
        self,
        user_id: str,
        text: str,
        session_id: str = "default",
        importance: float | None = None,
        now: Any = None,
    ) -> Topic:
        """Store a user turn, match it to a topic (or open one) and return that topic.

        ``importance`` (0-1) sets the topic's importance; ``now`` the turn's time (default: the
        tier's clock).
        """
        user_id, session_id = self._conversation(user_id, session_id)
        topic = self.topic_memory.add_message("user", user_id, text, session_id, importance, now)
        assert topic is not None  # a user turn always joins a topic
        return topic

    def add_assistant_message(
        self, user_id: str, text: str, session_id: str = "default", now: Any = None
    ) -> Topic | None:
        """Store an assistant turn in the active topic; None when the conversation has none."""
        user_id, session_id = self._conversation(user_id, session_id)
        return self.topic_memory.add_message("assistant", user_id, text, session_id, None, now)

    def topic_context(self, user_id: str, session_id: str = "default") -> list[dict[str, str]]:
        """The active topic as chat messages: ``Topic summary: ...`` (system), then its recent
        messages; [] when the conversation has no topic."""
        return self.topic_memory.context(*self._conversation(user_id, session_id))

    def topic_history(
        self,
        user_id: str,
        session_id: str = "default",
        include_compressed: bool = True,
        topic_id: str | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """A topic's full history (``role``, ``content``, ``timestamp``) in time order; the
        active topic unless ``topic_id`` is given."""
        user_id, session_id = self._conversation(user_id, session_id)
        return self.topic_memory.history(user_id, session_id, bool(include_compressed), topic_id)

    def topic_stats(
        self,
        user_id: str,
        session_id: str = "default",
        topic_id: str | None = None,
        now: Any = None,
    ) -> TopicStats | None:
        """`topics`'s stats of the active topic (or ``topic_id``); None without topics."""
        user_id, session_id = self._conversation(user_id, session_id)
        return self.topic_memory.stats(user_id, session_id, topic_id, now)

    def topics(
        self, user_id: str, session_id: str | None = None, include_inactive: bool = False
    ) -> builtins.list[Topic]:
        """The user's topics (one conversation's when ``session_id``), latest activity first;
        ``include_inactive`` adds the ones decay or merging took out of the working set."""
        user_id = check.identifier(user_id, "user_id")
        if session_id is not None:
            session_id = check.identifier(session_id, "session_id")
        return self.topic_memory.list(user_id, session_id, bool(include_inactive))

    def search_topics(
        self, query: str, user_id: str, session_id: str | None = None, limit: int = 5
    ) -> builtins.list[TopicHit]:
        """Search across all topics of a user (evicted ones too), best first."""
        query = check.query(query)
        user_id = check.identifier(user_id, "user_id")
        if session_id is not None:
            session_id = check.identifier(session_id, "session_id")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise ValidationError("limit must be an integer in [1, 1000]")
        return self.topic_memory.search(query, user_id, session_id, limit)

    def topic_feedback(self, topic_id: str, signal: float) -> Topic:
        """User feedback on a topic: ``signal`` in [-1, 1] raises or lowers its importance."""
        return self.topic_memory.feedback(topic_id, signal)

    @staticmethod
    def _conversation(user_id: str, session_id: str) -> tuple[str, str]:
        return check.identifier(user_id, "user_id"), check.identifier(session_id, "session_id")


__all__ = ["Topics"]
