"""Pure scoring functions. Each docstring gives the formula it computes."""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from typing import TypeVar

import numpy as np

SECONDS_PER_DAY = 86_400.0
K = TypeVar("K", bound=Hashable)


def recency(age_seconds: np.ndarray, tau_days: float = 30.0) -> np.ndarray:
    """recency = exp(-age_days / tau_days) per element (`agent-cli`); negative ages count as 0."""
    age_days = np.maximum(np.asarray(age_seconds, dtype=np.float64), 0.0) / SECONDS_PER_DAY
    return np.asarray(np.exp(-age_days / tau_days))


def blend(relevance: np.ndarray, recency_score: np.ndarray, weight: float) -> np.ndarray:
    """total = (1 - w) * relevance + w * recency (`agent-cli`)."""
    return (1.0 - weight) * relevance + weight * recency_score


#: The highest normalised score of a key outside the basis of :func:`min_max`.
CEILING = 2.0


def min_max(scores: Mapping[K, float], basis: Collection[K] | None = None) -> dict[K, float]:
    """(s - min) / (max - min) per key; all ones when every score is equal.

    With ``basis``, min and max are those of the basis keys present (of all keys when none
    is), and results are clipped to [0, CEILING]: keys outside the basis may score above 1.
    When the basis scores are all equal (one key, say), scores are divided by that score
    instead (s / max, clipped the same way).
    """
    if not scores:
        return {}
    ref = [v for k, v in scores.items() if k in basis] if basis is not None else []
    if not ref:
        ref = list(scores.values())
    lo, hi = min(ref), max(ref)
    if hi - lo < 1e-12:
        if basis is None:
            return {k: 1.0 for k in scores}
        lo, hi = 0.0, hi if hi > 1e-12 else 1.0
    return {k: min(max((v - lo) / (hi - lo), 0.0), CEILING) for k, v in scores.items()}
