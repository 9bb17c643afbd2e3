"""One page of a listing, the way every surface pages: :class:`Page`.

``Memory``'s list-like operations (``list_page``, ``messages_page``, ``users_page``,
``sessions_page``, ``jobs_page``) return a ``Page``: the rows, how many match in all, where the
page starts and where the next one starts. The REST API, the MCP tools, the web UI and the CLI
read these fields and never compute a position themselves, so they all page alike and can all
say "20 of 85".

A position is an offset (``offset`` in, ``next_offset`` out) or an opaque cursor (``cursor=``
in, ``next_cursor`` out; :mod:`mnemo.memory.cursors`). A cursor holds the last row's sort key,
so the next page starts after that row even when rows were written or deleted meanwhile, where
an offset would shift; it is bound to its listing, query and tenant. Each surface reads a page
in exactly one place (the REST and MCP models' ``of``, the UI's ``pager`` macro, ``mnemo
list``'s footer), and none computes a position.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Generic, TypeVar

from pydantic import BaseModel, Field, computed_field

from mnemo.list_query import MAX_ROWS, window_limit, window_offset
from mnemo.storage.base import ListFilter

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    """One page of a listing: ``items``, out of ``total`` matching rows, starting at
    ``offset``; ``next_offset`` and ``next_cursor`` are where the next page starts (None on
    the last page)."""

    items: list[T] = Field(description="The rows of this page, in the listing's order.")
    total: int = Field(description="How many rows match the listing, on every page.")
    limit: int = Field(description="The most rows a page holds.")
    offset: int = Field(description="Position of the first row of this page (0-based).")
    next_offset: int | None = Field(
        default=None, description="Position of the next page's first row; None on the last."
    )
    next_cursor: str | None = Field(
        default=None,
        description="Opaque cursor of the next page (pass it as `cursor`); None on the last. "
        "It stays correct while rows are written between pages.",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def has_more(self) -> bool:
        """True when a next page exists."""
        return self.next_offset is not None

    @property
    def prev_offset(self) -> int | None:
        """Position of the previous page's first row; None on the first page."""
        return max(0, self.offset - self.limit) if self.offset else None

    def shown(self) -> str:
        """What this page shows of the whole: ``"20 of 85"``, ``"21-40 of 85"``, ``"0 of 0"``."""
        if not self.items:
            return f"0 of {self.total}"
        first, last = self.offset + 1, self.offset + len(self.items)
        return f"{last} of {self.total}" if first == 1 else f"{first}-{last} of {self.total}"


def check_window(limit: object, offset: object) -> tuple[int, int]:
    """``(limit, offset)`` of a listing call; ValidationError unless the limit is an integer in
    [1, 10000] and the offset one in [0, 10000000] (the bounds of :mod:`mnemo.list_query`)."""
    return window_limit(limit), window_offset(offset)


def page_of(
    fetch: Callable[[int, int], Sequence[T]],
    count: Callable[[], int],
    limit: int,
    offset: int,
    mark: Callable[[T, int], str] | None = None,
) -> Page[T]:
    """The page of ``limit`` rows from ``offset``: ``fetch(n, offset)`` reads up to ``n`` rows
    from there, and one more than the limit is read to know whether a next page exists;
    ``count()`` gives the total (never taken as less than what the fetch saw, should rows be
    written between the two reads). ``mark(last_row, next_offset)`` makes the next page's
    cursor."""
    rows = fetch(limit + 1, offset)
    more = len(rows) > limit
    items = list(rows[:limit])
    seen = offset + len(items) + int(more) if items else 0  # rows exist at least this far
    return Page[T](
        items=items,
        total=max(count(), seen),
        limit=limit,
        offset=offset,
        next_offset=offset + limit if more else None,
        next_cursor=mark(items[-1], offset + limit) if more and mark else None,
    )


def filter_page(
    fetch: Callable[[ListFilter], Sequence[T]],
    count: Callable[[ListFilter], int],
    flt: ListFilter,
    mark: Callable[[T, int], str] | None = None,
) -> Page[T]:
    """The page a listing filter selects (its limit, and its offset or cursor position), read
    by ``fetch`` and counted by ``count`` (a store's ``list_*`` and ``count_*``); ``mark`` as
    in :func:`page_of`."""
    shown = flt.offset if flt.after is None else flt.after.position + flt.offset
    return page_of(
        lambda n, at: fetch(replace(flt, limit=n)),
        lambda: count(replace(flt, after=None)),
        flt.limit,
        shown,
        mark,
    )


__all__ = ["MAX_ROWS", "Page", "check_window", "filter_page", "page_of"]
