"""FTS5 statistics behind bm25(): a table's row count and the idf of query terms.

FTS5's bm25() weighs a query phrase by

    idf(t) = log((N - df(t) + 0.5) / (df(t) + 0.5)), floored at 1e-6,

with ``N`` the rows of the whole FTS table and ``df(t)`` the rows holding the phrase. ``N`` is
read from the table's averages record (row 1 of its ``_data`` shadow table: a varint row
count, then one varint token total per column), as FTS5 itself reads it; ``df`` is a count of
the rows matching the phrase in the ``text`` column.
"""

from __future__ import annotations

import math
import sqlite3

#: The floor FTS5 puts under the idf of a phrase in more than half the rows.
MIN_IDF = 1e-6
#: The FTS tables bm25() runs over.
FTS_TABLES = frozenset({"messages_fts", "memories_fts"})


def varint(data: bytes, at: int) -> tuple[int, int]:
    """The SQLite varint at ``data[at:]`` and the offset after it (big-endian, 7 bits a byte
    with the high bit set on all but the last; a ninth byte gives all 8 bits)."""
    value = 0
    for k in range(8):
        byte = data[at + k]
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at + k + 1
    return (value << 8) | data[at + 8], at + 9


def row_count(block: bytes | None) -> int:
    """The row count in an FTS5 averages record (0 for a table never written)."""
    return varint(bytes(block), 0)[0] if block else 0


def idf(n_docs: int, df: int) -> float:
    """idf = max(log((N - df + 0.5) / (df + 0.5)), 1e-6), as FTS5's bm25() computes it
    (``df`` taken at most ``N``)."""
    df = min(df, n_docs)
    return max(math.log((n_docs - df + 0.5) / (df + 0.5)), MIN_IDF)


def idf_total(c: sqlite3.Connection, table: str, terms: list[str]) -> float:
    """Sum over ``terms`` (each a phrase in the ``text`` column) of their idf in ``table``,
    read in one statement so row count and frequencies come from one snapshot."""
    if table not in FTS_TABLES:
        raise ValueError(f"not an FTS table: {table}")
    if not terms:
        return 0.0
    count = f", (SELECT count(*) FROM {table} WHERE {table} MATCH ?)"
    query = f"SELECT (SELECT block FROM {table}_data WHERE id = 1)" + count * len(terms)
    phrases = ['text : "' + t.replace('"', '""') + '"' for t in terms]
    block, *dfs = c.execute(query, phrases).fetchone()
    n_docs = row_count(block)
    return sum(idf(n_docs, int(df)) for df in dfs)
