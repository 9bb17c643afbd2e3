"""Bulk rows in and out of PostgreSQL: binary COPY, streaming reads, sequence and index upkeep.

Used by ``mnemo migrate`` (whole tables) and the benchmark (bulk import). Vectors travel as
float32 numpy arrays in both directions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from psycopg import sql

from mnemo.storage.postgres.conn import Conn
from mnemo.storage.postgres.search import create_hnsw_index, raw_vector_cursor, unpack_vectors

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


def table_names(c: Conn) -> list[str]:
    """Ordinary tables of the current schema."""
    found = c.execute(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
    ).fetchall()
    return sorted(r["table_name"] for r in found)


def count_rows(c: Conn, table: str) -> int:
    """Rows in ``table``."""
    r = c.execute(sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(table))).fetchone()
    return int(r["n"]) if r else 0


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
