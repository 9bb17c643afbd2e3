"""A filter as a SQL ``WHERE`` fragment with its parameters, for SQLite and PostgreSQL.

:func:`to_sql` turns a parsed filter into a :class:`Fragment` whose rows are exactly those
:func:`mnemo.filters.evaluate.matches` accepts. Where each field lives is told by a
:class:`Columns` (``MEMORIES``, ``MESSAGES``, or one aliased for a join).

Nothing from the filter becomes SQL text: every value and every metadata key (inside its
JSON path) is a bound parameter; the SQL text holds only this module's constants and the
column names of the ``Columns``, which come from code and are checked to be identifiers.

The spellings, by backend (``metadata`` and ``tags`` are JSON text columns on both):

* SQLite (JSON1): the value at a path is walked with ``json_each(col, ?)``, which yields a
  scalar once and a list element by element (an object's members are skipped by their text
  key); ``json_each.type`` tells numbers, strings and booleans apart.
* PostgreSQL: ``CAST(col AS jsonb) #> CAST(%s AS text[])``, walked with
  ``jsonb_array_elements`` when it is a list and tested in place otherwise (a walk per row
  costs more than reading the value twice); numbers compare as double precision inside a
  ``CASE`` on ``jsonb_typeof`` (a cast is never tried on a non-number);
  strings compare ``COLLATE "C"`` (code point order, as SQLite and Python).

Every fragment is two-valued (never NULL), so ``NOT`` negates it exactly.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from mnemo.filters.evaluate import ascii_lower, matches
from mnemo.filters.nodes import FIELD_TYPES, And, Condition, Filter, Not, Or, Scalar
from mnemo.memory_fields import FILTERABLE, field

TRUE, FALSE = "(1 = 1)", "(1 = 0)"
_COLUMN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?")
_UPPER, _LOWER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"
_SYMBOL = {"eq": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
#: Writes out the JSON element a test reads, binding what it needs as it goes: parameters are
#: bound in the order their marks appear, so an element used twice is written twice.
Element = Callable[[], str]


class SQLDialect(Protocol):
    """What the compiler needs of a dialect (:class:`mnemo.storage.sql.dialect.Dialect`
    has it): its ``name`` (``sqlite`` or ``postgresql``) and parameter ``mark``."""

    @property
    def name(self) -> str: ...

    @property
    def mark(self) -> str: ...


class Columns:
    """The column holding each filter field in one table (a field without one: the table has
    no such field, so no row has a value for it). ``fixed`` gives fields one value for every
    row, e.g. ``kind`` = ``message`` for turns.

    ``Columns(metadata="metadata", created_at="created_at")``: each keyword a filter field
    (:data:`~mnemo.filters.nodes.FIELD_TYPES`), its value the column (None: none); the
    column names are checked to be identifiers (an alias and a dot before one at most)."""

    __slots__ = ("_by_field", "fixed")

    def __init__(self, *, fixed: tuple[tuple[str, str], ...] = (), **columns: str | None) -> None:
        for name, column in columns.items():
            if name not in FIELD_TYPES:
                raise ValueError(f"not a filter field: {name!r}")
            if column is not None and not _COLUMN.fullmatch(column):
                raise ValueError(f"not a column name: {column!r}")
        self._by_field = {k: v for k, v in columns.items() if v is not None}
        self.fixed = fixed

    def column(self, name: str) -> str | None:
        """The column of the filter field ``name``; None when the table has none."""
        return self._by_field.get(name)

    def replaced(self, **columns: str | None) -> Columns:
        """These columns with those of ``columns`` (field: column, None: none) changed."""
        return Columns(fixed=self.fixed, **{**self._by_field, **columns})

    def aliased(self, alias: str) -> Columns:
        """These columns read through the table alias ``alias`` (``m.metadata``...)."""
        return self.replaced(**{k: f"{alias}.{v}" for k, v in self._by_field.items()})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Columns):
            return NotImplemented
        return (self._by_field, self.fixed) == (other._by_field, other.fixed)

    def __hash__(self) -> int:
        return hash((tuple(sorted(self._by_field.items())), self.fixed))

    def __repr__(self) -> str:
        return f"Columns(fixed={self.fixed!r}, **{self._by_field!r})"


#: The ``memories`` table: each filterable field of the memory field table in its column.
MEMORIES = Columns().replaced(**{name: field(name).column for name in FILTERABLE})
#: The ``messages`` table: turns, whose kind is ``message``.
MESSAGES = Columns(
    metadata="metadata",
    created_at="created_at",
    session_id="session_id",
    agent_id="agent_id",
    fixed=(("kind", "message"),),
)


@dataclass(frozen=True)
class Fragment:
    """A boolean SQL expression and its parameters, in order."""

    sql: str
    params: tuple[Any, ...]


def to_sql(f: Filter, dialect: SQLDialect, columns: Columns) -> Fragment:
    """The ``WHERE`` fragment selecting the rows of ``columns``' table that match ``f``."""
    params: list[Any] = []
    compiler = _Postgres(dialect.mark, params) if dialect.name == "postgresql" else _SQLite(params)
    sql = compiler.node(f, columns)
    return Fragment(sql, tuple(params))


