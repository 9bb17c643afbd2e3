"""The two ends of ``mnemo migrate``: a SQLite file and a PostgreSQL database as plain rows.

Both yield rows as tuples and accept the same back. A SQLite BLOB comes out as bytes; a
pgvector ``vector`` as a float32 array. Each side converts what it receives to its own column
type (float32 bytes <-> arrays), so a migration never needs to know which way it runs, and a
BLOB that is not a vector in PostgreSQL (``bytea``) stays bytes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from mnemo.storage.sqlite.store import SQLiteStore

Advance = Callable[[int], None]
_CHUNK = 1000


def as_vector(value: Any) -> np.ndarray | None:
    """A float32 vector from a SQLite blob or an array (None stays None)."""
    if value is None:
        return None
    if isinstance(value, bytes | bytearray | memoryview):
        return np.frombuffer(bytes(value), dtype=np.float32)
    return np.asarray(value, dtype=np.float32)


class SQLiteSide:
    """A SQLite store's tables (FTS5 tables excluded: the triggers rebuild them)."""

    def __init__(self, path: str) -> None:
        self.store = SQLiteStore(path)
        self.db = self.store.db

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
        """Every row in rowid order, as stored (BLOBs as bytes)."""
        cols = ", ".join(f'"{c}"' for c in columns)
        conn = sqlite3.connect(self.store.location)  # its own snapshot while the target fills
        try:
            yield from (
                tuple(r) for r in conn.execute(f'SELECT {cols} FROM "{table}" ORDER BY rowid')
            )
        finally:
            conn.close()

    @contextmanager
    def writing(self) -> Iterator[Callable[..., int]]:
        """One write transaction; ``write`` inserts rows as they are (FTS triggers fire)."""
        with self.db.write() as conn:

            def write(
                table: str, columns: list[str], rows: Iterable[tuple], advance: Advance
            ) -> int:
                every = range(len(columns))
                marks = ", ".join("?" * len(columns))
                cols = ", ".join(f'"{c}"' for c in columns)
                query = f'INSERT INTO "{table}" ({cols}) VALUES ({marks})'
                n, batch = 0, []
                for row in rows:
                    values = list(row)
                    for i in every:
                        if isinstance(values[i], np.ndarray):  # a pgvector value
                            values[i] = np.asarray(values[i], dtype=np.float32).tobytes()
                    batch.append(values)
                    if len(batch) == _CHUNK:
                        conn.executemany(query, batch)
                        n, batch = n + len(batch), []
                        advance(_CHUNK)
                conn.executemany(query, batch)
                advance(len(batch))
                return n + len(batch)

            yield write

    def close(self) -> None:
        """Close the store."""
        self.store.close()


class PostgresSide:
    """A PostgreSQL store's tables, written with binary COPY."""

    def __init__(self, url: str) -> None:
        from mnemo.storage.postgres.conn import configure
        from mnemo.storage.postgres.store import PostgresStore

        self.store = PostgresStore(url, pool_size=2)
        self.conn = self.store.db.open_plain()
        configure(self.conn)

    def tables(self) -> list[str]:
        """Ordinary tables of the store's schema."""
        from mnemo.storage.postgres.copy import table_names

        return table_names(self.conn)

    def columns(self, table: str) -> dict[str, str]:
        """Writable columns of ``table`` and their type names (``vector`` for embeddings)."""
        from mnemo.storage.postgres.copy import table_columns

        return table_columns(self.conn, table)

    def count(self, table: str) -> int:
        """Rows in ``table``."""
        from psycopg import sql

        query = sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(table))
        r = self.conn.execute(query).fetchone()
        return int(r["n"]) if r else 0

    def read(self, table: str, columns: list[str]) -> Iterator[tuple[Any, ...]]:
        """Every row in key order (a server-side cursor), vectors as float32 arrays."""
        from mnemo.storage.postgres.conn import configure, pg_errors
        from mnemo.storage.postgres.copy import stream

        kinds = self.columns(table)
        conn = self.store.db.open_plain()
        try:
            with pg_errors(self.store.location):
                configure(conn)
                yield from stream(conn, table, {c: kinds[c] for c in columns})
        finally:
            conn.close()

    @contextmanager
    def writing(self) -> Iterator[Callable[..., int]]:
        """One transaction of COPYs; afterwards sequences move on and HNSW indexes are built."""
        from mnemo.storage.postgres.conn import pg_errors
        from mnemo.storage.postgres.copy import copy_in, index_stored_embedders, reset_identity

        written: list[str] = []
        with pg_errors(self.store.location), self.conn.transaction():

            def write(
                table: str, columns: list[str], rows: Iterable[tuple], advance: Advance
            ) -> int:
                kinds = self.columns(table)
                written.append(table)
                types = {c: kinds[c] for c in columns}
                vec_at = [i for i, t in enumerate(types.values()) if t == "vector"]
                return copy_in(self.conn, table, types, _as_vectors(rows, vec_at), advance)

            yield write
            for table in written:
                if "rowid" in self.columns(table):
                    reset_identity(self.conn, table)
            index_stored_embedders(self.conn)
        with pg_errors(self.store.location):
            self.conn.execute("ANALYZE")

    def close(self) -> None:
        """Close the connection and the store."""
        self.conn.close()
        self.store.close()


def _as_vectors(rows: Iterable[tuple[Any, ...]], vec_at: list[int]) -> Iterator[tuple[Any, ...]]:
    """Rows with the values at ``vec_at`` as float32 arrays (SQLite blobs are bytes)."""
    for row in rows:
        if not vec_at:
            yield row
            continue
        values = list(row)
        for i in vec_at:
            values[i] = as_vector(values[i])
        yield tuple(values)
