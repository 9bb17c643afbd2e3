"""The maintenance port: what ``mnemo reembed`` and ``mnemo repair`` need from a store.

Every method is one transaction and selects its own work, so a maintenance run that is killed
resumes where it stopped. Vectors are re-embedded per table in :data:`VECTOR_TABLES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mnemo.storage.ports.search import SearchSource

#: Tables whose rows carry a vector made from their text (topics are folded, not embedded).
VECTOR_TABLES = ("messages", "memories", "document_chunks")


@dataclass(frozen=True)
class TextRow:
    """A row whose vector is to be (re)built: its key columns and its text."""

    key: tuple[int, ...]
    text: str


@dataclass(frozen=True)
class NewVector:
    """A rebuilt vector of one row; ``content_hash`` is the hash of the text it embeds."""

    key: tuple[int, ...]
    vector: np.ndarray
    content_hash: str


@dataclass(frozen=True)
class KeylessTurn:
    """A stored turn whose extra index keys were never computed."""

    rowid: int
    role: str
    content: str
    content_hash: str


class Maintenance(Protocol):
    """Batches of rows to re-embed, re-key or repair, and the writes that fix them."""

    def stale_counts(self, embedder_id: str) -> dict[str, int]:
        """Rows per table (and ``topics``) whose vector another embedder made."""
        ...

    def missing_counts(self) -> dict[str, int]:
        """Rows per table of :data:`VECTOR_TABLES` with text but no vector."""
        ...

    def text_batch(self, table: str, embedder_id: str, size: int, missing: bool) -> list[TextRow]:
        """The next ``size`` rows of ``table`` whose vector another embedder made (or, with
        ``missing``, that have none), in key order."""
        ...

    def write_vectors(self, table: str, embedder_id: str, rows: list[NewVector]) -> None:
        """Store rebuilt vectors; a turn's extra keys are cleared (the old embedder made them)."""
        ...

    def refold_topics(self, embedder_id: str) -> int:
        """Recompute stale topic vectors as the mean of their linked user turns' vectors, bump
        every generation; returns how many topics."""
        ...

    def keyless_count(self, embedder_id: str) -> int:
        """Turns by ``embedder_id`` whose extra keys were never computed."""
        ...

    def keyless_batch(self, embedder_id: str, after: int, size: int) -> list[KeylessTurn]:
        """The next ``size`` such turns with a rowid above ``after``, in rowid order."""
        ...

    def write_keys(self, keys: list[tuple[int, np.ndarray | None]]) -> None:
        """Store the keys of turns by rowid (None: the turn needs none)."""
        ...

    def repair_rows(self, dry_run: bool) -> dict[str, int]:
        """Count, and unless ``dry_run`` fix, drift of derived rows (full-text tables where the
        backend keeps them, missing ``users`` rows); a count per kind of drift."""
        ...

    def refresh_turn_rules(self) -> int:
        """Compute the stored kind and name cues of turns whose stored ones are missing or
        of other rules (see mnemo.text.turn_rules); returns how many."""
        ...

    def bump_generations(self) -> None:
        """Advance every user's generation: cached vector indexes reload."""
        ...


class Maintainable(Protocol):
    """A store as the maintenance commands use it: its batches and fixes, plus the stored
    vectors and keys they reuse."""

    @property
    def search(self) -> SearchSource:
        """The stored vectors and keys (by content hash) a run reuses."""
        ...

    @property
    def maintenance(self) -> Maintenance:
        """Batches and fixes for ``mnemo reembed`` and ``mnemo repair``."""
        ...


__all__ = ["VECTOR_TABLES", "KeylessTurn", "Maintainable", "Maintenance", "NewVector", "TextRow"]
