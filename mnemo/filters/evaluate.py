"""The meaning of a filter, in Python: :func:`matches` decides one row.

This is the reference the SQL of :mod:`mnemo.filters.sql` is tested against (on both
backends, row for row), and what an adapter can use on items it holds in memory.

A row is a mapping with any of ``kind``, ``tags``, ``metadata``, ``created_at``,
``updated_at``, ``session_id``, ``agent_id``; a missing key or None means the row has no such
value. The rules:

* A field holds a list of *elements*: a text or time column its value (none when NULL),
  ``tags`` each tag, a metadata value itself, or each element when it is a list.
* A condition other than ``exists`` holds when one element satisfies it, so a row without
  the value satisfies none: ``{"n": {"gt": 1}}`` is false where ``n`` is missing.
* ``eq``/``in``: same type and equal (strings, numbers, booleans are never equal to each
  other: ``"3"`` is not ``3``, ``true`` is not ``1``). ``gt``/``gte``/``lt``/``lte``: a number
  with numbers, a string with strings (by code point; stored times are fixed-width text, so
  times compare as time). ``contains``: a string element contains the text;
  ``icontains`` the same with ASCII letters folded to lower case (the same on both backends:
  SQLite's ``lower()`` folds only ASCII).
* ``exists``: the value is there and is not null (for ``tags``: at least one tag).
* ``ne``, ``nin``, ``exists: false`` are the negations of ``eq``, ``in``, ``exists``: they hold
  on a row without the value (as mem0's default store and LangGraph's ``$ne`` do).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from mnemo.filters.nodes import And, Condition, Field, Filter, Or, Scalar
from mnemo.schemas import format_time, parse_time

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_MISSING = object()


def ascii_lower(text: str) -> str:
    """``text`` with A-Z folded to a-z and nothing else changed."""
    return text.translate(_ASCII_LOWER)


def matches(f: Filter, row: Mapping[str, Any]) -> bool:
    """Whether ``row`` satisfies the filter ``f`` (see the module's rules)."""
    if isinstance(f, Condition):
        return _condition(f, row)
    if isinstance(f, And):
        return all(matches(item, row) for item in f.items)
    if isinstance(f, Or):
        return any(matches(item, row) for item in f.items)
    return not matches(f.item, row)


def value_of(field: Field, row: Mapping[str, Any]) -> Any:
    """The row's value of ``field``; None when it has none (JSON null counts as none)."""
    value = row.get(field.name)
    for key in field.path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    if isinstance(value, datetime) or (field.type == "time" and isinstance(value, str)):
        return format_time(parse_time(value, field.name))  # times compare in stored form
    return value


def elements(field: Field, row: Mapping[str, Any]) -> list[Any]:
    """The values a condition on ``field`` is tried on (see the module's rules)."""
    value = value_of(field, row)
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _condition(c: Condition, row: Mapping[str, Any]) -> bool:
    if c.op == "exists":
        value = value_of(c.field, row)
        return bool(value) if c.field.name == "tags" else value is not None
    return any(_element(c, e) for e in elements(c.field, row))


def _type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def _element(c: Condition, e: Any) -> bool:
    if c.op == "in":
        assert isinstance(c.value, tuple)
        return any(_equal(e, v) for v in c.value)
    v = c.value
    assert not isinstance(v, tuple)
    if c.op == "eq":
        return _equal(e, v)
    if c.op in ("contains", "icontains"):
        if not isinstance(e, str) or not isinstance(v, str):
            return False
        return v in e if c.op == "contains" else ascii_lower(v) in ascii_lower(e)
    kind = _type(e)
    if kind != _type(v) or kind not in ("number", "string"):
        return False
    if c.op == "gt":
        return bool(e > v)
    if c.op == "gte":
        return bool(e >= v)
    if c.op == "lt":
        return bool(e < v)
    return bool(e <= v)


def _equal(e: Any, v: Scalar) -> bool:
    kind = _type(e)
    return kind is not None and kind == _type(v) and bool(e == v)


__all__ = ["ascii_lower", "elements", "matches", "value_of"]
