"""The key lookup both stores' table rows share: keys in chunks, one statement a chunk.

:meth:`~mnemo.storage.ports.tables.TableRows.lookup` is written once here; a backend says how
many keys go in one statement (:attr:`ChunkedLookup.lookup_chunk`) and reads one chunk's rows
(:meth:`ChunkedLookup.lookup_rows`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from mnemo.storage.ports.tables import KeyLookup

#: The values of a row's key columns.
Key = tuple[Any, ...]


class ChunkedLookup:
    """``lookup`` over a backend's :meth:`lookup_rows`, :attr:`lookup_chunk` keys at a time."""

    #: Keys per statement.
    lookup_chunk: int = 500

    def lookup(self, q: KeyLookup) -> dict[Key, tuple[Any, ...]]:
        """:meth:`~mnemo.storage.ports.tables.TableRows.lookup`, a chunk of keys at a time."""
        width = len(q.key_cols)
        found: dict[Key, tuple[Any, ...]] = {}
        for start in range(0, len(q.keys), self.lookup_chunk):
            chunk = replace(q, keys=q.keys[start : start + self.lookup_chunk])
            for values in self.lookup_rows(chunk):
                found[tuple(values[:width])] = tuple(values[width:])
        return found

    def lookup_rows(self, q: KeyLookup) -> Iterable[Sequence[Any]]:
        """The ``key_cols`` then ``out_cols`` values of the rows ``q`` (a chunk) looks up."""
        raise NotImplementedError


__all__ = ["ChunkedLookup", "Key"]
