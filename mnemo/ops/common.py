"""What the maintenance commands share: the store's SQL connections and progress bars."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from mnemo.storage.base import Store

#: Advances a progress bar by n rows.
Advance = Callable[[int], None]
#: Makes a progress bar from a label and a total.
ProgressFactory = Callable[[str, int], AbstractContextManager[Advance]]


def store_db(store: Store) -> Any:
    """The store's ``Connections`` (SQLite) or its sqlite3-speaking PostgreSQL pool."""
    return getattr(store, "compat", None) or store.db  # type: ignore[attr-defined]


def bar(factory: ProgressFactory | None, label: str, total: int) -> AbstractContextManager[Advance]:
    """A progress bar from ``factory``, or one that shows nothing."""
    if factory is None:
        return nullcontext(lambda n: None)
    return factory(label, total)


__all__ = ["Advance", "ProgressFactory", "bar", "store_db"]
