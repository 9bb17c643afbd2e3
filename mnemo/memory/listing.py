"""A listing and its paged twin made from one filter method: :func:`listing`, :func:`paged`.

``records.Records.list`` and ``records.Records.list_page`` take the same arguments, as do
``messages`` and ``messages_page``. Both of a pair are made from the one method that turns
those arguments into a validated :class:`~mnemo.storage.base.ListFilter`, so the arguments are
written once. A made method carries that method's signature (``inspect.signature``, ``help()``,
the async twins of :mod:`mnemo.memory.async_memory`) with its own return annotation and
docstring.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from types import MethodType
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from mnemo.memory import cursors
from mnemo.memory.paging import Page, filter_page
from mnemo.storage.base import ListFilter
from mnemo.storage.ports.store import Store

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S", bound="HasStore")
F = TypeVar("F", bound=Callable[..., Any])

#: A store's ``list_*`` (``count_*``) method, taken from the store: ``lambda s: s.list_memories``.
Rows = Callable[[Store], Callable[[ListFilter], Sequence[T]]]
Count = Callable[[Store], Callable[[ListFilter], int]]


class HasStore(Protocol):
    """A service whose listings read ``store``."""

    store: Store


def listing(
    make: Callable[Concatenate[S, P], ListFilter], rows: Rows[T], returns: str, doc: str
) -> Callable[Concatenate[S, P], list[T]]:
    """A method taking ``make``'s arguments that returns the rows its filter selects (read by
    ``rows``); ``returns`` is its return annotation as written, ``doc`` its docstring."""

    def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> list[T]:
        return list(rows(self.store)(make(self, *args, **kwargs)))

    return _dressed(call, make, returns, doc)


def paged(
    make: Callable[Concatenate[S, P], ListFilter],
    rows: Rows[T],
    count: Count,
    returns: str,
    doc: str,
    name: str,
    key: Callable[[Store, T], cursors.Key],
) -> Callable[Concatenate[S, P], Page[T]]:
    """As :func:`listing`, returning the :class:`~mnemo.memory.paging.Page` the filter's limit
    and offset (or cursor) select, its total counted by ``count``; its next page's cursor
    binds the listing ``name``, the filter's query and the last row's sort ``key`` (read
    with the store)."""

    def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> Page[T]:
        flt = make(self, *args, **kwargs)
        params = cursors.query_params(flt)

        def mark(row: T, position: int) -> str:
            return cursors.mark(name, flt.scope.tenant, params, key(self.store, row), position)

        return filter_page(rows(self.store), count(self.store), flt, mark)

    return _dressed(call, make, returns, doc)


def _dressed(call: F, make: Callable[..., Any], returns: str, doc: str) -> F:
    """``call`` with ``make``'s signature and annotations but ``returns`` and ``doc``, named
    by the class attribute it is assigned to."""
    call.__signature__ = inspect.signature(make).replace(  # type: ignore[attr-defined]
        return_annotation=returns
    )
    call.__annotations__ = {**make.__annotations__, "return": returns}
    call.__doc__ = inspect.cleandoc(doc)
    call.__module__ = make.__module__
    return cast(F, _Named(call))  # looked up on a class or instance, it is ``call`` again


class _Named:
    """A method that takes the name of the class attribute it is assigned to (Python calls
    ``__set_name__`` on descriptors, not on plain functions)."""

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func

    def __set_name__(self, owner: type, name: str) -> None:
        self.func.__name__ = name
        self.func.__qualname__ = f"{owner.__qualname__}.{name}"

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        return self.func if obj is None else MethodType(self.func, obj)


__all__ = ["HasStore", "listing", "paged"]
