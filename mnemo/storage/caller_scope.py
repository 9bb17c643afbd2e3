"""A :class:`~mnemo.storage.scope.ReadScope` from a caller's arguments: the rules of
:mod:`mnemo.storage.agent_scope` for ``user_id`` and ``agent_id``, and the session.

Every read of :class:`mnemo.Memory` (search, list, count, delete_all, the listings of the
surfaces) starts here, so a read's scope is written once: the user key and agent view of the
identity arguments, then the session. The narrowing a call adds (kinds, filter, deleted rows,
a time) is set on the returned scope by the caller, after it has validated those arguments
in its own order (so a call with several bad arguments reports the same one as before).
"""

from __future__ import annotations

from typing import Any

from mnemo import validation as check
from mnemo.storage.agent_scope import list_scope, read_scope
from mnemo.storage.scope import ReadScope


def _session(session_id: Any) -> str | None:
    return None if session_id is None else check.identifier(session_id, "session_id")


def scope_of(tenant: str, user_id: Any, agent_id: Any, session_id: Any = None) -> ReadScope:
    """The scope of a read of one user or agent (:func:`~mnemo.storage.agent_scope.
    read_scope`): ValidationError for a bad id or for neither, then for a bad session id."""
    user_key, view = read_scope(user_id, agent_id)
    return ReadScope(tenant, user_key, _session(session_id), agents=view)


def listing_scope(tenant: str, user_id: Any, agent_id: Any, session_id: Any = None) -> ReadScope:
    """As :func:`scope_of`, except that a listing without user and agent lists the whole
    tenant (:func:`~mnemo.storage.agent_scope.list_scope`)."""
    user_key, view = list_scope(user_id, agent_id)
    return ReadScope(tenant, user_key, _session(session_id), agents=view)


__all__ = ["listing_scope", "scope_of"]
