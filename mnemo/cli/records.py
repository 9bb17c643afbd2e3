"""Commands over single memories, users and agents: ``mnemo list``, ``get``, ``history``,
``edit``, ``delete``, ``forget-user``, ``forget-agent`` and ``sweep``. The read-only ones
never create a store (see :func:`mnemo.cli.common.require_store`)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.table import Table
from rich.text import Text

from mnemo.cli.common import (
    AGENT_HELP,
    AgentOpt,
    DbOpt,
    EmbedderOpt,
    JsonOpt,
    console,
    err,
    guarded,
    open_existing,
)
from mnemo.cli.field_options import edit_options
from mnemo.cli.filter_option import FilterOpt, filter_arg
from mnemo.cli.options import ModelOptions
from mnemo.cli.tables import title_text
from mnemo.list_query import MemoryQuery
from mnemo.memory.paging import Page
from mnemo.schemas import HistoryEntry, MemoryItem, Message
from mnemo.signatures import with_params

if TYPE_CHECKING:
    from mnemo.memory.facade import Memory

T = TypeVar("T")

#: Memories a page of `mnemo list` shows unless told otherwise.
DEFAULT_LIMIT = 20
IdArg = Annotated[str, typer.Argument(help="A memory id (mem_...); `get` takes msg_... too.")]


def print_json(value: Any) -> None:
    """Print ``value`` (pydantic models included) as JSON on stdout."""
    console.print_json(json.dumps(value, default=_jsonable))


def show_result(
    db: str | None,
    embedder: str | None,
    as_json: bool,
    call: Callable[[Memory], T],
    text: Callable[[T], Any],
) -> None:
    """Run ``call`` on the existing store of ``--db`` and print what it returns: as JSON with
    ``--json``, else as ``text(result)`` (a line or a table); errors as one ``error:`` line."""

    def run() -> None:
        with open_existing(db, embedder) as mem:
            result = call(mem)
        if as_json:
            print_json(result)
        else:
            console.print(text(result))

    guarded(run)


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return str(value)


def memories_table(items: list[MemoryItem], title: str, *, users: bool = True) -> Table:
    """A table of memories that reads in 80 columns: the date, kind and (with ``users``) user
    stay narrow, and the content takes the rest of the width, with the memory's full id (what
    ``mnemo get/edit/delete`` take), the agent it is private to and its tags on a dim line
    under it. The title and every stored value are Text, never read as markup."""
    table = Table(title=title_text(title))
    table.add_column("created", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    if users:
        table.add_column("user", overflow="fold", max_width=16)
    table.add_column("memory", overflow="fold", ratio=1)
    for m in items:
        under = Text(m.id, style="dim")
        if m.agent_id is not None:
            under.append(f" · agent {m.agent_id}", style="dim")
        if m.tags:
            under.append(" · " + ", ".join(f"#{t}" for t in m.tags), style="dim")
        cell = Text(m.content)
        cell.append("\n")
        cell.append_text(under)
        user = [Text(m.user_id)] if users else []
        table.add_row(m.created_at.strftime("%Y-%m-%d"), m.kind, *user, cell)
    return table


def page_footer(page: Page[MemoryItem], again: str) -> str:
    """``"20 of 85 memories"``, then (unless this is the last page) the command of the next
    page on a line of its own: ``"next page: <again> --cursor <token>"`` (a cursor, unlike an
    offset, stays right while memories are written between the two commands)."""
    line = f"{page.shown()} memories"
    if page.next_cursor is not None:
        line += f"\nnext page: {again} --cursor {page.next_cursor}"
    return line


def page_json(page: Page[MemoryItem]) -> dict[str, Any]:
    """A page as ``--json`` prints it, in the REST API's page shape: ``data``, ``total``,
    ``limit``, ``offset``, ``next_offset``, ``next_cursor``."""
    return {
        "data": page.items,
        "total": page.total,
        "limit": page.limit,
        "offset": page.offset,
        "next_offset": page.next_offset,
        "next_cursor": page.next_cursor,
    }


def record_table(item: MemoryItem | Message) -> Table:
    """A two-column table of every field of a memory or message."""
    table = Table(title=title_text(item.id), show_header=False)
    for key, value in item.model_dump(mode="json").items():
        shown = json.dumps(value) if isinstance(value, dict | list) else str(value)
        table.add_row(key, Text("" if value is None else shown))  # as stored, not markup
    return table


#: ``mnemo list``'s options: MemoryQuery's fields but the times, deleted memories and the
#: filter (``--filter`` JSON text), with the command line's flag names and page size.
LIST = ModelOptions(
    MemoryQuery,
    hidden={"since", "until", "include_deleted", "filters"},
    flags={"user_id": ("--user", "-u"), "agent_id": ("--agent",), "session_id": ("--session",)},
    helps={"user_id": "Only this user.", "agent_id": AGENT_HELP},
    defaults={"limit": DEFAULT_LIMIT},
)
#: The options a page's own: the next page's command gives its cursor instead.
PAGE_OPTIONS = ("limit", "offset", "cursor")


@with_params(LIST.params())
def list_(
    filter_: FilterOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    **fields: Any,
) -> None:
    """List live memories, newest first, a page at a time: it says how many there are
    ("20 of 85") and how to get the next page (`--cursor TOKEN`, which stays right while
    memories are written; `--offset N` works too); `--json` prints `data`, `total`,
    `next_offset` and `next_cursor`. `--agent` lists what that agent sees (alone: its own
    memories); `--filter JSON` keeps those that match a filter."""

    given = [(LIST.flag(k), v) for k, v in fields.items() if k not in PAGE_OPTIONS]
    given += [("--filter", filter_), ("--db", db)]

    def run() -> None:
        q = MemoryQuery(**fields, filters=filter_arg(filter_))
        with open_existing(db, embedder) as mem:
            page = mem.list_page(q)
        if as_json:
            print_json(page_json(page))
            return
        again = " ".join(
            ["mnemo list"]
            + [f"{flag} {shlex.quote(value)}" for flag, value in given if value is not None]
            + ([f"--limit {q.limit}"] if q.limit != DEFAULT_LIMIT else [])
        )
        user, agent = q.user_id, q.agent_id
        console.print(memories_table(page.items, title(user, agent), users=user is None))
        console.print(page_footer(page, again), soft_wrap=True, highlight=False)

    guarded(run)


def title(user: str | None, agent: str | None = None) -> str:
    """The list's title: whose memories it shows (as which agent sees them)."""
    whose = "memories" if user is None else f"memories of {user}"
    if agent is not None:
        whose = f"{whose} seen by agent {agent}" if user else f"own memories of agent {agent}"
    return whose


