"""The memory fields of the ``remember`` and ``update_memory`` tools, as arguments derived from
the field table (:mod:`mnemo.surface_fields`): the table's type, bounds (``ge``/``le`` in the
schema), description, and default (``Memory.add``'s for ``remember``, none for an update).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from mnemo.memory_fields import MemoryField
from mnemo.surface_fields import F, keyword, offered, with_fields

#: The fields ``remember`` does not take (it names its text, session, kind, expiry and agent
#: itself, which serve its turns too).
REMEMBER_LEAVES_OUT = ("metadata", "confidence", "source_message_ids", "created_at")
#: The fields ``update_memory`` does not change.
UPDATE_LEAVES_OUT = ("metadata", "expires_at", "ttl_seconds")


def field_type(f: MemoryField) -> Any:
    """The type of a value of ``f`` (bounded by its table bounds)."""
    if f.bounds is None:
        return f.python
    return Annotated[f.python, Field(ge=f.bounds[0], le=f.bounds[1])]


def maker(defaults: bool) -> Callable[[MemoryField], inspect.Parameter]:
    """What makes the argument of a field: the table's type, bounds and description; its
    table default with ``defaults``, else None."""

    def param(f: MemoryField) -> inspect.Parameter:
        default = f.default if defaults else None
        value = field_type(f) if default is not None else field_type(f) | None
        return keyword(f.name, Annotated[value, Field(description=f.description)], default)

    return param


def remember_fields(after: str) -> Callable[[F], F]:
    """``remember``'s memory fields (those it does not name itself), after its ``after``."""
    return with_fields(offered("given", REMEMBER_LEAVES_OUT), maker(True), after=after)


def update_fields(after: str) -> Callable[[F], F]:
    """``update_memory``'s fields, after its ``after``."""
    return with_fields(offered("editable", UPDATE_LEAVES_OUT), maker(False), after=after)


__all__ = [
    "REMEMBER_LEAVES_OUT",
    "UPDATE_LEAVES_OUT",
    "field_type",
    "maker",
    "remember_fields",
    "update_fields",
]
