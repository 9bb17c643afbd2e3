"""The spellings in which SQLite and PostgreSQL differ, asked for by shared statement code.

Shared statements are built from a :class:`Dialect` (``tx.dialect``): a placeholder is
``d.mark`` (or ``d.marks(n)`` for a list), an insert that skips conflicting rows is
``d.insert_ignore(...)``, the larger of two values is ``d.greatest``, and so on. Nothing
rewrites SQL text after the fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Dialect:
    """One database's spelling of the few things the two stores write differently."""

    name: str
    #: The parameter placeholder.
    mark: str
    #: The scalar function returning the larger of its arguments.
    greatest: str
    #: True when inserts report their rowid through ``RETURNING rowid`` (else ``lastrowid``).
    returns_rowid: bool
    #: True when ``messages.embedding`` and ``memories.embedding`` are pgvector columns.
    vector_columns: bool
    #: The dialect's ``INSERT`` that skips a row whose key exists: (prefix, suffix).
    ignore: tuple[str, str]
    #: Written before a column to keep the planner off that column's indexes (SQLite's
    #: unary ``+``; PostgreSQL's planner needs no such hint).
    no_index: str

    def marks(self, n: int) -> str:
        """``n`` comma-separated placeholders."""
        return ", ".join([self.mark] * n)

    def insert(self, table: str, columns: tuple[str, ...] | list[str]) -> str:
        """``INSERT INTO table (columns) VALUES (placeholders)``."""
        return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({self.marks(len(columns))})"

    def insert_ignore(self, table: str, columns: tuple[str, ...] | list[str]) -> str:
        """An insert of one row that does nothing when the row's key already exists."""
        prefix, suffix = self.ignore
        values = self.marks(len(columns))
        return f"{prefix} {table} ({', '.join(columns)}) VALUES ({values}){suffix}"

    def unindexed(self, column: str) -> str:
        """``column``, spelled so that the planner looks rows up by another index."""
        return f"{self.no_index}{column}"

    def json_number(self, column: str, key: str) -> str:
        """The number stored under ``key`` of the JSON text in ``column`` (NULL when absent)."""
        if self.name == "postgresql":
            return f"({column}::json->>'{key}')::bigint"
        return f"json_extract({column}, '$.{key}')"

    def vector(self, v: np.ndarray | None) -> Any:
        """A vector as a ``messages``/``memories`` embedding parameter (None stays NULL)."""
        if v is None:
            return None
        if self.vector_columns:
            return v
        return np.asarray(v, dtype=np.float32).tobytes()


#: How each dialect spells each field of :class:`Dialect`: (SQLite, PostgreSQL).
SPELLINGS: dict[str, tuple[Any, Any]] = {
    "name": ("sqlite", "postgresql"),
    "mark": ("?", "%s"),
    "greatest": ("max", "greatest"),
    "returns_rowid": (False, True),
    "vector_columns": (False, True),
    "ignore": (("INSERT OR IGNORE INTO", ""), ("INSERT INTO", " ON CONFLICT DO NOTHING")),
    "no_index": ("+", ""),
}
SQLITE, POSTGRES = (Dialect(**{k: v[i] for k, v in SPELLINGS.items()}) for i in range(2))

__all__ = ["POSTGRES", "SPELLINGS", "SQLITE", "Dialect"]
