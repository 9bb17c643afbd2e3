"""Embedding texts for a store, reusing the vectors one tenant already holds for the same text.

Reuse is scoped to the tenant: a text another tenant stored is embedded again. Otherwise a
write's latency would tell a tenant whether any other tenant had stored that exact text
(milliseconds against an embedding call).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from mnemo.embedders import Embedder, content_hash
from mnemo.storage.ports.search import SearchSource

Progress = Callable[[int], None]


class Embedding:
    """The embedder of one store: ``embedding(texts)`` -> (content hashes, vectors).

    A text whose ``content_hash`` the store already holds a vector for in ``tenant``'s rows
    (made by this embedder) is not embedded again; ``progress`` counts those as done at the end.
    """

    def __init__(self, store: SearchSource, embedder: Embedder, tenant: str) -> None:
        self.store = store
        self.embedder = embedder
        self.tenant = tenant
        #: vectors made ahead of the writes that need them (see :meth:`prefetched`)
        self._ready: dict[str, np.ndarray] = {}

    @property
    def id(self) -> str:
        """The embedder's id, stored with every vector it makes."""
        return self.embedder.id

    def __call__(
        self, texts: list[str], progress: Progress | None = None
    ) -> tuple[list[str], np.ndarray]:
        """Content hashes and vectors; texts already embedded by this embedder are reused."""
        hashes = [content_hash(t) for t in texts]
        ready = {h: self._ready[h] for h in hashes if h in self._ready}
        rest = [h for h in hashes if h not in ready]
        known = {**self.store.embeddings_for(self.tenant, self.embedder.id, rest), **ready}
        todo = list(dict.fromkeys(h for h in hashes if h not in known))
        if todo:
            first = {h: t for h, t in zip(hashes, texts, strict=True)}
            fresh = self.embedder.embed([first[h] for h in todo], progress)
            known.update(zip(todo, fresh, strict=True))
        if progress is not None and len(texts) > len(todo):
            progress(len(texts) - len(todo))
        if not texts:
            return hashes, np.zeros((0, self.embedder.dim), np.float32)
        return hashes, np.stack([known[h] for h in hashes])

    @contextmanager
    def prefetched(self, texts: list[str]) -> Iterator[None]:
        """Embed ``texts`` now, in batches, and serve their vectors to the calls made inside
        the block: a writer that stores one row per call (``Memory.add``) gets batch speed."""
        hashes, vectors = self(texts)
        self._ready = dict(zip(hashes, vectors, strict=True))
        try:
            yield
        finally:
            self._ready = {}
