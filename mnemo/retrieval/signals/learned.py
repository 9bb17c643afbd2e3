"""The learned last stage: a model fitted on the development splits orders the pool."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from mnemo.config.search import RetrievalSettings
from mnemo.retrieval import pool_features
from mnemo.retrieval.ranker_model import RankerModel
from mnemo.retrieval.relevance import RelevanceModel
from mnemo.retrieval.signals.base import Ranking, Signal
from mnemo.schemas import Hit
from mnemo.storage.base import Ref


class Learned(Signal):
    """The last stage: the search's best ``ranker_depth`` distinct hits in the order of every
    stage before, re-ordered by the probability that each is evidence for the query,

    rel'(d) = rel(d) through the fusion and the other signals; then, after de-duplication,
    p(d) = model(features(d)) (:mod:`mnemo.retrieval.ranker_model` over
    :mod:`mnemo.retrieval.pool_features`), the hits ordered by p (the earlier order breaks
    ties, so a newer turn still beats an older equal one), and ``hit.relevance`` =
    ``hit.score`` = p, shown as ``scores["learned"]``.

    On when ``ranker_depth`` is above 0 and the embedder has a fitted model; any other
    embedder keeps the order of the stages before, and so does a search with fewer than
    ``ranker_depth`` distinct hits (a short history: the model saw full pools only).
    """

    name = "learned"
    switches: ClassVar[tuple[str, ...]] = ("ranker_depth",)

    def __init__(self, settings: RetrievalSettings, model: RankerModel | None) -> None:
        self.depth = settings.ranker_depth
        self.model = model

    @property
    def active(self) -> bool:
        """On with a depth above 0 and a model."""
        return self.depth > 0 and self.model is not None

    def apply(self, ranking: Ranking, relevance: dict[Ref, float]) -> dict[Ref, float]:
        """The relevance unchanged: this stage orders hits, after de-duplication."""
        return relevance

    def order(
        self, hits: Sequence[Hit], query: str, calibration: RelevanceModel | None
    ) -> list[Hit]:
        """``hits`` ordered by the model's probability, each hit's score and relevance set
        to it (``calibration``: the embedder's relevance model, one of the features)."""
        if self.model is None or not hits:
            return list(hits)
        p = self.model.probability(pool_features.matrix(hits, query, calibration, self.depth))
        order = np.argsort(-p, kind="stable")
        out = []
        for i in order:
            hit = hits[int(i)]
            value = round(float(p[i]), 6)
            hit.scores["learned"] = value
            hit.score = value
            hit.relevance = value
            hit.calibrated = True
            out.append(hit)
        return out


__all__ = ["Learned"]
