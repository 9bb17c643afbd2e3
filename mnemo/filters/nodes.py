"""The typed tree a filter parses into: frozen dataclasses, nothing else.

A filter is a :class:`Condition` on one :class:`Field`, or :class:`And`, :class:`Or` or
:class:`Not` of filters. The parser (:mod:`mnemo.filters.parse`) reduces the surface syntax to
these few primitives (``ne`` is ``Not(eq)``, ``nin`` is ``Not(in)``, ``exists: false`` is
``Not(exists)``, ``"*"`` is ``exists``), so the evaluator and the SQL compiler each handle
one case per primitive and cannot disagree on the sugar.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from mnemo.memory_fields import FILTERABLE

#: A value a condition compares with: never None (``exists`` tests for presence).
Scalar: TypeAlias = str | int | float | bool

#: The primitive operators left after parsing.
Op = Literal["eq", "in", "gt", "gte", "lt", "lte", "contains", "icontains", "exists"]
COMPARISONS: tuple[str, ...] = ("gt", "gte", "lt", "lte")

#: How each field's values are read, by field name (``metadata`` covers every metadata key):
#: the filterable fields of the memory field table (:data:`mnemo.memory_fields.FILTERABLE`).
#: ``text``: a text column (NULL: absent); ``kind``: the item's kind; ``time``: a time
#: column, compared as time; ``number``: a numeric column, compared as a number (NULL:
#: absent); ``tags``: the item's list of tags; ``json``: a value inside the metadata object
#: (a scalar, or a list whose elements are compared).
FIELD_TYPES: dict[str, str] = dict(FILTERABLE)


@dataclass(frozen=True)
class Field:
    """What a condition reads: a field of :data:`FIELD_TYPES`, and for ``metadata`` the keys
    leading to the value (``metadata.a.b`` is ``Field("metadata", ("a", "b"))``)."""

    name: str
    path: tuple[str, ...] = ()

    @property
    def type(self) -> str:
        """The field's value type (see :data:`FIELD_TYPES`)."""
        return FIELD_TYPES[self.name]

    def __str__(self) -> str:
        return ".".join((self.name, *self.path))


@dataclass(frozen=True)
class Condition:
    """``field op value``; a list field (tags, a metadata list) matches when one of its
    elements does. ``value`` is a tuple for ``in``, True for ``exists``."""

    field: Field
    op: Op
    value: Scalar | tuple[Scalar, ...]


@dataclass(frozen=True)
class And:
    """Every item matches (no item: everything matches)."""

    items: tuple[Filter, ...]


@dataclass(frozen=True)
class Or:
    """At least one item matches."""

    items: tuple[Filter, ...]


@dataclass(frozen=True)
class Not:
    """``item`` does not match."""

    item: Filter


Filter: TypeAlias = Condition | And | Or | Not

#: The filter that matches every row (``{}``).
EVERYTHING = And(())

__all__ = [
    "COMPARISONS",
    "EVERYTHING",
    "FIELD_TYPES",
    "And",
    "Condition",
    "Field",
    "Filter",
    "Not",
    "Op",
    "Or",
    "Scalar",
]
