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
from mnemo.signatures import keyword, with_params

if TYPE_CHECKING:
    from mnemo.memory.facade import Memory

#: ``--user`` of count / delete-all: optional when ``--agent`` is given.
ScopeUserOpt = Annotated[
    str | None,
    typer.Option("--user", "-u", help="User id (may be left out with --agent)."),
]
#: The options of count and delete-all that say which memories: whose, of which session,
#: matching which ``--filter``.
SELECTION = [
    keyword("user_id", ScopeUserOpt, None),
    keyword("session_id", SessionOpt, None),
    keyword("filter_", FilterOpt, None),
    keyword("agent_id", AgentOpt, None),
]


def selected(
    user_id: str | None, session_id: str | None, filter_: str | None, agent_id: str | None
) -> dict[str, Any]:
    """The keywords of ``Memory.count`` and ``delete_all`` that :data:`SELECTION`'s options
    stand for (the filter read from ``--filter``'s JSON)."""
    scope = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
    return {**scope, "filters": filter_arg(filter_)}


@with_params(SELECTION)
def count(
    as_json: JsonOpt = False, db: DbOpt = None, embedder: EmbedderOpt = None, **options: Any
) -> None:
    """Count a user's live memories (of one session) that match `--filter`; with `--agent`,
    what that agent sees of the user (alone: the agent's own memories)."""
    need_owner(options.get("user_id"), options.get("agent_id"))

    def run() -> None:
        chosen = selected(**options)
        with open_existing(db, embedder) as mem:
            n = mem.count(**chosen)
        _show(chosen, as_json, "count", n, f"{n} memories")

    guarded(run)


@with_params(SELECTION)
def delete_all(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    **options: Any,
) -> None:
    """Delete every live memory of a user (of one session) that matches `--filter`: each is
    soft-deleted as `mnemo delete` does (history keeps it); turns stay. With `--agent`, only
    the user's memories private to that agent (never the shared ones); `--agent` alone, the
    agent's own memories."""
    need_owner(options.get("user_id"), options.get("agent_id"))

    def run() -> None:
        chosen = selected(**options)
        with open_existing(db, embedder) as mem:
            if not yes:
                _confirm(mem, chosen)
            deleted = mem.delete_all(**chosen, actor="cli")
        _show(chosen, as_json, "deleted", deleted, f"deleted {deleted} memories")

    guarded(run)


def _show(chosen: dict[str, Any], as_json: bool, key: str, n: int, line: str) -> None:
    """Print what was counted or deleted: ``line``, or with ``--json`` the scope (``user_id``,
    and ``agent_id`` when given) and ``key``: ``n``."""
    if not as_json:
        console.print(line, highlight=False)
        return
    scope: dict[str, Any] = {"user_id": chosen["user_id"]}
    if chosen["agent_id"] is not None:
        scope["agent_id"] = chosen["agent_id"]
    print_json({**scope, key: n})


def _confirm(mem: Memory, chosen: dict[str, Any]) -> None:
    """Ask before deleting, naming how many will go. ``count`` with both a user and an agent
    counts what the agent sees (the user's shared memories too), which delete-all leaves
    alone, so that case asks without a number."""
    user, agent = chosen["user_id"], chosen["agent_id"]
    if user is not None and agent is not None:
        typer.confirm(f"Delete the {_whose(user, agent)} that match?", abort=True)
        return
    n = mem.count(**chosen)
    if n:
        typer.confirm(f"Delete {n} {_whose(user, agent)}?", abort=True)


def _whose(user: str | None, agent: str | None) -> str:
    """What the confirmation names: ``memories of user 'U'`` (``private to agent 'A'``) or
    ``own memories of agent 'A'``."""
    if user is None:
        return f"own memories of agent {agent!r}"
    whose = f"memories of user {user!r}"
    return whose if agent is None else f"{whose} private to agent {agent!r}"


__all__ = ["SELECTION", "count", "delete_all", "selected"]