class _Compiler(ABC):
    """The backend-neutral walk; each backend's subclass spells the JSON walk and the
    element tests, and gives its other spellings as templates to ``format``."""

    mark = "?"
    #: The 1-based position of needle ``{1}`` in haystack ``{0}``, 0 when absent.
    FIND: ClassVar[str]
    #: ``{0}`` with A-Z folded to a-z and nothing else (as :func:`ascii_lower`).
    LOWER: ClassVar[str]
    #: ``{0}`` as text that compares in code point order.
    ORDERED: ClassVar[str]
    #: The JSON element ``{0}`` is a string.
    IS_STRING: ClassVar[str]
    #: The JSON element ``{0}`` as SQL text (when it is a string).
    STRING: ClassVar[str]

    def __init__(self, params: list[Any]) -> None:
        self.params = params

    def bind(self, value: Any) -> str:
        self.params.append(value)
        return self.mark

    def node(self, f: Filter, columns: Columns) -> str:
        if isinstance(f, And):
            return (
                "(" + " AND ".join(self.node(i, columns) for i in f.items) + ")"
                if f.items
                else TRUE
            )
        if isinstance(f, Or):
            return "(" + " OR ".join(self.node(i, columns) for i in f.items) + ")"
        if isinstance(f, Not):
            return f"(NOT {self.node(f.item, columns)})"
        return self.condition(f, columns)

    def condition(self, c: Condition, columns: Columns) -> str:
        fixed = dict(columns.fixed)
        if c.field.name in fixed:  # one value for every row: decided here
            return TRUE if matches(c, {c.field.name: fixed[c.field.name]}) else FALSE
        column = columns.column(c.field.name)
        if column is None:  # no row has the value: only a negation can hold
            return FALSE
        if c.field.type in ("json", "tags"):
            return self.json(column, c)
        if c.op == "exists":
            return f"({column} IS NOT NULL)"
        return f"({column} IS NOT NULL AND {self.text(column, c)})"

    def text(self, expr: str, c: Condition) -> str:
        """``c`` on the non-NULL text ``expr`` (or number, for a ``number`` field: its value is
        a float, compared as a number)."""
        if c.op == "in":
            assert isinstance(c.value, tuple)
            if not c.value:
                return FALSE
            return f"{expr} IN ({', '.join(self.bind(v) for v in c.value)})"
        if c.op == "contains":
            return f"{self.FIND.format(expr, self.bind(c.value))} > 0"
        if c.op == "icontains":
            assert isinstance(c.value, str)
            folded = self.LOWER.format(expr)
            return f"{self.FIND.format(folded, self.bind(ascii_lower(c.value)))} > 0"
        ordered = expr if c.field.type == "number" else self.ORDERED.format(expr)
        return f"{ordered} {_SYMBOL[c.op]} {self.bind(c.value)}"

    def element(self, c: Condition, v: Scalar, e: Element) -> str:
        """``c`` (one value ``v``) on the JSON element ``e``."""
        if isinstance(v, bool):
            return self.is_bool(v, e)
        if isinstance(v, str):
            op = Condition(c.field, c.op, v)
            return f"({self.IS_STRING.format(e())} AND {self.text(self.STRING.format(e()), op)})"
        return self.number(_SYMBOL[c.op], float(v), e)

    def elements(self, c: Condition, e: Element) -> str:
        """``c`` on the JSON element ``e`` (``in``: on any of its values)."""
        if c.op != "in":
            assert not isinstance(c.value, tuple)
            return self.element(c, c.value, e)
        assert isinstance(c.value, tuple)
        if not c.value:
            return FALSE
        tests = (self.element(Condition(c.field, "eq", v), v, e) for v in c.value)
        return "(" + " OR ".join(tests) + ")"

    # ---- spelled by each backend ------------------------------------------------------------
    @abstractmethod
    def json(self, column: str, c: Condition) -> str:
        """``c`` on the JSON text ``column`` (metadata at ``c.field.path``, or the tags list)."""

    @abstractmethod
    def is_bool(self, v: bool, e: Element) -> str:
        """The element is the JSON boolean ``v``."""

    @abstractmethod
    def number(self, symbol: str, v: float, e: Element) -> str:
        """The element is a number and compares ``symbol`` with ``v`` (bound)."""


