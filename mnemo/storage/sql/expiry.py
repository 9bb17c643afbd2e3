"""Expiry in SQL, both dialects: which turns and memories are still live at a time.

A row with ``expires_at`` at or before "now" (the store clock) is out of every read from that
moment: :func:`live` is the condition listings, counts and full-text candidates add. Removing
expired rows for good is :mod:`mnemo.storage.sql.sweep`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mnemo.schemas import format_time
from mnemo.storage.base import ListFilter
from mnemo.storage.clock import Clock
from mnemo.storage.sql.dialect import Dialect


def live(d: Dialect, column: str = "expires_at") -> str:
    """The condition "not expired at the bound time" (one placeholder: the time text)."""
    return f"({column} IS NULL OR {column} > {d.mark})"


def at_clock(flt: ListFilter, clock: Clock) -> ListFilter:
    """``flt`` bound to the clock's now, unless it names its own time already."""
    return flt if flt.live_at is not None else replace(flt, live_at=format_time(clock()))


def list_condition(flt: ListFilter, d: Dialect) -> tuple[list[str], list[Any]]:
    """The WHERE clause (none or one) and argument that leave out rows expired at
    the filter's ``live_at``."""
    if flt.live_at is None:
        return [], []
    return [live(d)], [flt.live_at]


__all__ = ["at_clock", "list_condition", "live"]