def get(
    id: IdArg,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="Only if it is this user's.")
    ] = None,
    agent: AgentOpt = None,
) -> None:
    """Show one memory (mem_...) or stored turn (msg_...); with --user/--agent, only if it
    is in that scope."""
    show_result(
        db, embedder, as_json, lambda mem: mem.get(id, user_id=user, agent_id=agent), record_table
    )


def history(
    id: Annotated[str, typer.Argument(help="A memory id (mem_...), deleted ones included.")],
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Show a memory's changes, oldest first: ADD, UPDATE, DELETE, who made each and the
    values before and after (a deleted memory's history stays readable)."""
    show_result(db, embedder, as_json, lambda mem: mem.history(id), lambda e: history_table(id, e))


def history_table(id: str, entries: list[HistoryEntry]) -> Table:
    """A memory's history as a table: when, what, who, and the content before -> after."""
    table = Table(title=title_text(f"history of {id}"))
    for col in ("at", "event", "actor"):
        table.add_column(col, no_wrap=True)
    table.add_column("content before -> after", overflow="fold")
    for e in entries:
        before = (e.old or {}).get("content")
        after = (e.new or {}).get("content")
        if after is None or before == after:
            change = after or before or ""
        else:
            change = after if before is None else f"{before} -> {after}"
        table.add_row(e.at.strftime("%Y-%m-%d %H:%M:%S"), e.event, e.actor, Text(change))
    return table


@edit_options(after="id")
def edit(
    id: IdArg,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    **fields: Any,
) -> None:
    """Change a memory's content, tags, importance or confidence (its history keeps the old)."""

    def change(mem: Memory) -> MemoryItem:
        return mem.update(id, actor="cli", **fields)

    show_result(db, embedder, as_json, change, lambda item: f"updated {item.id}")


def delete(id: IdArg, db: DbOpt = None, embedder: EmbedderOpt = None) -> None:
    """Delete a memory: it leaves search and listings (soft: `mnemo get` says deleted, and its
    history keeps it)."""

    def run() -> None:
        with open_existing(db, embedder) as mem:
            item = mem.delete(id, actor="cli")
        console.print(f"deleted {item.id}")

    guarded(run)


def forget_user(
    user: Annotated[str, typer.Argument(help="The user to erase.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Erase every row of a user (turns, memories, profile, history, jobs) for good."""
    erase("user", user, yes, as_json, db, embedder, lambda mem: mem.delete_user(user))


def forget_agent(
    agent: Annotated[str, typer.Argument(help="The agent to erase.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Erase every row tagged with an agent (its own memories and what is private to it in
    every user: turns, memories, profile facts, history) for good; shared items stay."""
    erase("agent", agent, yes, as_json, db, embedder, lambda mem: mem.delete_agent(agent))


def erase(
    what: str,
    name: str,
    yes: bool,
    as_json: bool,
    db: str | None,
    embedder: str | None,
    delete: Callable[[Memory], dict[str, int]],
) -> None:
    """Erase the ``what`` (user or agent) ``name`` with ``delete`` after a confirmation
    (unless ``yes``), then print what went, per table."""

    def run() -> None:
        with open_existing(db, embedder) as mem:
            if not yes:
                typer.confirm(
                    f"Erase everything {'about' if what == 'user' else 'of'} {what} {name!r} in "
                    f"tenant {mem.tenant!r} from {mem.store.location}? This cannot be undone",
                    abort=True,
                )
            counts = delete(mem)
        if as_json:
            print_json({f"{what}_id": name, "deleted": counts})
        else:
            parts = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "nothing"
            console.print(f"erased {what} {name!r}: {parts}", markup=False)

    guarded(run)


def sweep(as_json: JsonOpt = False, db: DbOpt = None, embedder: EmbedderOpt = None) -> None:
    """Remove expired turns and memories for good (full-text rows, vectors, files and the
    memories' history go too); a worker also does it every `sweep_interval_s`."""

    def run() -> None:
        with open_existing(db, embedder) as mem:
            err.print(f"sweeping expired rows of tenant {mem.tenant!r}...", markup=False)
            counts = mem.sweep()
        if as_json:
            print_json({"swept": counts})
        else:
            parts = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "nothing expired"
            console.print(f"swept: {parts}")

    guarded(run)


__all__ = [
    "delete",
    "edit",
    "forget_agent",
    "forget_user",
    "get",
    "list_",
    "memories_table",
    "print_json",
    "sweep",
]
