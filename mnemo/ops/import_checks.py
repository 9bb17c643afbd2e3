"""Checks of the rows of a `mnemo export` file before any is written.

An export file may come from anyone, so every value is checked against the target's column
types and against what mnemo itself would have stored (errors name the file's line):

* a value has its column's type: text, integer, real (finite) or bytes;
* text is valid Unicode without NUL (:func:`mnemo.validation.text`: a lone surrogate would make
  every later read of the row fail); user, session and tenant ids are valid ids;
* the JSON text columns (``metadata``, ``tags``, ``payload``, ...) parse, have their shape
  (object or list) and hold only valid text and finite numbers;
* a turn's or memory's ``content`` is within ``max_content_chars``;
* a time column holds a time in mnemo's storage form;
* a vector (``embedding``) is float32 bytes, finite, of the embedder its row names, and of the
  one dimension that embedder has in the target store and in the rest of the file; a turn's
  extra keys (``key_vectors``) are whole vectors of that dimension.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.schemas import format_time, parse_time
from mnemo.storage.agent_scope import AGENT_USER

#: Column type names (SQLite declared types, PostgreSQL udt names) by kind.
KINDS: dict[str, frozenset[str]] = {
    "text": frozenset({"text"}),
    "integer": frozenset({"integer", "int4", "int8"}),
    "real": frozenset({"real", "float8"}),
    "bytes": frozenset({"blob", "bytea", "vector"}),
}
#: Whether a value has a type kind (a column of an unknown type takes anything).
_TYPED: dict[str, Callable[[Any], bool]] = {
    "text": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "real": lambda v: isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v),
    "bytes": lambda v: isinstance(v, bytes),
    "": lambda v: True,
}
#: One check of a column's values: (value, field name for the error) -> anything.
Rule = Callable[[Any, str], Any]
#: How a column is checked: its type kind and its rules.
Plan = tuple[str, tuple[Rule, ...]]
#: JSON text columns and the JSON type each holds.
JSON_COLUMNS: dict[str, type] = {
    "metadata": dict,
    "tags": list,
    "source_message_ids": list,
    "payload": dict,
    "usage": dict,
    "old": dict,
    "new": dict,
}
#: Tables whose ``content`` is bounded by ``max_content_chars``, as the facade bounds it.
BOUNDED_CONTENT = ("messages", "memories")
#: Columns that hold ids and must be valid ids when set (``user_id`` may also be the reserved
#: key of agents' own memories, see mnemo.storage.agent_scope).
ID_COLUMNS = ("tenant", "user_id", "session_id", "agent_id")
#: Text columns holding a time in storage form (besides every ``*_at`` column).
TIME_COLUMNS = ("at", "run_after", "lease_until", "valid_until")


def _json_column(shape: type) -> Rule:
    """The check of a JSON text column holding a ``shape`` (dict or list)."""

    def parse(value: str, field: str) -> None:
        try:
            parsed = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            raise ValidationError(f"{field} is not valid JSON text") from None
        if not isinstance(parsed, shape):
            raise ValidationError(f"{field} must hold a JSON {shape.__name__}")
        check.json_value(parsed, field)

    return parse


def _user_key(value: str, field: str) -> None:
    """ValidationError unless ``value`` is a user id or the reserved key of agents' own
    memories (``""``)."""
    if value != AGENT_USER:
        check.identifier(value, field)


def _stored_time(value: str, field: str) -> None:
    """ValidationError unless ``value`` is a time in storage form (:func:`format_time`)."""
    try:
        same = format_time(parse_time(value, field)) == value
    except ValidationError:
        same = False
    if not same:
        raise ValidationError(f"{field} is not a stored time: {value[:40]!r}")


class RowChecks:
    """Checks rows for one target: its column types, its vectors' dimensions per embedder
    (``dims``, extended by the first vector of a new embedder in the file) and the content
    limit."""

    def __init__(
        self, columns: dict[str, dict[str, str]], dims: dict[str, int], max_content_chars: int
    ) -> None:
        self.columns = columns
        self.dims = dict(dims)
        self.max_content_chars = max_content_chars
        self._plans: dict[str, dict[str, Plan]] = {}

    def check(self, table: str, row: dict[str, Any], where: str) -> dict[str, Any]:
        """``row`` (decoded values of the target's columns) or ValidationError naming
        ``where`` (``line N``) and the column."""
        plan = self._plans.get(table)
        if plan is None:
            plan = self._plans[table] = self._plan(table)
        for col, value in row.items():
            if value is None:
                continue
            kind, rules = plan.get(col, ("", ()))
            if not _TYPED[kind](value):
                field = f"{where}: {table}.{col}"
                raise ValidationError(f"{field} must be {kind}, got {type(value).__name__}")
            for rule in rules:
                rule(value, f"{where}: {table}.{col}")
        if "embedding" in row:
            self._vector(row, f"{where}: {table}.embedding")
        if row.get("key_vectors") is not None:
            self._keys(row, f"{where}: {table}.key_vectors")
        return row

    def _plan(self, table: str) -> dict[str, Plan]:
        """Column -> (type kind, the checks of its values) for ``table``."""
        plan = {}
        for col, declared in self.columns[table].items():
            kind = next((k for k, names in KINDS.items() if declared in names), "")
            rules: list[Rule] = []
            if kind == "text":
                rules.append(check.text)
                if col in ID_COLUMNS:
                    rules.append(_user_key if col == "user_id" else check.identifier)
                if col == "content" and table in BOUNDED_CONTENT:
                    rules.append(self._content)
                if col in JSON_COLUMNS:
                    rules.append(_json_column(JSON_COLUMNS[col]))
                if col.endswith("_at") or col in TIME_COLUMNS:
                    rules.append(_stored_time)
            plan[col] = (kind, tuple(rules))
        return plan

    def _content(self, value: str, field: str) -> None:
        check.content(value, self.max_content_chars, field)

    def _vector(self, row: dict[str, Any], field: str) -> None:
        blob = row.get("embedding")
        if blob is None:
            return
        embedder = row.get("embedder")
        if not isinstance(embedder, str) or not embedder:
            raise ValidationError(f"{field}: a vector needs the embedder that made it")
        dim = self._floats(blob, 1, field).size
        expected = self.dims.setdefault(embedder, dim)
        if dim != expected:
            raise ValidationError(
                f"{field} has {dim} dimensions; vectors of {embedder!r} have {expected}"
            )

    def _keys(self, row: dict[str, Any], field: str) -> None:
        dim = self.dims.get(str(row.get("embedder")))
        if dim is None:
            raise ValidationError(f"{field}: extra keys need the row's own vector")
        self._floats(row["key_vectors"], dim, field, empty_ok=True)

    @staticmethod
    def _floats(blob: bytes, dim: int, field: str, empty_ok: bool = False) -> np.ndarray:
        """``blob`` as float32 values: a whole number of ``dim``-vectors, all finite."""
        if (not blob and not empty_ok) or len(blob) % (4 * dim):
            raise ValidationError(
                f"{field} is {len(blob)} bytes, not whole float32 vectors of {dim} dimensions"
            )
        values = np.frombuffer(blob, dtype=np.float32)
        if not np.isfinite(values).all():
            raise ValidationError(f"{field} holds a NaN or infinite value")
        return values


__all__ = ["JSON_COLUMNS", "RowChecks"]
