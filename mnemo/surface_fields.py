"""The memory fields a surface takes as keyword parameters (a CLI command's options, an MCP
tool's arguments), derived from the field table (:mod:`mnemo.memory_fields`).

A surface function takes the fields it does not spell out itself as ``**fields`` and is
decorated with :func:`with_fields`, which gives it the signature typer and the MCP SDK read:
one keyword parameter per field, built by the surface's own ``param`` (its annotation: the
table's type, bounds, description and default, with the surface's few exceptions). So a new
field of the table reaches ``mnemo add``/``edit`` and ``remember``/``update_memory`` without
an edit there, and the call forwards it to ``Memory.add``/``update`` in ``**fields``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Iterable

from mnemo.memory_fields import BY_NAME, MemoryField, fields_where
from mnemo.signatures import F, keyword, with_params

#: What builds a surface's parameter of one field.
ParamMaker = Callable[[MemoryField], inspect.Parameter]


def offered(flag: str, leave_out: Collection[str] = ()) -> tuple[MemoryField, ...]:
    """The fields whose ``flag`` is set (``given``: ``Memory.add`` takes them, ``editable``:
    ``Memory.update`` does), in table order, but those in ``leave_out`` (names of the
    table: ValueError for another, so a renamed field cannot be left out by mistake)."""
    unknown = set(leave_out) - set(BY_NAME)
    if unknown:
        raise ValueError(f"not memory fields: {sorted(unknown)}")
    return tuple(f for f in fields_where(**{flag: True}) if f.name not in leave_out)


def with_fields(
    fields: Iterable[MemoryField], param: ParamMaker, *, after: str | None = None
) -> Callable[[F], F]:
    """A decorator giving a function that takes ``**fields`` the signature that names each
    of ``fields`` it does not name itself, as ``param`` makes it: after its parameter
    ``after`` (default: last), every parameter from there on keyword-only
    (:func:`mnemo.signatures.with_params`)."""
    return with_params([param(f) for f in fields], after=after, at_end=after is None)


__all__ = ["F", "ParamMaker", "keyword", "offered", "with_fields"]
