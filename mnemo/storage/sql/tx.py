"""What shared statement code runs on: a transaction that knows its dialect.

Each backend wraps its connection in a :class:`Tx` (``sqlite.tx``, ``postgres.tx``). Rows index
by column name and by position; vectors read from any column come back as little-endian float32
bytes (SQLite's storage form), so statement code never looks at the backend.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from mnemo.storage.sql.dialect import Dialect


class Row(Protocol):
    """A result row: ``row["column"]`` or ``row[i]``, and its values in order."""

    def __getitem__(self, key: Any, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...

    def keys(self) -> Collection[str]:
        """The column names, in order."""
        ...


class Cursor(Protocol):
    """The result of one statement."""

    @property
    def rowcount(self) -> int:
        """Rows the statement changed."""
        ...

    def fetchone(self) -> Any:
        """The next :class:`Row`, or None."""
        ...

    def fetchall(self) -> list[Any]:
        """Every remaining :class:`Row`."""
        ...

    def __iter__(self) -> Iterator[Any]: ...


class Tx(Protocol):
    """A connection inside one transaction (or in autocommit, one statement at a time)."""

    @property
    def dialect(self) -> Dialect:
        """How this database spells what differs."""
        ...

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor:
        """Run one statement."""
        ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each parameter row."""
        ...

    def insert(self, sql: str, args: Sequence[Any]) -> int:
        """Run a single-row ``INSERT`` into a table with a rowid; returns that rowid."""
        ...

    def lock_user(self, tenant: str, user_id: str) -> None:
        """Serialise this user's writers until the transaction ends (nothing where the database
        already serialises every writer, as SQLite does)."""
        ...


class Transactions(Protocol):
    """Where a store's shared statements get their :class:`Tx`."""

    def read(self) -> AbstractContextManager[Tx]:
        """Several reads from one consistent snapshot."""
        ...

    def write(self) -> AbstractContextManager[Tx]:
        """One write transaction, committed when the block ends."""
        ...

    def auto(self) -> AbstractContextManager[Tx]:
        """Statements each in their own transaction (single reads)."""
        ...


__all__ = ["Cursor", "Row", "Transactions", "Tx"]
