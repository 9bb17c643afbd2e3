"""LangGraph's matching rules, decided in Python: namespace match conditions and value filters.

A **match condition** (``list_namespaces(prefix=, suffix=)``) compares a namespace with a path
label by label from its start (``prefix``) or its end (``suffix``); ``"*"`` in the path
matches any one label, and a namespace shorter than the path never matches.

A **value filter** (``search(filter=)``) holds when every ``{key: condition}`` holds for the
item's ``value[key]`` (a missing key is None; a dotted key that the value does not hold as
such reaches into nested objects, as in LangGraph's SQL stores):

* a plain value: equal (Python ``==``), a list equal element by element, a dict equal key by
  key, each compared by these same rules (so ``{"a": {"b": 1}}`` only asks for ``b``);
* a dict of operators ``{"$eq": x, "$ne": x, "$gt": n, "$gte": n, "$lt": n, "$lte": n}``: all
  must hold; ``$gt``..``$lte`` compare as numbers (a value that is not a number satisfies
  none of them); an unknown operator is a ValueError.

These are the rules of LangGraph's ``InMemoryStore``; ``string_equalities`` picks the part of
a filter that mnemo's own filter language decides the same way, so it can be pushed into the
store as a first, wider cut (:mod:`mnemo.integrations.langgraph.items`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def namespace_matches(namespace: tuple[str, ...], kind: str, path: tuple[str, ...]) -> bool:
    """Whether ``namespace`` matches ``path`` as a ``prefix`` or ``suffix`` condition."""
    if len(namespace) < len(path):
        return False
    if kind == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif kind == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"Unsupported match type: {kind}")
    return all(want == "*" or have == want for have, want in pairs)


def check_filter(flt: Mapping[str, Any] | None) -> None:
    """Raise ValueError for an operator LangGraph does not know, anywhere in ``flt``.

    The walk keeps its own stack, so a filter nested deeper than Python's recursion limit is
    checked like any other (InMemoryStore answers such a filter too)."""
    pending: list[Any] = list((flt or {}).values())[::-1]
    while pending:
        condition = pending.pop()
        if not isinstance(condition, Mapping):
            continue
        if any(str(k).startswith("$") for k in condition):
            for op in condition:
                if op not in OPERATORS:
                    raise ValueError(f"Unsupported operator: {op}")
        else:
            pending.extend(list(condition.values())[::-1])


def value_matches(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """Whether an item's ``value`` satisfies the filter ``flt`` (see the module's rules)."""
    return all(_compare(lookup(value, key), want) for key, want in (flt or {}).items())


def lookup(value: Mapping[str, Any], key: str) -> Any:
    """``value[key]``; a dotted key the value does not hold as such is a path into nested
    objects (``"user.level"``), as LangGraph's SQL stores read it; None when missing."""
    if key in value or "." not in key:
        return value.get(key)
    node: Any = value
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _compare(have: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        if any(str(k).startswith("$") for k in want):
            return all(_operator(have, op, operand) for op, operand in want.items())
        if not isinstance(have, Mapping):
            return False
        return all(_compare(have.get(k), v) for k, v in want.items())
    if isinstance(want, list | tuple):
        return (
            isinstance(have, list | tuple)
            and len(have) == len(want)
            and all(_compare(h, w) for h, w in zip(have, want, strict=True))
        )
    return bool(have == want)


def _operator(have: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(have == operand)
    if op == "$ne":
        return bool(have != operand)
    if op not in OPERATORS:
        raise ValueError(f"Unsupported operator: {op}")
    a, b = _number(have), _number(operand)
    if a is None or b is None:
        return False
    if op == "$gt":
        return a > b
    if op == "$gte":
        return a >= b
    if op == "$lt":
        return a < b
    return a <= b


def _number(x: Any) -> float | None:
    """``x`` as a float, as ``float(x)`` reads it (numbers, numeric strings); else None."""
    if x is None or isinstance(x, Mapping | list | tuple):
        return None
    try:
        out = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out


def string_equalities(flt: Mapping[str, Any] | None) -> dict[str, str]:
    """The conditions of ``flt`` that ask a plain top-level key (letters, digits, ``_``)
    to equal a string: ``{"kind": "pref"}`` and ``{"kind": {"$eq": "pref"}}``. mnemo's
    filters decide these the same way, except that they also accept a list holding the
    string, so they only narrow what the exact check then decides."""
    out: dict[str, str] = {}
    for key, want in (flt or {}).items():
        if not key or not all(c.isalnum() or c == "_" for c in key):
            continue
        if isinstance(want, Mapping) and set(want) == {"$eq"}:
            want = want["$eq"]
        if isinstance(want, str) and "\x00" not in want and want.isprintable():
            out[key] = want
    return out


__all__ = [
    "OPERATORS",
    "check_filter",
    "lookup",
    "namespace_matches",
    "string_equalities",
    "value_matches",
]
