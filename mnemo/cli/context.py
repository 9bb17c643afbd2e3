"""``mnemo context``: the memory block a prompt about a query gets, optionally as of a time;
and the ``--as-of`` / ``--now`` options it shares with ``mnemo search``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from mnemo.cli.common import AgentOpt, DbOpt, EmbedderOpt
from mnemo.cli.filter_option import FilterOpt, filter_arg
from mnemo.cli.records import show_result
from mnemo.memory.facade import Memory
from mnemo.schemas import ContextBundle

AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        help="Answer from what was known at this time (ISO-8601 or epoch seconds; not in the"
        " future): later turns and memories left out, changed ones as they were then.",
    ),
]
NowOpt = Annotated[
    str | None,
    typer.Option(
        "--now",
        help="Reference time of recency (ISO-8601 or epoch seconds); default --as-of, else "
        "the user's newest turn.",
    ),
]


def context(
    query: Annotated[str, typer.Argument(help="The message the prompt answers.")],
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="User id (may be left out with --agent).")
    ] = None,
    session: Annotated[str | None, typer.Option(help="Session id.")] = None,
    budget: Annotated[int, typer.Option(help="Token budget of the block.")] = 1500,
    as_of: AsOfOpt = None,
    now: NowOpt = None,
    filter_: FilterOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole bundle as JSON.")
    ] = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    agent: AgentOpt = None,
) -> None:
    """Print the memory block a prompt about QUERY gets (the preset's layout; with --agent,
    from what that agent sees; `--filter JSON`: only memories and turns that match, profile
    facts only if the filter accepts kind profile)."""

    def build(mem: Memory) -> ContextBundle:
        return mem.context(
            query,
            user,
            session,
            budget,
            now=now,
            as_of=as_of,
            agent_id=agent,
            filters=filter_arg(filter_),
        )

    show_result(db, embedder, as_json, build, lambda b: escape(b.render()))


__all__ = ["AsOfOpt", "NowOpt", "context"]
