"""Context "as of" a time T: what :meth:`mnemo.Memory.context` reads when given ``as_of``.

:class:`PastContextSource` is the Memory's context source seen at T: its search runs as of T
(:mod:`mnemo.retrieval.asof`), its recent turns and window are those created at or before T,
its memories those that existed at T in their version then (from history), and its profile
the facts current at T (:func:`mnemo.storage.sql.asof.current_fact`). The topic tier keeps no
history of its topics, so a context as of T has no topic section.

Given an :class:`~mnemo.memory.agent_context.AgentContextSource` (``context(as_of=,
agent_id=)``), every read is narrowed as that source narrows it: to what the agent sees of its
user (or to its own memories), the user id context assembly passes back ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from mnemo.config.settings import Settings
from mnemo.context.tokens import TokenCounter
from mnemo.memory.agent_context import AgentContextSource
from mnemo.memory.context_source import MemoryContextSource
from mnemo.schemas import Hit, MemoryItem, Message, ProfileFact, format_time
from mnemo.storage.topic_records import TopicRow

#: Memories read per page while picking those that existed at T.
PAGE = 200


class PastContextSource:
    """``source`` as it stood at ``at``, as ``agent`` sees it when given (see the module
    docstring)."""

    def __init__(
        self, source: MemoryContextSource, at: datetime, agent: AgentContextSource | None = None
    ) -> None:
        self.source = source
        self.agent = agent
        self.at = at
        self.at_text = format_time(at)
        #: the exclusive upper bound of a listing that keeps rows created at or before ``at``
        self.until = format_time(at + timedelta(microseconds=1))

    def _scope(self, user_id: str) -> tuple[str | None, str, str | None]:
        """(user id to read with, its stored user key, agent id) of a read: the agent's
        scope when there is one, else ``user_id`` with no agent."""
        if self.agent is None:
            return user_id, user_id, None
        return self.agent.user_id, self.agent.user_key, self.agent.agent_id

    @property
    def settings(self) -> Settings:
        """The Memory's settings."""
        return self.source.settings

    @property
    def embedding_dim(self) -> int:
        """The embedder's vector size."""
        return self.source.embedding_dim

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
        """The search as of ``at`` (``now`` defaults to ``at``)."""
        user, _, agent_id = self._scope(user_id)
        return self.source.searcher.search(
            query,
            user,
            session_id,
            limit,
            kinds,
            now=self.at if now is None else now,
            recency_weight=recency_weight,
            score_threshold=score_threshold,
            exclude=exclude,
            as_of=self.at,
            agent_id=agent_id,
            filters=filters,
        )

    def memories(
        self, user_id: str, *, session_id: str | None = None, kind: str | None, limit: int
    ) -> list[MemoryItem]:
        """The newest ``limit`` memories of a kind that existed at ``at``, in their version
        then (read a page at a time, deleted ones included, until ``limit`` are found)."""
        records = self.source.records
        user, key, agent_id = self._scope(user_id)
        versions = {
            v.fields["id"]: v.fields
            for v in records.store.memory_versions(records.tenant, key, self.at_text)
        }
        out: list[MemoryItem] = []
        offset = 0
        while len(out) < limit:
            page = records.list(
                user,
                session_id=session_id,
                kind=kind,
                until=self.until,
                include_deleted=True,
                limit=PAGE,
                offset=offset,
                agent_id=agent_id,
            )
            for m in page:
                then = versions.get(m.id)
                if then is not None:
                    keep = {k: then[k] for k in ("content", "tags", "metadata")}
                    out.append(m.model_copy(update={**keep, "deleted_at": None}))
                elif m.deleted_at is None:
                    out.append(m)  # unchanged since: a memory deleted by then is gone
            if len(page) < PAGE:
                break
            offset += PAGE
        return out[:limit]

    def recent_turns(self, user_id: str, session_id: str | None, limit: int) -> list[Message]:
        """The last ``limit`` turns created at or before ``at``, newest first."""
        records = self.source.records
        user, _, agent_id = self._scope(user_id)
        flt = records.message_filter(
            user, session_id=session_id, until=self.until, limit=limit, agent_id=agent_id
        )
        return records.store.recent_messages(flt)

    def window(self, user_id: str, session_id: str) -> list[Message]:
        """The session's short-term window, cut to the turns created at or before ``at``."""
        inner = self.source if self.agent is None else self.agent
        return [t for t in inner.window(user_id, session_id) if t.created_at <= self.at]

    def profile(self, user_id: str, *, min_importance: float) -> list[ProfileFact]:
        """The profile facts current at ``at`` with importance >= ``min_importance``."""
        records = self.source.records
        _, key, _ = self._scope(user_id)
        return records.store.profile_facts(
            records.tenant,
            key,
            min_importance=min_importance,
            as_of=self.at_text,
            agents=None if self.agent is None else self.agent.view,
        )

    def topic(self, query: str, user_id: str, session_id: str) -> TopicRow | None:
        """None: topics keep no history to read them as of a time."""
        return None

    def token_counter(self) -> TokenCounter:
        """The embedder's token counter."""
        return self.source.token_counter()


__all__ = ["PastContextSource"]
