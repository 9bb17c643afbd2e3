"""The PostgreSQL store's :class:`~mnemo.storage.sql.tx.Tx`: a psycopg connection whose rows
index by name and position and whose vectors read as SQLite stores them (float32 bytes)."""

from __future__ import annotations

import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from psycopg.adapt import Loader
from psycopg.pq import Format

from mnemo.storage.postgres.conn import Conn, PgConnections
from mnemo.storage.sql.dialect import POSTGRES, Dialect
from mnemo.storage.sql.tx import ConnTransactions


class PgRow(tuple[Any, ...]):
    """A row indexable by position and by column name."""

    _index: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        """The column names, in order."""
        return list(self._index)


def _row_factory(cursor: Any) -> Any:
    names = [d.name for d in cursor.description or []]
    index = {n: i for i, n in enumerate(names)}

    def make(values: Sequence[Any]) -> PgRow:
        row = PgRow(values)
        row._index = index
        return row

    return make


class _VectorBlob(Loader):
    """A binary pgvector value as SQLite stores vectors: little-endian float32 bytes."""

    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        floats = array.array("f")  # 4-byte items: byteswap turns big- into little-endian
        floats.frombytes(memoryview(data)[4:])
        floats.byteswap()
        return floats.tobytes()


class PgCursor:
    """The rows (read at once) and row count of one statement."""

    def __init__(self, rows: list[PgRow], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> PgRow | None:
        """The next row, or None."""
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[PgRow]:
        """Every remaining row."""
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self) -> Iterator[PgRow]:
        return iter(self.fetchall())


class PgTx:
    """Shared statements on one psycopg connection (inside the caller's transaction)."""

    dialect: Dialect = POSTGRES

    def __init__(self, conn: Conn) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> PgCursor:
        """Run one statement; its rows are read at once."""
        cur = self.conn.cursor(row_factory=_row_factory, binary=True)
        info = self.conn.adapters.types.get("vector")
        if info is not None:
            cur.adapters.register_loader(info.oid, _VectorBlob)
        cur.execute(sql.encode("utf-8"), list(args))
        return PgCursor(cur.fetchall() if cur.description else [], cur.rowcount)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each parameter row."""
        params = [list(p) for p in rows]
        if params:
            self.conn.cursor().executemany(sql.encode("utf-8"), params)

    def insert(self, sql: str, args: Sequence[Any]) -> int:
        """Run a single-row ``INSERT ... RETURNING rowid``; returns the rowid."""
        row = self.execute(sql + " RETURNING rowid", args).fetchone()
        assert row is not None
        return int(row[0])

    def lock_user(self, tenant: str, user_id: str) -> None:
        """Take the (tenant, user) advisory lock for the rest of this transaction."""
        key = tenant + "\x1f" + user_id
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))


class PgTransactions(ConnTransactions[Conn, PgTx]):
    """:class:`PgTx` transactions over the store's pool: ``read`` is a REPEATABLE READ, read-only
    snapshot, ``write`` one transaction committed when the block ends and ``auto`` a pooled
    connection in autocommit mode."""

    def __init__(self, db: PgConnections) -> None:
        super().__init__(db.read, db.write, db.connection, PgTx)
        self.db = db


__all__ = ["PgCursor", "PgRow", "PgTransactions", "PgTx"]
