"""How a listing of the store reads its rows and its pages: :class:`Listing`.

The listings of :class:`~mnemo.memory.records.Records`, ``list`` / ``list_page`` (memories)
and ``messages`` / ``messages_page`` (turns), each validate their arguments into one query
(:mod:`mnemo.list_query`), turn it into a
:class:`~mnemo.storage.base.ListFilter`, and hand that to their :class:`Listing`: the rows
(:meth:`Listing.rows`) or the :class:`~mnemo.memory.paging.Page` with its total and the next
page's cursor (:meth:`Listing.page`). A listing resumes from a cursor only of its own name and
query (:meth:`Listing.resume`, :mod:`mnemo.memory.cursors`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from mnemo.memory import cursors
from mnemo.memory.paging import Page, filter_page
from mnemo.storage.base import ListFilter
from mnemo.storage.ports.store import Store

T = TypeVar("T")


@dataclass(frozen=True)
class Listing(Generic[T]):
    """One listing of the store: its ``name`` (what its cursors bind), how it reads the rows
    of a filter (``read``: the store's ``list_*``) and counts them (``count``: its
    ``count_*``), and a row's sort ``key`` (read with the store)."""

    name: str
    read: Callable[[Store], Callable[[ListFilter], Sequence[T]]]
    count: Callable[[Store], Callable[[ListFilter], int]]
    key: Callable[[Store, T], cursors.Key]

    def resume(self, flt: ListFilter, cursor: str | None) -> ListFilter:
        """``flt`` resumed where ``cursor`` (of this listing and query) left off;
        ValidationError for another query's cursor or a cursor with an offset."""
        params = cursors.query_params(flt)
        flt.after = cursors.resume(cursor, self.name, flt.scope.tenant, params, flt.offset)
        return flt

    def rows(self, store: Store, flt: ListFilter) -> list[T]:
        """The rows ``flt`` selects, in the listing's order."""
        return list(self.read(store)(flt))

    def page(self, store: Store, flt: ListFilter) -> Page[T]:
        """The :class:`~mnemo.memory.paging.Page` ``flt``'s limit and offset (or cursor)
        select, with its total; its next page's cursor binds this listing, the filter's
        query and the last row's sort key."""
        params = cursors.query_params(flt)

        def mark(row: T, position: int) -> str:
            return cursors.mark(self.name, flt.scope.tenant, params, self.key(store, row), position)

        return filter_page(self.read(store), self.count(store), flt, mark)


__all__ = ["Listing"]
