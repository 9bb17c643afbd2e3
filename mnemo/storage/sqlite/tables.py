"""Whole tables of a SQLite file as plain rows: listing, counting, reading and bulk inserts.

Used by ``mnemo migrate`` and ``mnemo export`` (the SQLite side of :mod:`mnemo.ops.
migrate_sides`). FTS5 virtual tables and their shadow tables are left out: the triggers rebuild
them as rows are inserted. A BLOB comes out as bytes; a float32 array going in is stored as its
bytes, as vectors are stored here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

#: Rows per ``executemany`` of :func:`insert_rows`.
CHUNK = 1000


def table_names(c: sqlite3.Connection) -> list[str]:
    """Data tables, without FTS5 virtual tables and their shadow tables."""
    found = c.execute("SELECT name, sql FROM sqlite_master WHERE type='table'")
    rows = [(r[0], r[1] or "") for r in found]
    virtual = [n for n, s in rows if s.upper().startswith("CREATE VIRTUAL")]
    return sorted(
        n
        for n, _ in rows
        if not n.startswith("sqlite_")
        and n not in virtual
        and not any(n.startswith(v + "_") for v in virtual)
    )


def table_columns(c: sqlite3.Connection, table: str) -> dict[str, str]:
    """Columns of ``table`` and their declared types."""
    info = c.execute(f'PRAGMA table_info("{table}")').fetchall()
    return {r[1]: r[2].lower() for r in info}


def count_rows(c: sqlite3.Connection, table: str) -> int:
    """Rows in ``table``."""
    return int(c.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])


def stream(path: str, table: str, columns: list[str]) -> Iterator[tuple[Any, ...]]:
    """Every row in rowid order, as stored, from a connection of its own (its own snapshot
    while a target fills)."""
    cols = ", ".join(f'"{c}"' for c in columns)
    conn = sqlite3.connect(path)
    try:
        yield from (tuple(r) for r in conn.execute(f'SELECT {cols} FROM "{table}" ORDER BY rowid'))
    finally:
        conn.close()


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


def max_rowid(c: sqlite3.Connection, table: str) -> int:
    """The largest ``rowid`` of ``table`` (0 when empty)."""
    return int(c.execute(f'SELECT coalesce(max(rowid), 0) FROM "{table}"').fetchone()[0])


#: Keys per statement of :func:`lookup` (well under SQLite's 32,766 variables).
LOOKUP_CHUNK = 300


def lookup(
    c: sqlite3.Connection,
    table: str,
    key_cols: Sequence[str],
    keys: Sequence[tuple[Any, ...]],
    out_cols: Sequence[str],
) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """The rows of ``table`` whose ``key_cols`` values are among ``keys``: key -> the values of
    ``out_cols`` (one row per key; keys are unique in the tables this is asked of)."""
    select = ", ".join(f'"{col}"' for col in (*key_cols, *out_cols))
    width = len(key_cols)
    found: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for start in range(0, len(keys), LOOKUP_CHUNK):
        chunk = keys[start : start + LOOKUP_CHUNK]
        if width == 1:
            where = f'"{key_cols[0]}" IN ({", ".join("?" * len(chunk))})'
        else:
            names = ", ".join(f'"{col}"' for col in key_cols)
            one = "(" + ", ".join("?" * width) + ")"
            where = f"({names}) IN (VALUES {', '.join([one] * len(chunk))})"
        params = [value for key in chunk for value in key]
        for r in c.execute(f'SELECT {select} FROM "{table}" WHERE {where}', params):
            found[tuple(r[:width])] = tuple(r[width:])
    return found


def vector_dims(c: sqlite3.Connection, tables: Sequence[str]) -> dict[str, int]:
    """Embedder id -> dimension of the vectors stored in ``tables`` (float32 blobs)."""
    dims: dict[str, int] = {}
    for table in tables:
        for embedder, size in c.execute(
            f'SELECT embedder, min(length(embedding)) FROM "{table}"'
            " WHERE embedding IS NOT NULL AND embedder IS NOT NULL GROUP BY embedder"
        ):
            dims.setdefault(embedder, int(size) // 4)
    return dims


def bump_generation(c: sqlite3.Connection, users: Iterable[tuple[str, str]]) -> None:
    """Bump the cache generation of ``(tenant, user_id)`` pairs: cached vectors reload."""
    c.executemany(
        "UPDATE users SET generation = generation + 1 WHERE tenant = ? AND user_id = ?",
        list(users),
    )


def clear(c: sqlite3.Connection, tables: Sequence[str]) -> None:
    """Delete every row of ``tables`` (children first, so foreign keys hold)."""
    for table in reversed(tables):
        c.execute(f'DELETE FROM "{table}"')
