"""Commands over single memories and users: ``mnemo list``, ``get``, ``history``, ``edit``,
``delete`` and ``forget-user``. The read-only ones never create a store (see
:func:`mnemo.cli.common.require_store`)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from mnemo.cli.common import (
    DbOpt,
    EmbedderOpt,
    JsonOpt,
    console,
    guarded,
    open_existing,
)
from mnemo.errors import ValidationError
from mnemo.schemas import MemoryItem, Message

IdArg = Annotated[str, typer.Argument(help="A memory id (mem_...); `get` takes msg_... too.")]


def print_json(value: Any) -> None:
    """Print ``value`` (pydantic models included) as JSON on stdout."""
    console.print_json(json.dumps(value, default=_jsonable))


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return str(value)


def memories_table(items: list[MemoryItem], title: str) -> Table:
    """A table of memories: id, user, kind, date, tags, content."""
    table = Table(title=title)
    for col in ("id", "user", "kind", "created", "tags"):
        table.add_column(col, no_wrap=col == "id")
    table.add_column("content", overflow="fold")
    for m in items:
        table.add_row(
            m.id, m.user_id, m.kind, m.created_at.strftime("%Y-%m-%d"), ",".join(m.tags), m.content
        )
    return table


def record_table(item: MemoryItem | Message) -> Table:
    """A two-column table of every field of a memory or message."""
    table = Table(title=item.id, show_header=False)
    for key, value in item.model_dump(mode="json").items():
        shown = json.dumps(value) if isinstance(value, dict | list) else str(value)
        table.add_row(key, "" if value is None else shown)
    return table


def list_(
    user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user.")] = None,
    session: Annotated[str | None, typer.Option(help="Only this session.")] = None,
    kind: Annotated[str | None, typer.Option(help="fact, note, episode or summary.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only memories with this tag.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="Number of memories.")] = 20,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many.")] = 0,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """List live memories, newest first."""

    def run() -> None:
        with open_existing(db, embedder) as mem:
            items = mem.list(
                user, session_id=session, kind=kind, tag=tag, limit=limit, offset=offset
            )
        if as_json:
            print_json(items)
        else:
            console.print(memories_table(items, f"{len(items)} memories"))

    guarded(run)


def get(
    id: IdArg,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Show one memory (mem_...) or stored turn (msg_...)."""

    def run() -> None:
        with open_existing(db, embedder) as mem:
            item = mem.get(id)
        if as_json:
            print_json(item)
        else:
            console.print(record_table(item))

    guarded(run)


def history(
    id: Annotated[str, typer.Argument(help="A memory id (mem_...), deleted ones included.")],
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Show a memory's changes, oldest first: ADD, UPDATE, DELETE, who made each and the
    values before and after (a deleted memory's history stays readable)."""

    def run() -> None:
        with open_existing(db, embedder) as mem:
            entries = mem.history(id)
        if as_json:
            print_json(entries)
            return
        table = Table(title=f"history of {id}")
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
            table.add_row(e.at.strftime("%Y-%m-%d %H:%M:%S"), e.event, e.actor, change)
        console.print(table)

    guarded(run)


def edit(
    id: IdArg,
    content: Annotated[str | None, typer.Option(help="New text (re-embedded).")] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="New tags, replacing the old (repeatable).")
    ] = None,
    importance: Annotated[float | None, typer.Option(min=0, max=1, help="0..1")] = None,
    confidence: Annotated[float | None, typer.Option(min=0, max=1, help="0..1")] = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Change a memory's content, tags, importance or confidence (its history keeps the old)."""

    def run() -> None:
        if content is None and tag is None and importance is None and confidence is None:
            raise ValidationError(
                "nothing to change: give --content, --tag, --importance or --confidence"
            )
        with open_existing(db, embedder) as mem:
            item = mem.update(
                id,
                content=content,
                tags=tag,
                importance=importance,
                confidence=confidence,
                actor="cli",
            )
        if as_json:
            print_json(item)
        else:
            console.print(f"updated {item.id}")

    guarded(run)


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

    def run() -> None:
        with open_existing(db, embedder) as mem:
            if not yes:
                typer.confirm(
                    f"Erase everything about user {user!r} in tenant {mem.tenant!r} from "
                    f"{mem.store.location}? This cannot be undone",
                    abort=True,
                )
            counts = mem.delete_user(user)
        if as_json:
            print_json({"user_id": user, "deleted": counts})
        else:
            parts = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "nothing"
            console.print(f"erased user {user!r}: {parts}")

    guarded(run)


__all__ = ["delete", "edit", "forget_user", "get", "list_", "memories_table", "print_json"]
