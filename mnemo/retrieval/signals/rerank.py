"""The reranker signal: a cross-encoder rescores the best candidates (see retrieval.rerank)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mnemo.config.search import RetrievalSettings
from mnemo.retrieval.rerank import Reranker, rerank_blend, sigmoid, top_n
from mnemo.retrieval.signals.base import Ranking, Signal
from mnemo.storage.base import Ref


class Rerank(Signal):
    """The reranker's score blended into the relevance of the ``rerank_top_n`` best
    candidates, its raw score shown on each (``rerank``):

    rel' = (1 - w) x rel + w x (lo + (hi - lo) x (s - s_min) / (s_max - s_min)), w =
    ``rerank_weight``, lo/hi the rescored set's relevance range
    (:func:`mnemo.retrieval.rerank.rerank_blend`); with ``rerank_relevance = "sigmoid"``
    (`agent-cli`) every candidate is rescored and rel' = 1 / (1 + exp(-s))
    (:func:`mnemo.retrieval.rerank.sigmoid`). It reads the candidates' texts from the store;
    a candidate erased meanwhile is not rescored (and, under sigmoid, left out).
    """

    name = "rerank"
    switches: ClassVar[tuple[str, ...]] = ("reranker",)

    def __init__(self, settings: RetrievalSettings, reranker: Reranker | None) -> None:
        self.reranker = reranker
        self.as_sigmoid = settings.rerank_relevance == "sigmoid"
        self.top_n = settings.rerank_top_n
        self.weight = settings.rerank_weight

    @property
    def active(self) -> bool:
        """On when there is a reranker (``reranker`` names one)."""
        return self.reranker is not None

    def apply(self, ranking: Ranking, relevance: dict[Ref, float]) -> dict[Ref, float]:
        """The rescored relevance; each rescored candidate's raw score noted."""
        if self.reranker is None:
            return relevance
        best = list(relevance) if self.as_sigmoid else top_n(relevance, self.top_n)
        rows = ranking.store.fetch(best)
        head = [r for r in best if r in rows]  # a row erased meanwhile is not rescored
        if not head:
            return {} if self.as_sigmoid else relevance
        raw = self.reranker.score(ranking.req.query, [str(rows[r]["content"]) for r in head])
        for r, v in zip(head, raw, strict=True):
            ranking.note(r, "rerank", float(v))
        if self.as_sigmoid:
            return {r: float(v) for r, v in zip(head, sigmoid(raw), strict=True)}
        blended = rerank_blend(np.array([relevance[r] for r in head]), raw, self.weight)
        out = dict(relevance)
        out.update({r: float(v) for r, v in zip(head, blended, strict=True)})
        return out


__all__ = ["Rerank"]
