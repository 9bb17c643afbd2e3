"""What a read may see: one :class:`ReadScope`, built once, compiled once per dialect.

Every read of turns and memories (a listing, a count, a selection to delete, the full-text
candidates of either backend, the store-side vector search, the in-process vector index, the
rows a search returns) is narrowed by one ReadScope: the tenant, the user key, the session,
the kinds, the agent view (:mod:`mnemo.storage.agent_scope`), liveness (deleted memories,
evicted turns, rows expired at ``live_at``) and a parsed filter (:mod:`mnemo.filters`). Its
conditions are written once in SQL (:mod:`mnemo.storage.sql.scoping`, both dialects) and
once in Python (:meth:`ReadScope.admits`, the one in-process predicate; the vector index
builds its masks from the same object, :meth:`mnemo.index.vectors.VectorIndex.mask`).

A new scope dimension is a field here, its condition in ``sql/scoping.py`` and its test in
:meth:`ReadScope.admits` (and, when the vector index must apply it, its mask).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mnemo.filters import EVERYTHING, Filter, matches
from mnemo.schemas import format_time
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.clock import Clock

#: The kind of every turn (a memory's kind is one of ``MEMORY_KINDS``).
TURN = "message"


@dataclass(frozen=True)
class ReadScope:
    """The rows a read may see; every field but the tenant narrows, None narrows nothing.

    * ``user_id``: the user key (an agent's own memories: ``agent_scope.AGENT_USER``); None
      reads the whole tenant (a listing without user or agent);
    * ``session_id``: one session; ``kinds``: ``"message"`` (turns) and memory kinds;
    * ``agents``: the rows this agent view sees (:class:`~mnemo.storage.agent_scope.AgentView`);
    * ``live_at``: rows expired at this stored time are left out (None: no cut; a store
      binds its clock where a read is "now", :meth:`at_clock`);
    * ``deleted`` / ``evicted``: deleted memories / evicted turns are seen too (a listing
      with ``include_deleted``; a turn listing, the event log);
    * ``where``: a parsed filter the rows must match.
    """

    tenant: str
    user_id: str | None = None
    session_id: str | None = None
    kinds: tuple[str, ...] | None = None
    agents: AgentView | None = None
    live_at: str | None = None
    deleted: bool = False
    evicted: bool = False
    where: Filter | None = None

    @property
    def user_key(self) -> str:
        """The user key of a scope of one user (ValueError for a scope of the whole tenant:
        a search, full text or vectors, reads one user's rows)."""
        if self.user_id is None:
            raise ValueError("this read needs a scope of one user")
        return self.user_id

    @property
    def turns(self) -> bool:
        """Whether turns are in the scope's kinds."""
        return self.kinds is None or TURN in self.kinds

    @property
    def memory_kinds(self) -> tuple[str, ...] | None:
        """The memory kinds of the scope (None: every kind)."""
        return None if self.kinds is None else tuple(k for k in self.kinds if k != TURN)

    @property
    def memories(self) -> bool:
        """Whether some memory kind is in the scope's kinds."""
        wanted = self.memory_kinds
        return wanted is None or bool(wanted)

    @property
    def filter(self) -> Filter | None:
        """The filter, None when there is none or it selects everything."""
        return None if self.where is None or self.where == EVERYTHING else self.where

    def of(self, user_id: str | None, session_id: str | None) -> ReadScope:
        """This scope over another user and session (a search's scopes: the session, the
        user's other sessions, a shared global user)."""
        return replace(self, user_id=user_id, session_id=session_id)

    def at_clock(self, clock: Clock) -> ReadScope:
        """This scope at the clock's now, unless it names its own time already."""
        return self if self.live_at is not None else replace(self, live_at=format_time(clock()))

    def unfiltered(self) -> ReadScope:
        """This scope without its filter (where the store applied it already)."""
        return replace(self, where=None)

    def admits(self, row: Mapping[str, Any]) -> bool:
        """Whether a row is in this scope, in Python: ``row`` holds a turn's or a memory's
        fields as a search hit has them (``user_id``, ``session_id``, ``kind``, ``agent_id``,
        the filter's fields; ``deleted_at``, ``evicted_at``, ``expires_at`` when read, as
        stored time text or None). The same conditions as the SQL of
        ``storage.sql.scoping``."""
        if self.user_id is not None and row.get("user_id") != self.user_id:
            return False
        if self.session_id is not None and row.get("session_id") != self.session_id:
            return False
        if self.kinds is not None and row.get("kind") not in self.kinds:
            return False
        if self.agents is not None and not self.agents.sees(row.get("agent_id")):
            return False
        if not self.deleted and row.get("deleted_at") is not None:
            return False
        if not self.evicted and row.get("evicted_at") is not None:
            return False
        expires = row.get("expires_at")
        if self.live_at is not None and expires is not None and expires <= self.live_at:
            return False
        tree = self.filter
        return tree is None or matches(tree, row)


__all__ = ["TURN", "ReadScope"]
