"""Expiry in SQL, both dialects: which turns and memories are still live at a time.

A row with ``expires_at`` at or before "now" (the store clock) is out of every read from that
moment: :func:`live` is the condition a read scope compiles to (``storage.sql.scoping``;
a scope that names no time is bound to the store's now by
``storage.scope.ReadScope.at_clock``). Removing expired rows for good is
:mod:`mnemo.storage.sql.sweep`.
"""

from __future__ import annotations

from mnemo.storage.sql.dialect import Dialect


def live(d: Dialect, column: str = "expires_at") -> str:
    """The condition "not expired at the bound time" (one placeholder: the time text)."""
    return f"({column} IS NULL OR {column} > {d.mark})"


__all__ = ["live"]
