"""``mnemo context``: the memory block a prompt about a query gets, optionally as of a time."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape

from mnemo.cli.common import DbOpt, EmbedderOpt, need_owner
from mnemo.cli.filter_option import FilterOpt, filter_arg
from mnemo.cli.query_options import CONTEXT
from mnemo.cli.records import show_result
from mnemo.memory.facade import Memory
from mnemo.schemas import ContextBundle
from mnemo.search_query import SearchQuery
from mnemo.signatures import with_params


@with_params(CONTEXT.params())
def context(
    budget: Annotated[int, typer.Option(help="Token budget of the block.")] = 1500,
    filter_: FilterOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole bundle as JSON.")
    ] = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    **fields: Any,
) -> None:
    """Print the memory block a prompt about QUERY gets (the preset's layout; with --agent,
    from what that agent sees; `--filter JSON`: only memories and turns that match, profile
    facts only if the filter accepts kind profile)."""
    need_owner(fields.get("user_id"), fields.get("agent_id"))

    def build(mem: Memory) -> ContextBundle:
        q = SearchQuery(**fields, filters=filter_arg(filter_))
        return mem.context(q, budget_tokens=budget)

    show_result(db, embedder, as_json, build, lambda b: escape(b.render()))


__all__ = ["context"]
