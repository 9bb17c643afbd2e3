"""What shared statement code runs on: a transaction that knows its dialect.

Each backend wraps its connection in a :class:`Tx` (``sqlite.tx``, ``postgres.tx``). Rows index
by column name and by position; vectors read from any column come back as little-endian float32
bytes (SQLite's storage form), so statement code never looks at the backend.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Generic, Protocol, TypeVar

from mnemo.storage.sql.dialect import Dialect

C = TypeVar("C")
T = TypeVar("T")


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


class Executes(Protocol):
    """A DB-API connection: runs one statement."""

    def execute(self, sql: str, /) -> object: ...


E = TypeVar("E", bound=Executes)


@contextmanager
def snapshot(conn: E, begin: str) -> Iterator[E]:
    """``conn`` inside the read transaction ``begin`` opens, ended with ``COMMIT`` when the
    block ends, also on an error (a snapshot writes nothing)."""
    conn.execute(begin)
    try:
        yield conn
    finally:
        conn.execute("COMMIT")


class ConnTransactions(Generic[C, T]):
    """:class:`Transactions` from a backend's three ways to hold a connection (a snapshot, a
    write transaction, autocommit), each connection handed out wrapped in its :class:`Tx`."""

    def __init__(
        self,
        read: Callable[[], AbstractContextManager[C]],
        write: Callable[[], AbstractContextManager[C]],
        auto: Callable[[], AbstractContextManager[C]],
        wrap: Callable[[C], T],
    ) -> None:
        self._read, self._write, self._auto, self._wrap = read, write, auto, wrap

    @contextmanager
    def read(self) -> Iterator[T]:
        """Several reads from one consistent snapshot."""
        with self._read() as c:
            yield self._wrap(c)

    @contextmanager
    def write(self) -> Iterator[T]:
        """One write transaction, committed when the block ends."""
        with self._write() as c:
            yield self._wrap(c)

    @contextmanager
    def auto(self) -> Iterator[T]:
        """Statements each in their own transaction (single reads)."""
        with self._auto() as c:
            yield self._wrap(c)


__all__ = ["ConnTransactions", "Cursor", "Executes", "Row", "Transactions", "Tx", "snapshot"]
