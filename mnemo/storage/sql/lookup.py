"""The key lookup both stores' table rows share: keys in chunks, one statement a chunk.

:meth:`~mnemo.storage.ports.tables.TableRows.lookup` is written once here; a backend says how
many keys go in one statement (:attr:`ChunkedLookup.lookup_chunk`) and reads one chunk's rows
(:meth:`ChunkedLookup.lookup_rows`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

#: The values of a row's key columns.
Key = tuple[Any, ...]


class ChunkedLookup:
    """``lookup`` over a backend's :meth:`lookup_rows`, :attr:`lookup_chunk` keys at a time."""

    #: Keys per statement.
    lookup_chunk: int = 500

    def lookup(
        self,
        table: str,
        key_cols: Sequence[str],
        keys: Sequence[tuple[Any, ...]],
        out_cols: Sequence[str],
    ) -> dict[tuple[Any, ...], tuple[Any, ...]]:
        """The rows of ``table`` whose ``key_cols`` values are among ``keys``: key -> the
        values of ``out_cols`` (one row per key; keys are unique in the tables this is asked
        of). Inside :meth:`writing` they include the rows written so far."""
        width = len(key_cols)
        found: dict[Key, tuple[Any, ...]] = {}
        for start in range(0, len(keys), self.lookup_chunk):
            chunk = keys[start : start + self.lookup_chunk]
            for values in self.lookup_rows(table, key_cols, chunk, out_cols):
                found[tuple(values[:width])] = tuple(values[width:])
        return found

    def lookup_rows(
        self, table: str, key_cols: Sequence[str], chunk: Sequence[Key], out_cols: Sequence[str]
    ) -> Iterable[Sequence[Any]]:
        """The ``key_cols`` then ``out_cols`` values of the rows whose key is in ``chunk``."""
        raise NotImplementedError


__all__ = ["ChunkedLookup", "Key"]
