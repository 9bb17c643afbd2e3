"""Bulk rows in and out of PostgreSQL: binary COPY, streaming reads, sequence and index upkeep.

:class:`PgTableRows` is the :class:`~mnemo.storage.ports.tables.TableRows` role of a PostgreSQL
store (``store.table_rows``), for ``mnemo migrate``, export and import; the benchmark's bulk
import uses :func:`copy_in` alone. Vectors travel as float32 numpy arrays in both directions
(a SQLite blob written here becomes an array first).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from psycopg import sql

from mnemo.storage.ports.tables import KeyLookup, Write
from mnemo.storage.postgres.conn import Conn, PgConnections, configure, pg_errors
from mnemo.storage.postgres.hnsw import create_hnsw_index
from mnemo.storage.postgres.search import raw_vector_cursor, unpack_vectors
from mnemo.storage.sql.lookup import ChunkedLookup

#: Columns PostgreSQL computes itself (never copied in).
GENERATED = ("fts",)


def table_columns(c: Conn, table: str) -> dict[str, str]:
    """Writable columns of ``table`` in the current schema, name -> type name (udt)."""
    found = c.execute(
        "SELECT column_name, udt_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = %s AND is_generated = 'NEVER'"
        " ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return {r["column_name"]: r["udt_name"] for r in found if r["column_name"] not in GENERATED}


def copy_in(
    c: Conn,
    table: str,
    columns: dict[str, str],
    rows: Iterable[tuple[Any, ...]],
    advance: Callable[[int], None] | None = None,
) -> int:
    """Binary ``COPY`` of ``rows`` (values in ``columns`` order) into ``table``; returns count."""
    query = sql.SQL("COPY {t} ({cols}) FROM STDIN (FORMAT BINARY)").format(
        t=sql.Identifier(table), cols=sql.SQL(", ").join(map(sql.Identifier, columns))
    )
    n = 0
    with c.cursor().copy(query) as copy:
        copy.set_types(list(columns.values()))
        for row in rows:
            copy.write_row(row)
            n += 1
            if advance is not None and n % 1000 == 0:
                advance(1000)
    if advance is not None:
        advance(n % 1000)
    return n


def stream(
    c: Conn, table: str, columns: dict[str, str], batch: int = 2000
) -> Iterator[tuple[Any, ...]]:
    """Every row of ``table`` (values in ``columns`` order, vectors as float32 arrays)."""
    vec_at = [i for i, t in enumerate(columns.values()) if t == "vector"]
    order = "rowid" if "rowid" in columns else ", ".join(list(columns)[:2])
    query = sql.SQL("SELECT {cols} FROM {t} ORDER BY {o}").format(
        cols=sql.SQL(", ").join(map(sql.Identifier, columns)),
        t=sql.Identifier(table),
        o=sql.SQL(order),
    )
    with c.transaction(), raw_vector_cursor(c, name=f"mnemo_stream_{table}") as cur:
        cur.itersize = batch
        cur.execute(query)
        while chunk := cur.fetchmany(batch):
            for r in chunk:
                values = list(r.values())
                for i in vec_at:
                    if values[i] is not None:
                        values[i] = unpack_vectors([values[i]])[0]
                yield tuple(values)


def reset_identity(c: Conn, table: str) -> None:
    """Move ``table``'s rowid sequence past the copied rows (they kept their rowids)."""
    c.execute(
        sql.SQL(
            "SELECT setval(pg_get_serial_sequence({name}, 'rowid'),"
            " coalesce(max(rowid), 0) + 1, false) FROM {t}"
        ).format(name=sql.Literal(table), t=sql.Identifier(table))
    )


def index_stored_embedders(c: Conn) -> list[str]:
    """Create the HNSW index of every embedder that has vectors; returns the embedders."""
    done = set()
    for table in ("messages", "memories"):
        t = sql.Identifier(table)
        embedders = c.execute(
            sql.SQL("SELECT DISTINCT embedder FROM {t} WHERE embedder IS NOT NULL").format(t=t)
        ).fetchall()
        for e in embedders:
            r = c.execute(
                sql.SQL(
                    "SELECT vector_dims(embedding) AS dim FROM {t}"
                    " WHERE embedder = %s AND embedding IS NOT NULL LIMIT 1"
                ).format(t=t),
                (e["embedder"],),
            ).fetchone()
            if r is not None:
                create_hnsw_index(c, table, e["embedder"], int(r["dim"]))
                done.add(e["embedder"])
    return sorted(done)


def as_vector(value: Any) -> np.ndarray | None:
    """A float32 vector from a SQLite blob or an array (None stays None)."""
    if value is None:
        return None
    if isinstance(value, bytes | bytearray | memoryview):
        return np.frombuffer(bytes(value), dtype=np.float32)
    return np.asarray(value, dtype=np.float32)


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


