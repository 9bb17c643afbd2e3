"""The memory fields of ``mnemo add`` and ``mnemo edit``, as options derived from the field
table (:mod:`mnemo.surface_fields`): ``--name-with-dashes`` (or the CLI's own flag), the
table's type, bounds (``min``/``max``), description as help, and no default (``Memory``
applies its own)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated

import typer

from mnemo.memory_fields import MemoryField
from mnemo.surface_fields import F, keyword, offered, with_fields

#: The CLI's flags that are not ``--`` and the field's name with dashes.
FLAGS = {"tags": "--tag"}
#: The fields ``mnemo add`` does not offer as options of their own: those it names itself
#: (the text argument, and the options its turns share: user, session, expiry, agent; kind
#: and tag) and those it does not take.
ADD_LEAVES_OUT = (
    "content", "user_id", "session_id", "kind", "tags", "expires_at", "ttl_seconds", "agent_id",
    "metadata", "importance", "confidence", "source_message_ids", "created_at",
)  # fmt: skip
#: The fields ``mnemo edit`` does not change.
EDIT_LEAVES_OUT = ("metadata", "expires_at", "ttl_seconds")


def option(f: MemoryField) -> inspect.Parameter:
    """The option of the field ``f`` (a list one is repeatable)."""
    flag = FLAGS.get(f.name, "--" + f.name.replace("_", "-"))
    low, high = f.bounds or (None, None)
    repeat = " Repeatable." if f.type == "list" else ""
    info = typer.Option(flag, min=low, max=high, help=f.description + repeat)
    return keyword(f.name, Annotated[f.python | None, info], None)


def add_options() -> Callable[[F], F]:
    """``mnemo add``'s memory options beyond its own, last."""
    return with_fields(offered("given", ADD_LEAVES_OUT), option)


def edit_options(after: str) -> Callable[[F], F]:
    """``mnemo edit``'s options, after its ``after``."""
    return with_fields(offered("editable", EDIT_LEAVES_OUT), option, after=after)


__all__ = ["ADD_LEAVES_OUT", "EDIT_LEAVES_OUT", "FLAGS", "add_options", "edit_options", "option"]
