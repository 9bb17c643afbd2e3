"""``mnemo context``: the memory block a prompt about a query gets, optionally as of a time;
and the ``--as-of`` / ``--now`` options it shares with ``mnemo search``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from mnemo.cli.common import AgentOpt, DbOpt, EmbedderOpt, need_owner
from mnemo.cli.filter_option import FilterOpt, filter_arg
from mnemo.cli.records import show_result
from mnemo.memory.facade import Memory
from mnemo.schemas import ContextBundle
from mnemo.search_query import SearchQuery

#: The help of each search option: its SearchQuery field's description.
HELP = {name: field.description or "" for name, field in SearchQuery.model_fields.items()}
AsOfOpt = Annotated[str | None, typer.Option("--as-of", help=HELP["as_of"])]
NowOpt = Annotated[str | None, typer.Option("--now", help=HELP["now"])]


def context(
    query: Annotated[str, typer.Argument(help="The message the prompt answers.")],
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="User id (may be left out with --agent).")
    ] = None,
    session: Annotated[str | None, typer.Option(help=HELP["session_id"])] = None,
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
    need_owner(user, agent)

    def build(mem: Memory) -> ContextBundle:
        q = SearchQuery.of(
            query, user_id=user, session_id=session, now=now, as_of=as_of,
            agent_id=agent, filters=filter_arg(filter_),
        )  # fmt: skip
        return mem.context(q, budget_tokens=budget)

    show_result(db, embedder, as_json, build, lambda b: escape(b.render()))


__all__ = ["HELP", "AsOfOpt", "NowOpt", "context"]