class _SQLite(_Compiler):
    E = "mnemo_filter_e"
    FIND = "instr({0}, {1})"
    LOWER = "lower({0})"  # ASCII only, as ascii_lower
    ORDERED = "{0}"  # BINARY collation: code point order
    IS_STRING = "{0}.type = 'text'"
    STRING = "{0}.value"

    def json(self, column: str, c: Condition) -> str:
        path = "$" + "".join(f'."{key}"' for key in c.field.path)
        if c.op == "exists":
            if c.field.name == "tags":
                return f"(json_array_length({column}) > 0)"
            return f"(coalesce(json_type({column}, {self.bind(path)}), 'null') <> 'null')"
        walk = f"json_each({column}, {self.bind(path)}) AS {self.E}"
        keep = f"typeof({self.E}.key) <> 'text'"  # an object's members are not its elements
        return f"EXISTS (SELECT 1 FROM {walk} WHERE {keep} AND {self.elements(c, self.walked)})"

    def walked(self) -> str:
        return self.E

    def is_bool(self, v: bool, e: Element) -> str:
        return f"({e()}.type = '{'true' if v else 'false'}')"

    def number(self, symbol: str, v: float, e: Element) -> str:
        return f"({e()}.type IN ('integer', 'real') AND {e()}.value {symbol} {self.bind(v)})"


class _Postgres(_Compiler):
    E = "mnemo_filter_e"
    FIND = "strpos({0}, {1})"
    LOWER = f"translate({{0}}, '{_UPPER}', '{_LOWER}')"  # ASCII only, as ascii_lower
    ORDERED = '{0} COLLATE "C"'
    IS_STRING = "jsonb_typeof({0}) = 'string'"
    STRING = "({0} #>> '{{}}')"

    def __init__(self, mark: str, params: list[Any]) -> None:
        super().__init__(params)
        self.mark = mark

    def json(self, column: str, c: Condition) -> str:
        doc = f"CAST({column} AS jsonb)"
        if c.op == "exists" and c.field.name == "tags":
            return f"(jsonb_array_length({doc}) > 0)"
        path = list(c.field.path)

        def value() -> str:  # written out (and its path bound) each time it is used
            return f"({doc} #> CAST({self.bind(path)} AS text[]))" if path else doc

        if c.op == "exists":
            return f"(coalesce(jsonb_typeof({value()}), 'null') <> 'null')"
        # A list is walked; a scalar is tested in place (no set-returning call per row).
        return (
            f"(CASE jsonb_typeof({value()}) WHEN 'array' THEN EXISTS (SELECT 1 FROM "
            f"jsonb_array_elements({value()}) AS {self.E}(v) "
            f"WHERE {self.elements(c, self.walked)}) "
            f"ELSE coalesce({self.elements(c, value)}, FALSE) END)"
        )

    def walked(self) -> str:
        return f"{self.E}.v"

    def is_bool(self, v: bool, e: Element) -> str:
        return f"({e()} = CAST('{'true' if v else 'false'}' AS jsonb))"

    def number(self, symbol: str, v: float, e: Element) -> str:
        return (
            f"(CASE WHEN jsonb_typeof({e()}) = 'number' "
            f"THEN CAST({e()} #>> '{{}}' AS double precision) {symbol} "
            f"CAST({self.bind(v)} AS double precision) ELSE FALSE END)"
        )


__all__ = ["FALSE", "MEMORIES", "MESSAGES", "TRUE", "Columns", "Fragment", "SQLDialect", "to_sql"]
