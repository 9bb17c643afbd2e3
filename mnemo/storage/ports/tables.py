"""The table-rows port: a store's tables as plain rows, for ``mnemo migrate``, export and import.

Both stores yield rows as tuples and accept the same back. A vector comes out as what the
backend stores (SQLite: float32 bytes; PostgreSQL: a float32 array) and each store converts
what it receives to its own column type, so a copy never needs to know which way it runs.
A store holds its implementation as ``store.table_rows``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

#: ``write(table, columns, rows, advance) -> count``: what :meth:`TableRows.writing` yields.
Write = Callable[[str, list[str], Iterable[tuple[Any, ...]], Callable[[int], None]], int]


@dataclass(frozen=True)
class KeyLookup:
    """The rows of ``table`` whose ``key_cols`` values are among ``keys``, read as their
    ``out_cols`` values."""

    table: str
    key_cols: Sequence[str]
    keys: Sequence[tuple[Any, ...]]
    out_cols: Sequence[str]


class TableRows(Protocol):
    """Whole tables of one store as plain rows."""

    def tables(self) -> list[str]:
        """Data tables of the store (derived full-text tables excluded)."""
        ...

    def columns(self, table: str) -> dict[str, str]:
        """Writable columns, name -> ``"vector"`` for embeddings, another type name otherwise."""
        ...

    def count(self, table: str) -> int:
        """Rows in ``table``."""
        ...

    def read(self, table: str, columns: list[str]) -> Iterator[tuple[Any, ...]]:
        """Every row of ``table`` in key order, from a snapshot of its own."""
        ...

    def writing(self) -> AbstractContextManager[Write]:
        """One transaction; yields ``write(table, columns, rows, advance) -> count``, which
        inserts rows as they are (the store rebuilds its derived rows and indexes)."""
        ...

    def max_rowid(self, table: str) -> int:
        """The largest ``rowid`` of ``table`` (0 when empty)."""
        ...

    def lookup(self, q: KeyLookup) -> dict[tuple[Any, ...], tuple[Any, ...]]:
        """The rows ``q`` looks up: key -> the values of its ``out_cols`` (one row per key; keys
        are unique in the tables this is asked of). Inside :meth:`writing` they include the
        rows written so far."""
        ...

    def vector_dims(self) -> dict[str, int]:
        """Embedder id -> dimension of the stored vectors."""
        ...

    def bump_generation(self, users: Iterable[tuple[str, str]]) -> None:
        """Bump the cache generation of ``(tenant, user_id)`` pairs (inside :meth:`writing`):
        cached vectors reload."""
        ...

    def clear(self, names: Sequence[str]) -> None:
        """Delete every row of the tables ``names``, in one transaction."""
        ...


__all__ = ["KeyLookup", "TableRows", "Write"]
