"""A command's arguments and options taken from a request model's fields: :class:`ModelOptions`.

A command built on a request model (``mnemo search`` and ``context`` on
:class:`~mnemo.search_query.SearchQuery`, ``mnemo list`` on
:class:`~mnemo.list_query.MemoryQuery`) takes each field as an option named for it
(``as_of``: ``--as-of``) with its description as help, and its one required field as the
argument; the command names only its exceptions (hidden fields, flag names, help, defaults).
The values reach the command as given on the command line (a time as text, kinds as a list):
the model checks them when the command builds it, so a bad one is refused with the library's
message and the command checks nothing itself. :func:`mnemo.signatures.with_params` puts them
in the command function's signature, which typer reads the options from.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import typer

from mnemo.search_query import CheckedModel


def bare(annotation: Any) -> Any:
    """``annotation`` without its ``Annotated`` layers."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def option_type(annotation: Any) -> Any:
    """The type typer reads a field of type ``annotation`` as: a flag for a bool, a number
    for a number, a repeatable option (a list of texts) for a sequence, text for the rest
    (a time, a kind, an id), optional when the field is. TypeError for a field that has no
    command-line form (a mapping: a command takes it its own way, as ``--filter`` does)."""
    kind = bare(annotation)
    optional = False
    if get_origin(kind) in (Union, types.UnionType):
        given = [a for a in get_args(kind) if a is not type(None)]
        optional = len(given) < len(get_args(kind))
        kind = bare(given[0]) if len(given) == 1 else None
    if get_origin(kind) in (tuple, list):
        read: Any = list[str]
    elif kind in (bool, int, float, str):
        read = kind
    elif kind is datetime or get_origin(kind) is Literal:
        read = str
    else:
        raise TypeError(f"no command-line form for {annotation}: hide the field or take it")
    return read | None if optional else read


def dashed(name: str) -> str:
    """The option a field is by default: ``as_of`` -> ``--as-of``."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class ModelOptions:
    """What a command takes from ``model``: every field but the ``hidden`` ones, in field
    order, with the command's own ``flags``, ``helps`` and ``defaults`` where it differs from
    the field's name, description and default. A field added to the model is an option of
    the command with no edit here; an exception naming no field is a ValueError."""

    model: type[CheckedModel]
    hidden: Collection[str] = ()
    flags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    helps: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def params(self) -> list[inspect.Parameter]:
        """The command's parameters: an argument for a required field, else an option."""
        named = [*self.flags, *self.helps, *self.defaults]
        out = []
        for p in self.model.parameters(hidden=self.hidden, named=named):
            about = self.helps.get(p.name) or self.model.model_fields[p.name].description or ""
            info: Any = (
                typer.Argument(help=about)
                if p.default is p.empty
                else typer.Option(*self.flags.get(p.name, ()), help=about)
            )
            annotation = Annotated[option_type(p.annotation), info]  # type: ignore[valid-type]
            default = self.defaults.get(p.name, p.default)
            out.append(p.replace(annotation=annotation, default=default))
        return out

    def flag(self, name: str) -> str:
        """The option field ``name`` is given by (its first flag)."""
        return self.flags.get(name, (dashed(name),))[0]


__all__ = ["ModelOptions", "bare", "dashed", "option_type"]
