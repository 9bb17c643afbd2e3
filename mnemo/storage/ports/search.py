"""The search-source port (``store.search``): what retrieval reads (full text, vectors, hit
fields).

:class:`SearchRows` is the part a search ranks from: full-text candidates and their idf, the
rows of a scope, hit fields. A search as of a past time reads the store through another
:class:`SearchRows` (:class:`mnemo.retrieval.asof.PastSource`); :class:`SearchSource` adds
what only the store has: its clock, vectors and the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from mnemo.storage.base import MemoryVersion, Ref, VectorRows, VectorState
from mnemo.storage.clock import Clock
from mnemo.storage.scope import ReadScope


@dataclass(frozen=True)
class VectorLoad:
    """The embedded live rows of a user made by ``embedder``, newer than ``after`` (None:
    from the first) and no newer than ``upto``."""

    tenant: str
    user_id: str
    embedder: str
    after: VectorState | None
    upto: VectorState


class SearchRows(Protocol):
    """The rows a search ranks: full-text candidates, the rows of a scope, hit fields."""

    def lexical(self, scope: ReadScope, terms: list[str], limit: int) -> list[tuple[Ref, float]]:
        """BM25 candidates for rows holding any of the query's ``terms`` (lower-case words,
        :func:`mnemo.retrieval.lexical.query_terms`) among the rows of ``scope`` (one user's;
        "now" by the store's clock unless the scope names its time), best first; scores are
        higher-is-better. The scope's filter applies before the limit."""
        ...

    def matching_rowids(self, scope: ReadScope) -> dict[int, np.ndarray]:
        """The sorted rowids of the rows of ``scope`` in each table (MESSAGE, MEMORY)."""
        ...

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """Sum over the query's terms of the idf ``lexical``'s BM25 gives each, per full-text
        table (MESSAGE, MEMORY): the BM25 an average-length row holding every term once
        would score."""
        ...

    def matching_among(self, scope: ReadScope, refs: list[Ref]) -> set[Ref]:
        """The refs among ``refs`` that are rows of ``scope``, its conditions evaluated on
        those rows only."""
        ...

    def fetch(self, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """Row fields for the given refs (those still present)."""
        ...


class SearchSource(SearchRows, Protocol):
    """Candidates, vectors and row fields for the retrieval pipeline and the vector index."""

    @property
    def clock(self) -> Clock:
        """The store's clock: rows expired by it are out of every read."""
        ...

    def vector_state(self, tenant: str, user_id: str) -> VectorState:
        """The current generation and insert high-water marks of a user's vectors."""
        ...

    def load_vectors(self, load: VectorLoad) -> VectorRows:
        """The rows ``load`` asks for, in (``after``, ``upto``]."""
        ...

    def embeddings_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Already-stored vectors of ``tenant``'s rows for content hashes made by ``embedder``
        (``tenant`` None: any tenant's, for maintenance no tenant can time)."""
        ...

    def key_vectors_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Stored extra keys (at least one) of ``tenant``'s messages by content hash, made by
        ``embedder`` (``tenant`` None: any tenant's)."""
        ...

    def memory_versions(self, tenant: str, user_id: str, at: str) -> list[MemoryVersion]:
        """A user's memories created at or before ``at`` (a stored time) and changed after it,
        each in its version current at ``at`` (see :mod:`mnemo.storage.sql.asof`)."""
        ...

    def embedders_in_use(self) -> list[str]:
        """Distinct embedder ids of stored vectors."""
        ...

    def turn_cues(self, rowids: list[int]) -> dict[int, tuple[str | None, str]]:
        """Each live turn's stored name cues (None: not computed by the current rules) and,
        for those only, its text (else ""), by rowid."""
        ...

    def count_items(self, tenant: str, user_id: str, session_id: str) -> int:
        """Messages plus live memories in one session."""
        ...


__all__ = ["SearchRows", "SearchSource", "VectorLoad"]
