"""Context "as of" a time T in one agent's scope: what :meth:`mnemo.Memory.context` reads when
given both ``as_of`` and ``agent_id``.

:class:`PastAgentContextSource` is :class:`~mnemo.memory.asof.PastContextSource` (the memory
as it stood at T) with every read narrowed as
:class:`~mnemo.memory.agent_context.AgentContextSource` narrows it (to what the agent sees:
with a user, the user's shared items and those private to the agent; without, the agent's own
memories). Neither kind of context has a topic section, so neither has this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemo.memory.agent_context import AgentContextSource
from mnemo.memory.asof import PAGE, PastContextSource
from mnemo.memory.context_source import MemoryContextSource
from mnemo.schemas import Hit, MemoryItem, Message, ProfileFact


class PastAgentContextSource(PastContextSource):
    """``source`` as it stood at ``at``, as agent ``agent_id`` sees ``user_id`` (None: the
    agent's own memories). The ``user_id`` context assembly passes back is ignored."""

    def __init__(
        self, source: MemoryContextSource, at: datetime, user_id: str | None, agent_id: str
    ) -> None:
        super().__init__(source, at)
        self.scope = AgentContextSource(source, user_id, agent_id)

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
        """The search as of ``at`` in the agent's scope (``now`` defaults to ``at``)."""
        del user_id
        return self.source.searcher.search(
            query, self.scope.user_id, session_id, limit, kinds,
            now=self.at if now is None else now,
            recency_weight=recency_weight, score_threshold=score_threshold, exclude=exclude,
            as_of=self.at, agent_id=self.scope.agent_id, filters=filters,
        )  # fmt: skip

    def memories(
        self, user_id: str, *, session_id: str | None = None, kind: str | None, limit: int
    ) -> list[MemoryItem]:
        """The newest ``limit`` memories of a kind the agent sees that existed at ``at``, in
        their version then (as :meth:`PastContextSource.memories`)."""
        del user_id
        records = self.source.records
        versions = {
            v.fields["id"]: v.fields
            for v in records.store.memory_versions(
                records.tenant, self.scope.user_key, self.at_text
            )
        }
        out: list[MemoryItem] = []
        offset = 0
        while len(out) < limit:
            page = records.list(
                self.scope.user_id,
                session_id=session_id,
                kind=kind,
                until=self.until,
                include_deleted=True,
                limit=PAGE,
                offset=offset,
                agent_id=self.scope.agent_id,
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
        """The last ``limit`` turns the agent sees created at or before ``at``, newest
        first."""
        del user_id
        records = self.source.records
        flt = records.message_filter(
            self.scope.user_id,
            session_id=session_id,
            until=self.until,
            limit=limit,
            agent_id=self.scope.agent_id,
        )
        return records.store.recent_messages(flt)

    def window(self, user_id: str, session_id: str) -> list[Message]:
        """The session's short-term window, the turns the agent sees created at or before
        ``at``."""
        del user_id
        turns = self.scope.window(self.scope.user_key, session_id)
        return [t for t in turns if t.created_at <= self.at]

    def profile(self, user_id: str, *, min_importance: float) -> list[ProfileFact]:
        """The profile facts the agent sees current at ``at`` with importance >=
        ``min_importance``."""
        del user_id
        records = self.source.records
        return records.store.profile_facts(
            records.tenant,
            self.scope.user_key,
            min_importance=min_importance,
            as_of=self.at_text,
            agents=self.scope.view,
        )


__all__ = ["PastAgentContextSource"]
