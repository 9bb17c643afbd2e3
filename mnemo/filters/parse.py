"""Parse and check a filter written in mem0's syntax into the tree of :mod:`mnemo.filters.nodes`.

The syntax (mem0's, so one filter serves both)::

    {"key": value}                      key equals value ("*": key exists)
    {"key": {"gte": 3, "lt": 9}}        operators on one key, all must hold
    {"k1": v1, "k2": v2}                every key must match (an implicit AND)
    {"AND": [f1, f2]}  {"OR": [f1, f2]}  {"NOT": f}  {"NOT": [f1, f2]} (none of them)

Operators: ``eq ne gt gte lt lte in nin contains icontains exists``; LangGraph's spellings
``$eq $ne $gt $gte $lt $lte`` (and ``$in $nin``) are accepted too.

Keys: the filterable memory fields (:data:`mnemo.memory_fields.FILTERABLE`: ``kind``, ``tags``,
``created_at``, ``session_id``, ...), and metadata keys, written ``metadata.key`` or, as in
mem0, bare (``{"category": "work"}`` is ``metadata.category``); a dotted key reaches into
nested objects (``metadata.a.b``). A bare key that is a field's name reads the field: a
metadata key that shares a name with a field (one added later too) is written
``metadata.kind``. ``user_id`` is a scope, not a filter field: it is refused (a filter only
narrows the caller's scope).

Every error is a :class:`~mnemo.errors.ValidationError` whose message starts with the path
of the offending part, e.g. ``AND[1].kind.gte: ...``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.filters.limits import check_size
from mnemo.filters.nodes import (
    COMPARISONS,
    EVERYTHING,
    FIELD_TYPES,
    And,
    Condition,
    Field,
    Filter,
    Not,
    Or,
    Scalar,
)
from mnemo.schemas import HIT_KINDS, format_time, parse_time

OPERATORS: tuple[str, ...] = (
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "in",
    "nin",
    "contains",
    "icontains",
    "exists",
)
#: The operators of a value compared whole (a time, a number): every one but the text tests.
ORDERED = tuple(op for op in OPERATORS if op not in ("contains", "icontains"))
#: The operators each field type takes.
FIELD_OPERATORS: dict[str, tuple[str, ...]] = {
    "kind": ("eq", "ne", "in", "nin", "exists"),
    "text": OPERATORS,
    "time": ORDERED,
    "number": ORDERED,
    "tags": ("eq", "ne", "in", "nin", "contains", "icontains", "exists"),
    "json": OPERATORS,
}
#: Scope names: not filter fields.
SCOPES = ("user_id", "tenant")
#: Longest metadata key a filter may name.
MAX_KEY_CHARS = 128
#: Integers a filter may hold: exactly representable as a double on every backend.
MAX_INT = 2**53


def parse_filter(raw: Any) -> Filter:
    """The checked tree of the filter ``raw`` (None and ``{}`` match everything; a tree is
    returned as it is).

    Raises ValidationError, naming the offending part, for a malformed filter, an unknown
    operator or field, a value of the wrong type, or a filter past the size limits.
    """
    if raw is None:
        return EVERYTHING
    if isinstance(raw, Condition | And | Or | Not):  # parsed already
        return raw
    check_size(raw)
    return _object(raw, "")


def parse_where(raw: Any) -> Filter | None:
    """:func:`parse_filter`, but None for a filter that keeps every row (None, ``{}``): what
    a call's ``filters=`` argument becomes before it travels to the store."""
    tree = parse_filter(raw)
    return None if tree == EVERYTHING else tree


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _where(path: str) -> str:
    return path or "filter"


def _object(raw: Any, path: str) -> Filter:
    if not isinstance(raw, Mapping):
        raise ValidationError(
            f'{_where(path)} must be an object such as {{"key": value}}, got {type(raw).__name__}'
        )
    items = [_entry(key, value, path) for key, value in raw.items()]
    return items[0] if len(items) == 1 else And(tuple(items))


def _entry(key: Any, value: Any, path: str) -> Filter:
    if not isinstance(key, str):
        raise ValidationError(f"{_where(path)}: keys must be strings, got {key!r:.40}")
    here = _join(path, _printable(key))
    if key in ("AND", "OR"):
        items = tuple(_object(item, f"{here}[{i}]") for i, item in enumerate(_list(value, here)))
        return And(items) if key == "AND" else Or(items)
    if key == "NOT":
        if isinstance(value, Mapping):
            return Not(_object(value, here))
        items = tuple(_object(item, f"{here}[{i}]") for i, item in enumerate(_list(value, here)))
        return Not(items[0] if len(items) == 1 else Or(items))
    field = _field(key, here)
    if isinstance(value, Mapping):
        if not value:
            raise ValidationError(f"{here}: an empty object names no operator")
        conds = [_operator(field, op, operand, here) for op, operand in value.items()]
        return conds[0] if len(conds) == 1 else And(tuple(conds))
    if value == "*":  # mem0's wildcard: the key is there, whatever its value
        return Condition(field, "exists", True)
    return Condition(field, "eq", _value(field, "eq", value, here))


def _list(value: Any, here: str) -> list[Any]:
    if not isinstance(value, list | tuple) or not value:
        raise ValidationError(f"{here} must be a non-empty list of filters")
    return list(value)