class PgTableRows(ChunkedLookup):
    """The tables of one PostgreSQL store as plain rows, over a connection of their own
    (outside the pool: COPY sessions), opened on first use and closed with the store."""

    lookup_chunk = 500

    def __init__(self, db: PgConnections) -> None:
        self.db = db
        self._conn: Conn | None = None

    @property
    def conn(self) -> Conn:
        """The role's own connection (pgvector adapters registered)."""
        if self._conn is None:
            conn = self.db.open_plain()
            configure(conn)
            self._conn = conn
        return self._conn

    def close(self) -> None:
        """Close the role's connection, if it was opened."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def tables(self) -> list[str]:
        """Ordinary tables of the current schema."""
        found = self.conn.execute(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        ).fetchall()
        return sorted(r["table_name"] for r in found)

    def columns(self, table: str) -> dict[str, str]:
        """Writable columns of ``table`` and their type names (``vector`` for embeddings)."""
        return table_columns(self.conn, table)

    def count(self, table: str) -> int:
        """Rows in ``table``."""
        query = sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(table))
        r = self.conn.execute(query).fetchone()
        return int(r["n"]) if r else 0

    def read(self, table: str, columns: list[str]) -> Iterator[tuple[Any, ...]]:
        """Every row in key order (a server-side cursor), vectors as float32 arrays."""
        kinds = self.columns(table)
        conn = self.db.open_plain()
        try:
            with pg_errors(self.db.location):
                configure(conn)
                yield from stream(conn, table, {c: kinds[c] for c in columns})
        finally:
            conn.close()

    @contextmanager
    def writing(self) -> Iterator[Write]:
        """One transaction of COPYs; afterwards sequences move on and HNSW indexes are built."""
        written: list[str] = []
        with pg_errors(self.db.location), self.conn.transaction():

            def write(
                table: str,
                columns: list[str],
                rows: Iterable[tuple[Any, ...]],
                advance: Callable[[int], None],
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
        with pg_errors(self.db.location):
            self.conn.execute("ANALYZE")

    def max_rowid(self, table: str) -> int:
        """The largest ``rowid`` of ``table`` (0 when empty)."""
        query = sql.SQL("SELECT coalesce(max(rowid), 0) AS n FROM {}").format(sql.Identifier(table))
        r = self.conn.execute(query).fetchone()
        return int(r["n"]) if r else 0

    def lookup_rows(self, q: KeyLookup) -> list[tuple[Any, ...]]:
        """The ``key_cols`` then ``out_cols`` values of the rows ``q`` (a chunk) looks up."""
        one = sql.SQL("({})").format(sql.SQL(", ").join([sql.Placeholder()] * len(q.key_cols)))
        query = sql.SQL("SELECT {s} FROM {t} WHERE ({k}) IN (VALUES {v})").format(
            s=sql.SQL(", ").join(map(sql.Identifier, (*q.key_cols, *q.out_cols))),
            t=sql.Identifier(q.table),
            k=sql.SQL(", ").join(map(sql.Identifier, q.key_cols)),
            v=sql.SQL(", ").join([one] * len(q.keys)),
        )
        params = [value for key in q.keys for value in key]
        with pg_errors(self.db.location):
            return [tuple(r.values()) for r in self.conn.execute(query, params).fetchall()]

    def vector_dims(self) -> dict[str, int]:
        """Embedder id -> dimension of the stored vectors (in ``vector`` columns, or ``bytea``
        of float32)."""
        dims: dict[str, int] = {}
        for table in self.tables():
            kind = self.columns(table).get("embedding")
            if not kind:
                continue
            size = "vector_dims(embedding)" if kind == "vector" else "length(embedding) / 4"
            query = sql.SQL(
                "SELECT embedder, min({size}) AS dim FROM {t}"
                " WHERE embedding IS NOT NULL AND embedder IS NOT NULL GROUP BY embedder"
            ).format(size=sql.SQL(size), t=sql.Identifier(table))
            for r in self.conn.execute(query).fetchall():
                dims.setdefault(r["embedder"], int(r["dim"]))
        return dims

    def bump_generation(self, users: Iterable[tuple[str, str]]) -> None:
        """Bump the cache generation of ``(tenant, user_id)`` pairs: cached vectors reload."""
        with self.conn.cursor() as cur:
            cur.executemany(
                "UPDATE users SET generation = generation + 1 WHERE tenant = %s AND user_id = %s",
                list(users),
            )

    def clear(self, names: Sequence[str]) -> None:
        """Delete every row of the tables ``names`` and restart their rowid sequences, in one
        transaction."""
        if not names:
            return
        with pg_errors(self.db.location), self.conn.transaction():
            self.conn.execute(
                sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
                    sql.SQL(", ").join(map(sql.Identifier, names))
                )
            )
