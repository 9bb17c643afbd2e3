"""A filter (:mod:`mnemo.filters`) in the store's statements: the ``AND (...)`` a statement
appends after its scope conditions, and the rowids of a user's rows that match one.

The scope conditions (tenant, user, live rows) are always written first and never built from
the filter, so a filter only narrows what the caller may see. The fragment holds only bound
parameters (see :func:`mnemo.filters.to_sql`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mnemo.filters import EVERYTHING, MEMORIES, MESSAGES, Columns, Filter, to_sql
from mnemo.storage.base import MEMORY, MESSAGE, Ref
from mnemo.storage.sql.dialect import Dialect
from mnemo.storage.sql.tx import Tx

#: Each full-text table's columns for a filter, by ref table.
COLUMNS = {MESSAGE: MESSAGES, MEMORY: MEMORIES}
#: The condition that keeps a table's live rows, by ref table.
LIVE = {MESSAGE: "evicted_at IS NULL", MEMORY: "deleted_at IS NULL"}
_TABLES = {MESSAGE: "messages", MEMORY: "memories"}
#: Rowids per ``IN (...)`` list.
CHUNK = 4096


def stored_json(columns: Columns) -> Columns:
    """``columns`` reading metadata and tags from PostgreSQL's jsonb copies (migration 0012:
    ``metadata_jsonb``, ``tags_jsonb``), which a filter reads without a cast per row."""
    meta, tags = columns.column("metadata"), columns.column("tags")
    return columns.replaced(
        metadata=None if meta is None else f"{meta}_jsonb",
        tags=None if tags is None else f"{tags}_jsonb",
    )


def narrowing(where: Filter | None, d: Dialect, columns: Columns) -> tuple[str, list[Any]]:
    """``" AND (fragment)"`` and its parameters for ``where``; ``("", [])`` without one. On
    PostgreSQL the fragment reads the jsonb copies of the JSON columns (:func:`stored_json`)."""
    if where is None or where == EVERYTHING:
        return "", []
    frag = to_sql(where, d, stored_json(columns) if d.name == "postgresql" else columns)
    return f" AND ({frag.sql})", list(frag.params)


def matching_rowids(c: Tx, tenant: str, user_id: str, where: Filter) -> dict[int, np.ndarray]:
    """The rowids of the user's live rows in each table (MESSAGE, MEMORY) that match
    ``where``, sorted."""
    q = c.dialect.mark
    out: dict[int, np.ndarray] = {}
    for table, name in _TABLES.items():
        extra, args = narrowing(where, c.dialect, COLUMNS[table])
        found = c.execute(
            f"SELECT rowid FROM {name} WHERE tenant={q} AND user_id={q} AND {LIVE[table]}{extra}",
            [tenant, user_id, *args],
        ).fetchall()
        out[table] = np.sort(np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found)))
    return out


def matching_among(c: Tx, tenant: str, where: Filter, refs: list[Ref]) -> set[Ref]:
    """The refs among ``refs`` (rows of ``tenant``) that are live and match ``where``; the
    filter is evaluated on those rows only."""
    q = c.dialect.mark
    out: set[Ref] = set()
    for table, name in _TABLES.items():
        extra, args = narrowing(where, c.dialect, COLUMNS[table])
        wanted = list(dict.fromkeys(r for t, r in refs if t == table))
        for start in range(0, len(wanted), CHUNK):
            part = wanted[start : start + CHUNK]
            found = c.execute(  # looked up by rowid, never by the tenant's index
                f"SELECT rowid FROM {name} WHERE rowid IN ({c.dialect.marks(len(part))})"
                f" AND {c.dialect.unindexed('tenant')}={q} AND {LIVE[table]}{extra}",
                [*part, tenant, *args],
            ).fetchall()
            out.update((table, r[0]) for r in found)
    return out


__all__ = [
    "CHUNK",
    "COLUMNS",
    "LIVE",
    "MEMORIES",
    "MESSAGES",
    "matching_among",
    "matching_rowids",
    "narrowing",
    "stored_json",
]
