"""Counting and deleting a selection of memories for :class:`mnemo.Memory`: ``count`` and
``delete_all``, by user or agent scope, session and filter (:mod:`mnemo.filters`).

``count`` sees what ``list`` sees (the agent view rules of :mod:`mnemo.storage.agent_scope`):
``user_id`` alone all of the user, ``user_id`` and ``agent_id`` the user's shared items and
those private to the agent, ``agent_id`` alone the agent's own memories. ``delete_all`` with an
``agent_id`` deletes only the rows tagged exactly that agent (the user's items private to it,
or alone the agent's own memories), never the shared ones: they belong to the user."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mnemo import validation as check
from mnemo.filters import Filter, parse_where
from mnemo.memory.records import Records
from mnemo.storage.agent_scope import exactly, write_scope
from mnemo.storage.base import ListFilter
from mnemo.storage.caller_scope import scope_of
from mnemo.storage.scope import ReadScope


class Selection:
    """``count`` and ``delete_all`` over the memories of one tenant, with the listing filter
    of ``records`` (the same WHERE as ``list``)."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.store = records.store

    def count(
        self,
        user_id: str | None = None,
        *,
        agent_id: str | None = None,
        session_id: str | None = None,
        filters: Any = None,
    ) -> int:
        """How many live memories of the user (of one session) match ``filters`` (mem0's
        syntax, :mod:`mnemo.filters`; None: all): the ``total``
        :meth:`~mnemo.memory.records.Records.list_page` shows.
        ``agent_id`` counts what that agent sees (with no ``user_id``: its own memories)."""
        where = parse_where(filters)
        scope = scope_of(self.records.tenant, user_id, agent_id)
        return self.store.rows.count_memories(self._selected(scope, session_id, where))

    def delete_all(
        self,
        user_id: str | None = None,
        *,
        agent_id: str | None = None,
        session_id: str | None = None,
        filters: Any = None,
        actor: str = "api",
    ) -> int:
        """Soft-delete every live memory of the user (of one session) that matches
        ``filters``, as :meth:`~mnemo.memory.records.Records.delete` does each one (it leaves
        search and listing, history records DELETE), in one transaction; returns how many.
        Turns are the event log and stay; erase a user with ``delete_user``. With
        ``agent_id``, only the memories private to that agent (no ``user_id``: the agent's own
        memories); the user's shared memories are never deleted through an agent."""
        where = parse_where(filters)
        user_key, agent = write_scope(user_id, agent_id)
        view = None if agent is None else exactly(agent)
        scope = ReadScope(self.records.tenant, user_key, agents=view)
        flt = self._selected(scope, session_id, where)
        return len(self.store.rows.delete_memories(flt, actor))

    def _selected(
        self, scope: ReadScope, session_id: str | None, where: Filter | None
    ) -> ListFilter:
        """The listing filter of :meth:`count` and :meth:`delete_all`: ``scope`` (one user
        key, an agent's own memories have the reserved empty one, and its agent view) in
        the session, with the filter."""
        session = None if session_id is None else check.identifier(session_id, "session_id")
        scope = replace(scope, session_id=session, where=where)
        return ListFilter(scope=scope, refresh=self.records.settings.refresh_on_read)


__all__ = ["Selection"]
