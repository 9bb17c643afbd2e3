"""The two ends of ``mnemo migrate``: a SQLite file and a PostgreSQL database as plain rows.

Both yield rows as tuples and accept the same back. A SQLite BLOB comes out as bytes; a
pgvector ``vector`` as a float32 array. Each side converts what it receives to its own column
type (float32 bytes <-> arrays), so a migration never needs to know which way it runs, and a
BLOB that is not a vector in PostgreSQL (``bytea``) stays bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from mnemo.ops.steps import Advance
from mnemo.storage.sqlite import tables
from mnemo.storage.sqlite.store import SQLiteStore


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
        return tables.table_names(self.db.get())

    def columns(self, table: str) -> dict[str, str]:
        """Columns of ``table`` and their declared types."""
        return tables.table_columns(self.db.get(), table)

    def count(self, table: str) -> int:
        """Rows in ``table``."""
        return tables.count_rows(self.db.get(), table)

    def read(self, table: str, columns: list[str]) -> Iterator[tuple[Any, ...]]:
        """Every row in rowid order, as stored (BLOBs as bytes)."""
        return tables.stream(self.store.location, table, columns)

    @contextmanager
    def writing(self) -> Iterator[Callable[..., int]]:
        """One write transaction; ``write`` inserts rows as they are (FTS triggers fire)."""
        with self.db.write() as conn:

            def write(
                table: str, columns: list[str], rows: Iterable[tuple[Any, ...]], advance: Advance
            ) -> int:
                return tables.insert_rows(conn, table, columns, rows, advance)

            yield write

    def embedders_in_use(self) -> list[str]:
        """Distinct embedder ids of the stored vectors."""
        return self.store.embedders_in_use()

    def max_rowid(self, table: str) -> int:
        """The largest ``rowid`` of ``table`` (0 when empty)."""
        return tables.max_rowid(self.db.get(), table)

    def lookup(
        self,
        table: str,
        key_cols: Sequence[str],
        keys: Sequence[tuple[Any, ...]],
        out_cols: Sequence[str],
    ) -> dict[tuple[Any, ...], tuple[Any, ...]]:
        """Rows of ``table`` by key (see :func:`mnemo.storage.sqlite.tables.lookup`); inside
        :meth:`writing` they include the rows written so far."""
        return tables.lookup(self.db.get(), table, key_cols, keys, out_cols)

    def vector_dims(self) -> dict[str, int]:
        """Embedder id -> dimension of the stored vectors."""
        names = [t for t in self.tables() if "embedding" in self.columns(t)]
        return tables.vector_dims(self.db.get(), names)

    def bump_generation(self, users: Iterable[tuple[str, str]]) -> None:
        """Bump the users' cache generations (inside :meth:`writing`)."""
        tables.bump_generation(self.db.get(), users)

    def clear(self, names: Sequence[str]) -> None:
        """Delete every row of the tables ``names``, in one transaction."""
        with self.db.write() as conn:
            tables.clear(conn, names)

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
        from mnemo.storage.postgres.copy import count_rows

        return count_rows(self.conn, table)

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
                table: str, columns: list[str], rows: Iterable[tuple[Any, ...]], advance: Advance
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

    def embedders_in_use(self) -> list[str]:
        """Distinct embedder ids of the stored vectors."""
        return self.store.embedders_in_use()

    def max_rowid(self, table: str) -> int:
        """The largest ``rowid`` of ``table`` (0 when empty)."""
        from mnemo.storage.postgres.copy import max_rowid

        return max_rowid(self.conn, table)

    def lookup(
        self,
        table: str,
        key_cols: Sequence[str],
        keys: Sequence[tuple[Any, ...]],
        out_cols: Sequence[str],
    ) -> dict[tuple[Any, ...], tuple[Any, ...]]:
        """Rows of ``table`` by key (see :func:`mnemo.storage.postgres.copy.lookup`); inside
        :meth:`writing` they include the rows written so far."""
        from mnemo.storage.postgres.conn import pg_errors
        from mnemo.storage.postgres.copy import lookup

        with pg_errors(self.store.location):
            return lookup(self.conn, table, key_cols, keys, out_cols)

    def vector_dims(self) -> dict[str, int]:
        """Embedder id -> dimension of the stored vectors."""
        from mnemo.storage.postgres.copy import vector_dims

        kinds = {t: self.columns(t).get("embedding") for t in self.tables()}
        return vector_dims(self.conn, {t: k for t, k in kinds.items() if k})

    def bump_generation(self, users: Iterable[tuple[str, str]]) -> None:
        """Bump the users' cache generations (inside :meth:`writing`)."""
        from mnemo.storage.postgres.copy import bump_generation

        bump_generation(self.conn, users)

    def clear(self, names: Sequence[str]) -> None:
        """Delete every row of the tables ``names``, in one transaction."""
        from mnemo.storage.postgres.conn import pg_errors
        from mnemo.storage.postgres.copy import clear

        with pg_errors(self.store.location), self.conn.transaction():
            clear(self.conn, names)

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
