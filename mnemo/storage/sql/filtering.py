"""The rows of a read scope that match its filter, as the in-process side of a search asks
for them: every rowid of a user's scope (the vector index is masked with them), or which of
a few given rows are in the scope.

The conditions are the scope's (:mod:`mnemo.storage.sql.scoping`), owner first, so a filter
only narrows what the caller may see.
"""

from __future__ import annotations

import numpy as np

from mnemo.storage.base import Ref
from mnemo.storage.scope import ReadScope
from mnemo.storage.sql import scoping
from mnemo.storage.sql.tx import Tx

#: Rowids per ``IN (...)`` list.
CHUNK = 4096


def matching_rowids(c: Tx, scope: ReadScope) -> dict[int, np.ndarray]:
    """The rowids of the rows of ``scope`` in each table (MESSAGE, MEMORY), sorted."""
    out: dict[int, np.ndarray] = {}
    for table, name in scoping.TABLES.items():
        where = scoping.condition(scope, table, c.dialect)
        found = c.execute(f"SELECT rowid FROM {name} WHERE {where.sql}", where.args).fetchall()
        out[table] = np.sort(np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found)))
    return out


def matching_among(c: Tx, scope: ReadScope, refs: list[Ref]) -> set[Ref]:
    """The refs among ``refs`` that are rows of ``scope``; the scope's conditions are
    evaluated on those rows only (looked up by rowid, never by the tenant's index)."""
    d = c.dialect
    out: set[Ref] = set()
    for table, name in scoping.TABLES.items():
        where = (
            scoping.owner(scope, d, tenant_index=False)
            & scoping.live(scope, table, d)
            & scoping.narrowing(scope, table, d)
        )
        wanted = list(dict.fromkeys(r for t, r in refs if t == table))
        for start in range(0, len(wanted), CHUNK):
            part = wanted[start : start + CHUNK]
            found = c.execute(
                f"SELECT rowid FROM {name} WHERE rowid IN ({d.marks(len(part))}) AND {where.sql}",
                [*part, *where.args],
            ).fetchall()
            out.update((table, r[0]) for r in found)
    return out


__all__ = ["CHUNK", "matching_among", "matching_rowids"]
