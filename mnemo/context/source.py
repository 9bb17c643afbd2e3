"""What context assembly reads: the narrow :class:`ContextSource` a Memory hands to
:func:`mnemo.context.assemble.build_context`."""

from __future__ import annotations

from typing import Protocol

from mnemo.config.settings import Settings
from mnemo.context.tokens import TokenCounter
from mnemo.schemas import Hit, MemoryItem, Message, ProfileFact
from mnemo.search_query import SearchQuery
from mnemo.storage.topic_records import TopicRow


class ContextSource(Protocol):
    """One tenant's memory as context assembly reads it for one query: every read is in the
    scope of :attr:`query` (its user or agent, and its ``as_of``)."""

    @property
    def query(self) -> SearchQuery:
        """The context call's search: its text, scope, time, filter and per-call options
        (recency weight, threshold, texts left out). Each search a layout runs is a copy of
        it with its own text, limit and kinds."""
        ...

    @property
    def settings(self) -> Settings:
        """The settings (preset, ``search_limit``, ``profile_context_min_importance``)."""
        ...

    @property
    def embedding_dim(self) -> int:
        """The size of the embedder's vectors (`llmplatform`'s ``query_embedding_dim``)."""
        ...

    def search(self, q: SearchQuery) -> list[Hit]:
        """The search of ``q`` (a copy of :attr:`query`)."""
        ...

    def memories(
        self, *, session_id: str | None = None, kind: str | None, limit: int
    ) -> list[MemoryItem]:
        """The newest ``limit`` live memories of a kind (any kind when None)."""
        ...

    def recent_turns(self, session_id: str | None, limit: int) -> list[Message]:
        """The last ``limit`` turns of a session (or of the whole scope), newest first."""
        ...

    def window(self, session_id: str) -> list[Message]:
        """The session's short-term window: its turns after the last episode, oldest first."""
        ...

    def profile(self, *, min_importance: float) -> list[ProfileFact]:
        """The active profile facts with importance >= ``min_importance``."""
        ...

    def topic(self, query: str, session_id: str) -> TopicRow | None:
        """The topic ``query`` would join (read-only), else the conversation's active one."""
        ...

    def token_counter(self) -> TokenCounter:
        """Counts the tokens of a text (the embedder's tokenizer when it has one)."""
        ...


__all__ = ["ContextSource"]
