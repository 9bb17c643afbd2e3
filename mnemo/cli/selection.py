"""``mnemo count`` and ``mnemo delete-all``: a user's (or an agent's) live memories that match
a filter (``--filter``, :mod:`mnemo.cli.filter_option`), counted or soft-deleted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from mnemo.cli.common import (
    AgentOpt,
    DbOpt,
    EmbedderOpt,
    JsonOpt,
    console,
    guarded,
    need_owner,
    open_existing,
)
from mnemo.cli.filter_option import FilterOpt, SessionOpt, filter_arg
from mnemo.cli.records import print_json

if TYPE_CHECKING:
    from mnemo.memory.facade import Memory

#: ``--user`` of count / delete-all: optional when ``--agent`` is given.
ScopeUserOpt = Annotated[
    str | None,
    typer.Option("--user", "-u", help="User id (may be left out with --agent)."),
]


def count(
    user: ScopeUserOpt = None,
    session: SessionOpt = None,
    filter_: FilterOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    agent: AgentOpt = None,
) -> None:
    """Count a user's live memories (of one session) that match `--filter`; with `--agent`,
    what that agent sees of the user (alone: the agent's own memories)."""
    need_owner(user, agent)

    def run() -> None:
        filters = filter_arg(filter_)
        with open_existing(db, embedder) as mem:
            n = mem.count(user, agent_id=agent, session_id=session, filters=filters)
        if as_json:
            print_json({**_scope(user, agent), "count": n})
        else:
            console.print(f"{n} memories", highlight=False)

    guarded(run)


def delete_all(
    user: ScopeUserOpt = None,
    session: SessionOpt = None,
    filter_: FilterOpt = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    agent: AgentOpt = None,
) -> None:
    """Delete every live memory of a user (of one session) that matches `--filter`: each is
    soft-deleted as `mnemo delete` does (history keeps it); turns stay. With `--agent`, only
    the user's memories private to that agent (never the shared ones); `--agent` alone, the
    agent's own memories."""
    need_owner(user, agent)

    def run() -> None:
        filters = filter_arg(filter_)
        with open_existing(db, embedder) as mem:
            if not yes:
                _confirm(mem, user, agent, session, filters)
            deleted = mem.delete_all(
                user, agent_id=agent, session_id=session, filters=filters, actor="cli"
            )
        if as_json:
            print_json({**_scope(user, agent), "deleted": deleted})
        else:
            console.print(f"deleted {deleted} memories", highlight=False)

    guarded(run)


def _confirm(
    mem: Memory,
    user: str | None,
    agent: str | None,
    session: str | None,
    filters: dict[str, Any] | None,
) -> None:
    """Ask before deleting, naming how many will go. ``count`` with both a user and an agent
    counts what the agent sees (the user's shared memories too), which delete-all leaves
    alone, so that case asks without a number."""
    if user is not None and agent is not None:
        typer.confirm(f"Delete the {_whose(user, agent)} that match?", abort=True)
        return
    n = mem.count(user, agent_id=agent, session_id=session, filters=filters)
    if n:
        typer.confirm(f"Delete {n} {_whose(user, agent)}?", abort=True)


def _scope(user: str | None, agent: str | None) -> dict[str, Any]:
    """The scope the ``--json`` output names: ``user_id``, and ``agent_id`` when given."""
    scope: dict[str, Any] = {"user_id": user}
    if agent is not None:
        scope["agent_id"] = agent
    return scope


def _whose(user: str | None, agent: str | None) -> str:
    """What the confirmation names: ``memories of user 'U'`` (``private to agent 'A'``) or
    ``own memories of agent 'A'``."""
    if user is None:
        return f"own memories of agent {agent!r}"
    whose = f"memories of user {user!r}"
    return whose if agent is None else f"{whose} private to agent {agent!r}"


__all__ = ["count", "delete_all"]
