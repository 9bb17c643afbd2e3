"""``mnemo count`` and ``mnemo delete-all``: a user's live memories that match a filter
(``--filter``, :mod:`mnemo.cli.filter_option`), counted or soft-deleted."""

from __future__ import annotations

from typing import Annotated

import typer

from mnemo.cli.common import DbOpt, EmbedderOpt, JsonOpt, UserOpt, console, guarded, open_existing
from mnemo.cli.filter_option import FilterOpt, SessionOpt, filter_arg
from mnemo.cli.records import print_json


def count(
    user: UserOpt,
    session: SessionOpt = None,
    filter_: FilterOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Count a user's live memories (of one session) that match `--filter`."""

    def run() -> None:
        filters = filter_arg(filter_)
        with open_existing(db, embedder) as mem:
            n = mem.count(user, session_id=session, filters=filters)
        if as_json:
            print_json({"user_id": user, "count": n})
        else:
            console.print(f"{n} memories", highlight=False)

    guarded(run)


def delete_all(
    user: UserOpt,
    session: SessionOpt = None,
    filter_: FilterOpt = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Delete every live memory of a user (of one session) that matches `--filter`: each is
    soft-deleted as `mnemo delete` does (history keeps it); turns stay."""

    def run() -> None:
        filters = filter_arg(filter_)
        with open_existing(db, embedder) as mem:
            n = mem.count(user, session_id=session, filters=filters)
            if not yes and n:
                typer.confirm(f"Delete {n} memories of user {user!r}?", abort=True)
            deleted = mem.delete_all(user, session_id=session, filters=filters, actor="cli")
        if as_json:
            print_json({"user_id": user, "deleted": deleted})
        else:
            console.print(f"deleted {deleted} memories", highlight=False)

    guarded(run)


__all__ = ["count", "delete_all"]
