"""Whole tables of a SQLite file as plain rows: the :class:`~mnemo.storage.ports.tables.TableRows`
role of a SQLite store (``store.table_rows``), for ``mnemo migrate``, export and import.

FTS5 virtual tables and their shadow tables are left out: the triggers rebuild them as rows are
inserted. A BLOB comes out as bytes; a float32 array going in is stored as its bytes, as
vectors are stored here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np

from mnemo.storage.ports.tables import KeyLookup, Write
from mnemo.storage.sql.lookup import ChunkedLookup
from mnemo.storage.sqlite.conn import Connections

#: Rows per ``executemany`` of :func:`insert_rows`.
CHUNK = 1000


class SQLiteTableRows(ChunkedLookup):
    """The tables of one SQLite store as plain rows."""

    #: Keys per lookup statement (well under SQLite's 32,766 variables).
    lookup_chunk = 300

    def __init__(self, db: Connections, path: str) -> None:
        self.db, self.path = db, path

    def tables(self) -> list[str]:
        """Data tables, without FTS5 virtual tables and their shadow tables."""
        found = self.db.get().execute("SELECT name, sql FROM sqlite_master WHERE type='table'")
        rows = [(r[0], r[1] or "") for r in found]
        virtual = [n for n, s in rows if s.upper().startswith("CREATE VIRTUAL")]
        return sorted(
            n
            for n, _ in rows
            if not n.startswith("sqlite_")
            and n not in virtual
            and not any(n.startswith(v + "_") for v in virtual)
        )

    def columns(self, table: str) -> dict[str, str]:
        """Columns of ``table`` and their declared types."""
        info = self.db.get().execute(f'PRAGMA table_info("{table}")').fetchall()
        return {r[1]: r[2].lower() for r in info}

    def count(self, table: str) -> int:
        """Rows in ``table``."""
        return int(self.db.get().execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])

    def read(self, table: str, columns: list[str]) -> Iterator[tuple[Any, ...]]:
        """Every row in rowid order, as stored, from a connection of its own (its own snapshot
        while a target fills)."""
        cols = ", ".join(f'"{c}"' for c in columns)
        conn = sqlite3.connect(self.path)
        try:
            query = f'SELECT {cols} FROM "{table}" ORDER BY rowid'
            yield from (tuple(r) for r in conn.execute(query))
        finally:
            conn.close()

    @contextmanager
    def writing(self) -> Iterator[Write]:
        """One write transaction; ``write`` inserts rows as they are (FTS triggers fire)."""
        with self.db.write() as conn:
            yield partial(insert_rows, conn)

    def max_rowid(self, table: str) -> int:
        """The largest ``rowid`` of ``table`` (0 when empty)."""
        c = self.db.get()
        return int(c.execute(f'SELECT coalesce(max(rowid), 0) FROM "{table}"').fetchone()[0])

    def lookup_rows(self, q: KeyLookup) -> Iterable[Sequence[Any]]:
        """The ``key_cols`` then ``out_cols`` values of the rows ``q`` (a chunk) looks up."""
        key_cols, n = q.key_cols, len(q.keys)
        select = ", ".join(f'"{col}"' for col in (*key_cols, *q.out_cols))
        if len(key_cols) == 1:
            where = f'"{key_cols[0]}" IN ({", ".join("?" * n)})'
        else:
            names = ", ".join(f'"{col}"' for col in key_cols)
            one = "(" + ", ".join("?" * len(key_cols)) + ")"
            where = f"({names}) IN (VALUES {', '.join([one] * n)})"
        params = [value for key in q.keys for value in key]
        return self.db.get().execute(f'SELECT {select} FROM "{q.table}" WHERE {where}', params)

    def vector_dims(self) -> dict[str, int]:
        """Embedder id -> dimension of the stored vectors (float32 blobs)."""
        dims: dict[str, int] = {}
        for table in [t for t in self.tables() if "embedding" in self.columns(t)]:
            for embedder, size in self.db.get().execute(
                f'SELECT embedder, min(length(embedding)) FROM "{table}"'
                " WHERE embedding IS NOT NULL AND embedder IS NOT NULL GROUP BY embedder"
            ):
                dims.setdefault(embedder, int(size) // 4)
        return dims

    def bump_generation(self, users: Iterable[tuple[str, str]]) -> None:
        """Bump the cache generation of ``(tenant, user_id)`` pairs: cached vectors reload."""
        self.db.get().executemany(
            "UPDATE users SET generation = generation + 1 WHERE tenant = ? AND user_id = ?",
            list(users),
        )

    def clear(self, names: Sequence[str]) -> None:
        """Delete every row of the tables ``names`` (children first, so foreign keys hold),
        in one transaction."""
        with self.db.write() as conn:
            for table in reversed(names):
                conn.execute(f'DELETE FROM "{table}"')


def insert_rows(
    c: sqlite3.Connection,
    table: str,
    columns: list[str],
    rows: Iterable[tuple[Any, ...]],
    advance: Callable[[int], None],
) -> int:
    """Insert rows as they are (FTS triggers fire), ``CHUNK`` at a time; arrays become float32
    bytes. Returns how many."""
    every = range(len(columns))
    marks = ", ".join("?" * len(columns))
    cols = ", ".join(f'"{col}"' for col in columns)
    query = f'INSERT INTO "{table}" ({cols}) VALUES ({marks})'
    n, batch = 0, []
    for row in rows:
        values = list(row)
        for i in every:
            if isinstance(values[i], np.ndarray):  # a pgvector value
                values[i] = np.asarray(values[i], dtype=np.float32).tobytes()
        batch.append(values)
        if len(batch) == CHUNK:
            c.executemany(query, batch)
            n, batch = n + len(batch), []
            advance(CHUNK)
    c.executemany(query, batch)
    advance(len(batch))
    return n + len(batch)


__all__ = ["SQLiteTableRows", "insert_rows"]
