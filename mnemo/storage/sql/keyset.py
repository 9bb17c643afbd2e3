"""Keyset conditions of page cursors (both stores): the rows after a page's last row, in the
listing's order (:class:`~mnemo.storage.base.Keyset`).

Row values compare a sort key column by column, as the ORDER BY does, on SQLite and
PostgreSQL alike. A memory's key is ``(created_at, id)``; its listing breaks ties of
``created_at`` by ``rowid``, which the condition finds from the id (should that memory have
been erased meanwhile, the rows sharing its exact time are left out rather than repeated).
"""

from __future__ import annotations

from typing import Any

from mnemo.storage.base import ListFilter
from mnemo.storage.sql.dialect import Dialect


def memories_after(flt: ListFilter, d: Dialect) -> tuple[list[str], list[Any]]:
    """The condition (none without a keyset) that keeps the memories listed after the keyset
    of ``flt``, in the listing's order (``created_at DESC, rowid DESC``)."""
    if flt.after is None:
        return [], []
    created_at, memory_id = flt.after.key
    q = d.mark
    anchor = f"(SELECT k.rowid FROM memories k WHERE k.tenant = {q} AND k.id = {q})"
    return [f"(created_at, rowid) < ({q}, {anchor})"], [created_at, flt.tenant, memory_id]


def messages_after(flt: ListFilter, d: Dialect, forward: bool) -> tuple[list[str], list[Any]]:
    """The condition (none without a keyset) that keeps the turns listed after the keyset of
    ``flt``: in conversation order (``forward``) or newest first."""
    if flt.after is None:
        return [], []
    q = d.mark
    sign = ">" if forward else "<"
    return [f"(created_at, session_id, seq) {sign} ({q}, {q}, {q})"], list(flt.after.key)


__all__ = ["memories_after", "messages_after"]
