"""What context assembly reads: the narrow :class:`ContextSource` a Memory hands to
:func:`mnemo.context.assemble.build_context`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from mnemo.config.settings import Settings
from mnemo.context.tokens import TokenCounter
from mnemo.schemas import Hit, MemoryItem, Message, ProfileFact
from mnemo.storage.topic_records import TopicRow


class ContextSource(Protocol):
    """One tenant's memory as context assembly reads it."""

    @property
    def settings(self) -> Settings:
        """The settings (preset, ``search_limit``, ``profile_context_min_importance``)."""
        ...

    @property
    def embedding_dim(self) -> int:
        """The size of the embedder's vectors (`llmplatform`'s ``query_embedding_dim``)."""
        ...

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
        """The default search; ``recency_weight`` / ``score_threshold`` override the settings
        for this call, turns whose text is in ``exclude`` are left out, ``now`` is the
        reference time (default: the user's newest turn), ``filters`` keeps only what
        matches (a filter of :mod:`mnemo.filters`, parsed or not)."""
        ...

    def memories(
        self, user_id: str, *, session_id: str | None = None, kind: str | None, limit: int
    ) -> list[MemoryItem]:
        """The newest ``limit`` live memories of a kind (any kind when None)."""
        ...

    def recent_turns(self, user_id: str, session_id: str | None, limit: int) -> list[Message]:
        """The last ``limit`` turns of a session (or of the user), newest first."""
        ...

    def window(self, user_id: str, session_id: str) -> list[Message]:
        """The session's short-term window: its turns after the last episode, oldest first."""
        ...

    def profile(self, user_id: str, *, min_importance: float) -> list[ProfileFact]:
        """The user's active profile facts with importance >= ``min_importance``."""
        ...

    def topic(self, query: str, user_id: str, session_id: str) -> TopicRow | None:
        """The topic ``query`` would join (read-only), else the conversation's active one."""
        ...

    def token_counter(self) -> TokenCounter:
        """Counts the tokens of a text (the embedder's tokenizer when it has one)."""
        ...