def _field(key: str, here: str) -> Field:
    if key in SCOPES:
        raise ValidationError(
            f"{here}: {key} is a scope, not a filter field; pass {key}= to the call"
        )
    if key in FIELD_TYPES and key != "metadata":
        return Field(key)
    if key.startswith("$"):
        raise ValidationError(
            f"{here}: {key!r:.40} is not a field; combine filters with AND, OR, NOT, and put "
            'operators inside a field: {"key": {"gt": 1}}'
        )
    names = key.split(".")
    if names[0] == "metadata":
        names = names[1:]
        if not names:
            raise ValidationError(f"{here}: name a metadata key, e.g. metadata.category")
    for name in names:
        _metadata_key(name, here)
    return Field("metadata", tuple(names))


def _metadata_key(name: str, here: str) -> None:
    """A metadata key a filter may name: 1 to 128 printable ASCII characters without ``"``
    or ``\\`` (each backend then reads it alike; it is bound as a parameter either way)."""
    if not name:
        raise ValidationError(f"{here}: empty metadata key (two dots, or a dot at an end)")
    if len(name) > MAX_KEY_CHARS:
        raise ValidationError(f"{here}: metadata key longer than {MAX_KEY_CHARS} characters")
    if any(not " " <= ch <= "~" or ch in '"\\' for ch in name):
        raise ValidationError(
            f"{here}: metadata key {_printable(name)!r} cannot be filtered on: keys in "
            'filters are printable ASCII without " or \\'
        )


def _operator(field: Field, op: Any, operand: Any, path: str) -> Filter:
    name = op[1:] if isinstance(op, str) and op.startswith("$") else op
    label = _printable(op) if isinstance(op, str) else repr(op)
    here = f"{path}.{label}"
    if name not in OPERATORS:
        hint = ""
        if field.name == "metadata" and isinstance(op, str):
            hint = f"; for a nested metadata key write {field}.{_printable(op)}"
        raise ValidationError(
            f"{here}: unknown operator {op!r:.40}; use one of {', '.join(OPERATORS)}{hint}"
        )
    allowed = FIELD_OPERATORS[field.type]
    if name not in allowed:
        raise ValidationError(f"{here}: {field} takes only {', '.join(allowed)}")
    if name in ("in", "nin"):
        if not isinstance(operand, list | tuple):
            raise ValidationError(f"{here} must be a list of values, got {type(operand).__name__}")
        values = tuple(_value(field, "eq", v, f"{here}[{i}]") for i, v in enumerate(operand))
        cond = Condition(field, "in", values)
        return Not(cond) if name == "nin" else cond
    if name == "exists":
        if not isinstance(operand, bool):
            raise ValidationError(f"{here} must be true or false, got {operand!r:.40}")
        cond = Condition(field, "exists", True)
        return cond if operand else Not(cond)
    if name in ("eq", "ne"):
        cond = Condition(field, "eq", _value(field, "eq", operand, here))
        return Not(cond) if name == "ne" else cond
    return Condition(field, name, _value(field, name, operand, here))  # type: ignore[arg-type]


def _value(field: Field, op: str, value: Any, here: str) -> Scalar:
    """``value`` checked for ``field`` and ``op`` (a time in its stored form)."""
    if value is None:
        raise ValidationError(
            f'{here}: null is not a filter value; {{"exists": false}} finds rows without {field}'
        )
    kind = field.type
    if kind == "time":
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return format_time(parse_time(value, f"{here} ({field} is a time)"))
        raise ValidationError(f"{here}: {field} is a time; got {type(value).__name__}")
    if kind == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(_finite(value, here))  # a numeric column: compared as a double
        raise ValidationError(f"{here}: {field} is a number; got {type(value).__name__}")
    if kind != "json" or op in ("contains", "icontains"):
        if not isinstance(value, str):
            raise ValidationError(
                f"{here}: {field} {'is text' if kind != 'json' else op + ' takes text'}; "
                f"got {type(value).__name__} {value!r:.40}"
            )
        check.text(value, here)
        if kind == "kind" and value not in HIT_KINDS:
            raise ValidationError(f"{here}: kind is one of {list(HIT_KINDS)}, got {value!r:.40}")
        return value
    if not isinstance(value, str | int | float):  # bool is an int
        raise ValidationError(
            f"{here}: expected a string, number or boolean, got {type(value).__name__}"
        )
    if isinstance(value, bool) and op in COMPARISONS:
        raise ValidationError(f"{here}: cannot order booleans ({op} {value})")
    return _finite(value, here)


def _finite(value: str | int | float, here: str) -> str | int | float:
    """``value`` checked as a JSON value: valid text, a finite number, an integer within
    +-2**53 (exactly a double on every backend)."""
    check.json_value(value, here)
    if isinstance(value, int) and abs(value) > MAX_INT:
        raise ValidationError(f"{here}: integers in filters are within +-2**53")
    return value


def _printable(key: str) -> str:
    """A key as a message may quote it (escaped, at most 40 characters)."""
    return key.encode("ascii", "backslashreplace").decode("ascii")[:40]


__all__ = [
    "FIELD_OPERATORS",
    "MAX_INT",
    "MAX_KEY_CHARS",
    "OPERATORS",
    "ORDERED",
    "SCOPES",
    "parse_filter",
    "parse_where",
]
