"""Commands over a user's entity index: ``mnemo entities`` (the people, pets, places,
organisations and things a user talks about) and ``mnemo entity NAME`` (what is known about
one of them). Neither creates a store."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Group
from rich.markup import escape
from rich.table import Table

from mnemo.cli.common import DbOpt, EmbedderOpt, JsonOpt
from mnemo.cli.records import show_result
from mnemo.schemas import Entity, EntityDetail

#: The user whose entities a command reads when ``--user`` is not given.
DEFAULT_USER = "default"
EntityUserOpt = Annotated[str, typer.Option("--user", "-u", help="User id.")]


def entities_table(found: list[Entity]) -> Table:
    """A table of entities: name, kind, aliases, mentions, id."""
    table = Table(title=f"{len(found)} entities")
    for col in ("name", "kind", "aliases", "mentions", "id"):
        table.add_column(col, overflow="fold")
    for e in found:
        table.add_row(escape(e.name), e.kind, escape(", ".join(e.aliases)), str(e.mentions), e.id)
    return table


def entity_view(d: EntityDetail) -> Group:
    """One entity: its line, then its facts and its turns."""
    e = d.entity
    aliases = f" (also: {escape(', '.join(e.aliases))})" if e.aliases else ""
    head = f"[bold]{escape(e.name)}[/bold]: {e.kind}{aliases}, {e.mentions} mention(s), {e.id}"
    facts = Table(title=f"{len(d.facts)} facts", show_header=False)
    facts.add_column("fact", overflow="fold")
    for f in d.facts:
        facts.add_row(escape(f.content))
    turns = Table(title=f"{len(d.turns)} turns")
    for col in ("when", "session", "text"):
        turns.add_column(col, overflow="fold")
    for t in d.turns:
        turns.add_row(
            t.created_at.strftime("%Y-%m-%d %H:%M"), escape(t.session_id), escape(t.content)
        )
    return Group(head, facts, turns)


def entities(
    user: EntityUserOpt = DEFAULT_USER,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """List the people, pets, places, organisations and things a user talks about, the most
    mentioned first, with their aliases ("my husband"); the background fact job builds the
    index (see docs/entities.md)."""
    show_result(db, embedder, as_json, lambda mem: mem.entities(user), entities_table)


def entity(
    name: Annotated[str, typer.Argument(help='Its name, an alias ("my husband") or its id.')],
    user: EntityUserOpt = DEFAULT_USER,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Show what is known about one entity of a user ("what do we know about Raj"): the
    entity, the live facts that name it and the turns that mention it."""
    show_result(db, embedder, as_json, lambda mem: mem.entity(user, name), entity_view)


__all__ = ["DEFAULT_USER", "entities", "entities_table", "entity", "entity_view"]
