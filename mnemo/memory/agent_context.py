"""Context assembly in an agent's scope: :class:`AgentContextSource` narrows every read of a
:class:`~mnemo.memory.context_source.MemoryContextSource` to what one agent sees (see
:mod:`mnemo.storage.agent_scope`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemo.config.settings import Settings
from mnemo.context.tokens import TokenCounter
from mnemo.memory.context_source import MemoryContextSource
from mnemo.schemas import Hit, MemoryItem, Message, ProfileFact
from mnemo.storage.agent_scope import read_scope
from mnemo.storage.topic_records import TopicRow


class AgentContextSource:
    """A :class:`~mnemo.context.source.ContextSource` reading ``inner`` as agent
    ``agent_id`` sees ``user_id`` (None: the agent's own memories). The ``user_id`` context
    assembly passes back is ignored: every read uses this scope."""

    def __init__(self, inner: MemoryContextSource, user_id: str | None, agent_id: str) -> None:
        self.inner, self.user_id, self.agent_id = inner, user_id, agent_id
        self.user_key, view = read_scope(user_id, agent_id)
        assert view is not None  # an agent id is given
        self.view = view

    @property
    def settings(self) -> Settings:
        """The Memory's settings."""
        return self.inner.settings

    @property
    def embedding_dim(self) -> int:
        """The embedder's vector size."""
        return self.inner.embedding_dim

    def search(
        self,
        query: str,
        user_id: str,
        session_id: str | None,
        limit: int,
        kinds: Sequence[str] | None,
        *,
        recency_weight: float | None = None,
        score_threshold: float | None = None,
        exclude: Sequence[str] = (),
        now: datetime | float | str | None = None,
        filters: Any = None,
    ) -> list[Hit]:
        """The inner search in this agent's scope."""
        del user_id
        return self.inner.searcher.search(
            query, self.user_id, session_id, limit, kinds, now=now,
            recency_weight=recency_weight, score_threshold=score_threshold, exclude=exclude,
            agent_id=self.agent_id, filters=filters,
        )  # fmt: skip

    def memories(
        self, user_id: str, *, session_id: str | None = None, kind: str | None, limit: int
    ) -> list[MemoryItem]:
        """The newest live memories of a kind this agent sees."""
        del user_id
        return self.inner.records.list(
            self.user_id, session_id=session_id, kind=kind, limit=limit, agent_id=self.agent_id
        )

    def recent_turns(self, user_id: str, session_id: str | None, limit: int) -> list[Message]:
        """The last ``limit`` turns this agent sees, newest first."""
        del user_id
        flt = self.inner.records.message_filter(
            self.user_id, session_id=session_id, limit=limit, agent_id=self.agent_id
        )
        return self.inner.records.store.recent_messages(flt)

    def window(self, user_id: str, session_id: str) -> list[Message]:
        """The session's short-term window, the turns this agent sees."""
        del user_id
        turns = self.inner.window(self.user_key, session_id)
        return [m for m in turns if self.view.sees(m.agent_id)]

    def profile(self, user_id: str, *, min_importance: float) -> list[ProfileFact]:
        """The active profile facts this agent sees."""
        del user_id
        return self.inner.documents.profile(
            self.user_id, min_importance=min_importance, agent_id=self.agent_id
        )

    def topic(self, query: str, user_id: str, session_id: str) -> TopicRow | None:
        """None: topics summarise every turn of a conversation, whoever it is private to, so
        an agent's context leaves them out."""
        del query, user_id, session_id
        return None

    def token_counter(self) -> TokenCounter:
        """The embedder's token counter."""
        return self.inner.token_counter()


__all__ = ["AgentContextSource"]
