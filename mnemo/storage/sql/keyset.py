"""Keyset conditions of page cursors (both stores): the rows after a page's last row, in the
listing's order (:class:`~mnemo.storage.base.Keyset`).

Row values compare a sort key column by column, as the ORDER BY does, on SQLite and
PostgreSQL alike. A memory's key is ``(created_at, rowid)`` (its listing breaks ties of
``created_at`` by ``rowid``; :func:`memory_rowid` reads it), a turn's
``(created_at, session_id, seq)``. The key is copied into the cursor, so the position holds
even when the row it came from is erased before the next page is read.
"""

from __future__ import annotations

from typing import Any

from mnemo.storage.base import ListFilter
from mnemo.storage.sql.dialect import Dialect
from mnemo.storage.sql.tx import Tx


def memories_after(flt: ListFilter, d: Dialect) -> tuple[list[str], list[Any]]:
    """The condition (none without a keyset) that keeps the memories listed after the keyset
    of ``flt``, in the listing's order (``created_at DESC, rowid DESC``)."""
    if flt.after is None:
        return [], []
    q = d.mark
    return [f"(created_at, rowid) < ({q}, {q})"], list(flt.after.key)


def memory_rowid(c: Tx, tenant: str, memory_id: str) -> int | None:
    """The rowid of a memory (deleted ones too), or None."""
    q = c.dialect.mark
    sql = f"SELECT rowid FROM memories WHERE tenant = {q} AND id = {q}"
    r = c.execute(sql, (tenant, memory_id)).fetchone()
    return None if r is None else int(r[0])


def messages_after(flt: ListFilter, d: Dialect, forward: bool) -> tuple[list[str], list[Any]]:
    """The condition (none without a keyset) that keeps the turns listed after the keyset of
    ``flt``: in conversation order (``forward``) or newest first."""
    if flt.after is None:
        return [], []
    q = d.mark
    sign = ">" if forward else "<"
    return [f"(created_at, session_id, seq) {sign} ({q}, {q}, {q})"], list(flt.after.key)


__all__ = ["memories_after", "memory_rowid", "messages_after"]
