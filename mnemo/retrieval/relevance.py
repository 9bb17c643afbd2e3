"""Calibrated relevance: the fitted probability that a hit is evidence for its query.

A hit's ``score`` is relative: min-max fusion gives the best candidate of any search a high
score, even when nothing in the store is about the query. ``hit.relevance`` is absolute: a
logistic model of the scores every hit already carries (``hit.scores``) and its position,

    p = 1 / (1 + exp(-(b0 + sum_i b_i * x_i)))

with the features

* ``cosine``    = ``scores["dense"]``, the query's cosine to the hit (0 when the hit came
  from BM25 alone);
* ``no_cosine`` = 1 when the hit has no cosine (BM25 alone), else 0;
* ``bm25``      = ln(1 + ``scores["lexical"]``), 0 without a BM25 match;
* ``fused``     = ``scores["fused"]``, the fused score after the ranking signals;
* ``speaker``   = ln ``scores["speaker_prior"]`` (0 when the prior did not apply);
* ``date``      = ln ``scores["date_prior"]`` (0 when the prior did not apply);
* ``position``  = ln(1 + i), i the hit's place in the ranking (0 for the first).

The coefficients are fitted per embedder (a cosine means something else for each) by
``bench/relevance.py`` on the development splits, with sign constraints that make ``p``
non-decreasing in ``cosine``, ``bm25``, ``fused``, ``speaker`` and ``date`` and
non-increasing in ``position``; they live in :mod:`mnemo.retrieval.relevance_model`. An
embedder without coefficients of its own (``hashing``, ``openai``, a model not fitted yet),
or a pipeline that scores another way than the one fitted (``fusion`` other than
``blend``: the seed presets), gets an uncalibrated relevance instead: its final score
clipped to [0, 1] (:func:`clipped`; the cosine under ``fusion = "cosine"``), with
``hit.calibrated`` False, and the floors of context assembly then keep its hits; fit an
embedder with ``bench/relevance.py --embedder NAME --fit``. The label is "this hit is one of
the query's evidence turns", so ``p`` is a precision: an answerable question's best hit
typically gets .2 to .6, a query about something the store never discussed less than .01.

Either way the relevances of a search's hits are made non-increasing down the list by
:func:`non_increasing` (pooling adjacent violators), so ``relevance`` is the one number a
caller reads: hits come in its order, and a threshold on it keeps a prefix of the list.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mnemo.retrieval.relevance_model import MODELS
from mnemo.schemas import Hit

#: The model's features, in the order of its coefficients.
FEATURES: tuple[str, ...] = ("cosine", "no_cosine", "bm25", "fused", "speaker", "date", "position")
#: Signs the fit is held to: +1 non-decreasing, -1 non-increasing, 0 free.
SIGNS: dict[str, int] = {
    "cosine": 1,
    "no_cosine": 0,
    "bm25": 1,
    "fused": 1,
    "speaker": 1,
    "date": 1,
    "position": -1,
}


@dataclass(frozen=True)
class RelevanceModel:
    """A fitted logistic model: ``intercept`` and one coefficient per feature name."""

    intercept: float
    coef: Mapping[str, float]

    def logit(self, x: Mapping[str, float]) -> float:
        """b0 + sum_i b_i * x_i (features missing from ``coef`` weigh 0)."""
        return self.intercept + sum(self.coef.get(k, 0.0) * v for k, v in x.items())

    def probability(self, scores: Mapping[str, float], position: int) -> float:
        """p = sigmoid(logit(features(scores, position))), in [0, 1]."""
        return sigmoid(self.logit(features(scores, position)))

    def probabilities(self, scores: Sequence[Mapping[str, float]]) -> np.ndarray:
        """p of each hit of a list (its position its index), at once (:func:`columns`)."""
        cols = columns(scores)
        z = self.intercept + sum(
            (self.coef.get(k, 0.0) * v for k, v in cols.items()), np.zeros(len(scores))
        )
        return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)))  # the sigmoid, never overflows


def sigmoid(z: float) -> float:
    """1 / (1 + exp(-z)), computed without overflow for large |z|."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def columns(scores: Sequence[Mapping[str, float]], start: int = 0) -> dict[str, np.ndarray]:
    """The model's features of a list of hits' per-stage ``scores``, the first at position
    ``start`` (see the module docstring), one array per feature."""

    def column(name: str, default: float) -> np.ndarray:
        return np.asarray([float(s.get(name, default)) for s in scores], dtype=np.float64)

    has_cosine = np.asarray([s.get("dense") is not None for s in scores], dtype=bool)
    bm25 = column("lexical", 0.0)
    return {
        "cosine": np.where(has_cosine, column("dense", 0.0), 0.0),
        "no_cosine": (~has_cosine).astype(np.float64),
        "bm25": np.log1p(np.maximum(bm25, 0.0)),
        "fused": column("fused", 0.0),
        "speaker": np.log(np.maximum(column("speaker_prior", 1.0), 1e-9)),
        "date": np.log(np.maximum(column("date_prior", 1.0), 1e-9)),
        "position": np.log1p(np.arange(start, start + len(scores), dtype=np.float64)),
    }


def features(scores: Mapping[str, float], position: int) -> dict[str, float]:
    """The model's features of a hit with per-stage ``scores`` at ``position`` (see the
    module docstring; :func:`columns` of one hit)."""
    return {k: float(v[0]) for k, v in columns([scores], max(position, 0)).items()}


def model_for(embedder_id: str) -> RelevanceModel | None:
    """The coefficients fitted for ``embedder_id`` (None when it has none)."""
    fitted = MODELS.get(embedder_id)
    if fitted is None:
        return None
    return RelevanceModel(float(fitted["intercept"]), dict(fitted["coef"]))


def clipped(score: float) -> float:
    """The uncalibrated relevance of a final ``score``: the score clipped to [0, 1]
    (under ``fusion = "cosine"``, the cosine the seed presets' thresholds cut on)."""
    return min(max(float(score), 0.0), 1.0)


def non_increasing(values: Sequence[float]) -> list[float]:
    """The least-squares non-increasing sequence nearest to ``values`` (pool adjacent
    violators): each run of values that rises is replaced by its mean, so the result is
    monotone with the order while every pooled run keeps its sum (and so its expected number
    of evidence hits)."""
    blocks: list[list[float]] = []  # [sum, count]
    for v in values:
        blocks.append([float(v), 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
            total, n = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += n
    return [total / n for total, n in blocks for _ in range(int(n))]


def attach(hits: Sequence[Hit], model: RelevanceModel | None) -> None:
    """Set each hit's ``relevance``, non-increasing down ``hits`` (:func:`non_increasing`).

    With a ``model``: the calibrated probability of its scores and place, and
    ``hit.calibrated`` is True. Without one: :func:`clipped` of its final ``score``, and
    ``hit.calibrated`` is False (a monotone mapping, not a probability)."""
    if model is None:
        raw = [clipped(h.score) for h in hits]
    else:
        raw = model.probabilities([h.scores for h in hits]).tolist()
    for hit, value in zip(hits, non_increasing(raw), strict=True):
        hit.relevance = round(value, 6)
        hit.calibrated = model is not None


__all__ = [
    "FEATURES",
    "SIGNS",
    "RelevanceModel",
    "attach",
    "clipped",
    "columns",
    "features",
    "model_for",
    "non_increasing",
    "sigmoid",
]
