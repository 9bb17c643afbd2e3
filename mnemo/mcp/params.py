"""An MCP tool's arguments taken from a request model's fields: :func:`tool_params`.

A tool built on a request model (``recall`` on :class:`~mnemo.search_query.SearchQuery`,
``list_memories`` on :class:`~mnemo.list_query.MemoryQuery`) takes the model's fields as its
arguments, with their declared types, so their JSON schema (bound, description) and checks are
the model's; the tool names only its exceptions. :func:`mnemo.signatures.with_params` puts them
in the tool function's signature, which the SDK reads the input schema from.
"""

from __future__ import annotations

import inspect
from collections.abc import Collection, Mapping
from typing import Any

from mnemo.search_query import CheckedModel


def tool_params(
    model: type[CheckedModel],
    *,
    hidden: Collection[str] = (),
    types: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> list[inspect.Parameter]:
    """The arguments of a tool built on ``model``: every field but the ``hidden`` ones, in
    field order, each with its declared type and default unless this tool's ``types`` or
    ``defaults`` give another (:data:`mnemo.signatures.REQUIRED`: a required argument). A
    field added to the model is an argument of the tool with no edit here; an exception
    naming no field is a ValueError (:meth:`~mnemo.search_query.CheckedModel.parameters`)."""
    types = types or {}
    defaults = defaults or {}
    return [
        p.replace(
            annotation=types.get(p.name, p.annotation), default=defaults.get(p.name, p.default)
        )
        for p in model.parameters(hidden=hidden, named=[*types, *defaults])
    ]


__all__ = ["tool_params"]
