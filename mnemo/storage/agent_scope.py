"""Agent scope: which rows a read sees by the agent they belong to (``agent_id``), and the
rules of :class:`mnemo.Memory`'s ``user_id``/``agent_id`` arguments.

A row's ``agent_id`` is NULL when it is shared by every agent serving its user, or the id of
the one agent it is private to. An agent's own memories (no user) are stored under the
reserved user key :data:`AGENT_USER` (``""``: callers can never pass an empty user id). A
read narrows its rows by an :class:`AgentView`; no view (None) sees every row of the user.

Writes: ``agent_id=None`` stores a SHARED item (every agent serving the user sees it, as every
item stored before agent scopes); ``user_id=U, agent_id=A`` an item private to agent A within
user U; ``agent_id=A`` with no user the agent's OWN memory, under :data:`AGENT_USER`.
Reads: ``user_id=U`` sees all of U (shared and private to any agent): the application's view;
``user_id=U, agent_id=A`` sees U's shared items and U's items private to A; ``agent_id=A``
alone sees A's own memories. Neither: ValidationError.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mnemo import validation as check
from mnemo.errors import NotFoundError, ValidationError

#: The user key an agent's own memories (written with an agent and no user) are stored under.
AGENT_USER = ""


@dataclass(frozen=True)
class AgentView:
    """The rows a read sees by their agent: those private to ``agent_id`` (when given) and,
    with ``shared``, the shared ones (agent_id NULL).

    * ``AgentView("A")``: what agent A sees of a user (shared + private to A);
    * ``AgentView("A", shared=False)``: exactly A's rows (its own memories, its erasure);
    * ``AgentView(None)``: the shared rows only.
    """

    agent_id: str | None
    shared: bool = True

    def sees(self, agent_id: str | None) -> bool:
        """Whether a row of ``agent_id`` is in this view."""
        if agent_id is None:
            return self.shared
        return agent_id == self.agent_id


def view_of(agent_id: str | None) -> AgentView | None:
    """The view of a read by ``agent_id`` (None: no narrowing, every row)."""
    return None if agent_id is None else AgentView(agent_id)


def exactly(agent_id: str | None) -> AgentView:
    """The rows tagged exactly ``agent_id`` (None: the shared rows), e.g. the items a derived
    item of that agent may be reconciled with."""
    return AgentView(agent_id, shared=agent_id is None)


class MixedAgents(ValueError):
    """Source turns private to different agents: no agent may see an item derived from all
    of them, so none is written."""


def derived_agent(sources: Iterable[str | None]) -> str | None:
    """The agent of an item derived from turns of these agents: the one agent any of them is
    private to (shared turns add nothing), None when all are shared; MixedAgents when they are
    private to different agents. A private turn never yields a shared item."""
    private = {a for a in sources if a is not None}
    if len(private) > 1:
        raise MixedAgents(f"source turns are private to different agents: {sorted(private)}")
    return next(iter(private), None)


#: The message of a call that names neither a user nor an agent: the library's, REST's and the
#: MCP tools' (not a type error about None: leaving both out is the mistake).
NO_SCOPE = "a user_id or agent_id is required (whose memory this is); neither was given"


def agent(agent_id: Any) -> str | None:
    """A validated agent id (the rules of user ids), or None."""
    return None if agent_id is None else check.identifier(agent_id, "agent_id")


def write_scope(user_id: Any, agent_id: Any) -> tuple[str, str | None]:
    """``(user key, agent id)`` a write stores its rows under; ValidationError for a bad id or
    for neither."""
    agent_id = agent(agent_id)
    if user_id is None:
        if agent_id is None:
            raise ValidationError(NO_SCOPE)
        return AGENT_USER, agent_id
    return check.identifier(user_id, "user_id"), agent_id


def read_scope(user_id: Any, agent_id: Any) -> tuple[str, AgentView | None]:
    """``(user key, agent view)`` a read of one user or agent looks in; ValidationError for a
    bad id or for neither."""
    user_key, agent_id = write_scope(user_id, agent_id)
    if user_key == AGENT_USER:
        return user_key, AgentView(agent_id, shared=False)
    return user_key, view_of(agent_id)


def list_scope(user_id: Any, agent_id: Any) -> tuple[str | None, AgentView | None]:
    """As :func:`read_scope`, except that a listing without user and agent lists the whole
    tenant (as it always has)."""
    if user_id is None and agent_id is None:
        return None, None
    return read_scope(user_id, agent_id)


def check_visible(found: Any, user_id: Any, agent_id: Any, what: str) -> None:
    """NotFoundError when ``found`` (a memory or turn) is outside the scope of ``user_id`` and
    ``agent_id`` (nothing given: no scope, any row of the tenant)."""
    if user_id is None and agent_id is None:
        return
    user_key, view = read_scope(user_id, agent_id)
    if found.user_id != user_key or (view is not None and not view.sees(found.agent_id)):
        raise NotFoundError(f"no {what} with id {found.id!r} in this scope")


__all__ = [
    "AGENT_USER",
    "NO_SCOPE",
    "AgentView",
    "MixedAgents",
    "agent",
    "check_visible",
    "derived_agent",
    "exactly",
    "list_scope",
    "read_scope",
    "view_of",
    "write_scope",
]
