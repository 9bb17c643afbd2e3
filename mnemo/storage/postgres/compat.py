"""SQL shared with SQLite, run on PostgreSQL: a connection that speaks sqlite3's interface.

The statement modules of the SQLite store (``sqlite_profile``, ``sqlite_docs``,
``sqlite_keys``) take a connection and write portable SQL with ``?`` placeholders. Where the
two dialects agree, the PostgreSQL store runs the same functions through :class:`CompatConn`,
which rewrites the few SQLite-only spellings they use:

* ``?`` placeholders become ``%s`` (a literal ``%`` is escaped);
* ``INSERT OR IGNORE INTO t ...`` becomes ``INSERT INTO t ... ON CONFLICT DO NOTHING``;
* the two-argument scalar ``max(a, b)`` becomes ``greatest(a, b)``;
* ``cursor.lastrowid`` is filled by appending ``RETURNING rowid`` to single-row inserts into
  tables that have a ``rowid`` column;
* a pgvector value comes back as SQLite stores vectors: little-endian float32 bytes.

Rows index by position and by column name, like ``sqlite3.Row``. Anything else (a dialect
difference these rules do not cover) belongs in the PostgreSQL store's own SQL.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
from psycopg.adapt import Loader
from psycopg.pq import Format

if TYPE_CHECKING:
    from mnemo.storage.postgres.conn import Conn, PgConnections

#: Tables whose inserts report ``lastrowid``.
ROWID_TABLES = frozenset(
    {"messages", "memories", "profile_facts", "history", "topics", "jobs", "documents"}
)
_MAX2 = re.compile(r"\bmax\(([^(),]+),([^(),]+)\)", re.IGNORECASE)
_INSERT = re.compile(r"^\s*INSERT\s+(OR\s+IGNORE\s+)?INTO\s+(\w+)", re.IGNORECASE)


def translate(sql: str) -> tuple[str, str | None]:
    """PostgreSQL text of a SQLite statement, and the table when it is a plain INSERT."""
    text = sql.replace("%", "%%").replace("?", "%s")
    text = _MAX2.sub(r"greatest(\1,\2)", text)
    table = None
    m = _INSERT.match(text)
    if m:
        table = m.group(2).lower()
        if m.group(1):
            text = (
                _INSERT.sub(f"INSERT INTO {m.group(2)}", text, count=1) + " ON CONFLICT DO NOTHING"
            )
    return text, table


class CompatRow(tuple[Any, ...]):
    """A row indexable by position and by column name, like ``sqlite3.Row``."""

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

    def make(values: Sequence[Any]) -> CompatRow:
        row = CompatRow(values)
        row._index = index
        return row

    return make


class _VectorBlob(Loader):
    """A binary pgvector value as SQLite stores vectors: little-endian float32 bytes."""

    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        return np.frombuffer(bytes(data)[4:], dtype=">f4").astype("<f4").tobytes()


class CompatCursor:
    """The parts of ``sqlite3.Cursor`` the shared statement modules use."""

    def __init__(self, rows: list[CompatRow], rowcount: int, lastrowid: int | None) -> None:
        self._rows = rows
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def fetchone(self) -> CompatRow | None:
        """The next row, or None."""
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[CompatRow]:
        """Every remaining row."""
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self) -> Iterator[CompatRow]:
        return iter(self.fetchall())


class CompatConn:
    """A psycopg connection (inside the caller's transaction) with sqlite3's ``execute``."""

    def __init__(self, conn: Conn) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> CompatCursor:
        """Run one statement; rows are read at once."""
        text, table = translate(sql)
        returning = table in ROWID_TABLES and "RETURNING" not in text.upper()
        if returning:
            text += " RETURNING rowid"
        cur = self.conn.cursor(row_factory=_row_factory, binary=True)
        info = self.conn.adapters.types.get("vector")
        if info is not None:
            cur.adapters.register_loader(info.oid, _VectorBlob)
        cur.execute(text.encode("utf-8"), list(args))
        rows = cur.fetchall() if cur.description else []
        lastrowid = int(rows[0][0]) if returning and rows else None
        return CompatCursor([] if returning else rows, cur.rowcount, lastrowid)

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> CompatCursor:
        """Run one statement for each parameter row."""
        text, _ = translate(sql)
        params = [list(p) for p in seq]
        cur = self.conn.cursor()
        if params:
            cur.executemany(text.encode("utf-8"), params)
        return CompatCursor([], cur.rowcount, None)


class CompatAutocommit:
    """``db.get()`` of the SQLite store: each statement on a pooled connection of its own."""

    def __init__(self, db: PgConnections) -> None:
        self.db = db

    def execute(self, sql: str, args: Sequence[Any] = ()) -> CompatCursor:
        """Run one statement in its own transaction."""
        with self.db.connection() as c:
            return CompatConn(c).execute(sql, args)


class CompatDB:
    """The PostgreSQL pool behind the SQLite store's ``Connections`` interface."""

    def __init__(self, db: PgConnections) -> None:
        self.db = db

    def get(self) -> CompatAutocommit:
        """Statements run one by one (autocommit)."""
        return CompatAutocommit(self.db)

    @contextmanager
    def write(self) -> Iterator[CompatConn]:
        """One transaction, committed when the block ends."""
        with self.db.write() as c:
            yield CompatConn(c)

    @contextmanager
    def read(self) -> Iterator[CompatConn]:
        """A consistent snapshot for several reads."""
        with self.db.read() as c:
            yield CompatConn(c)
