"""Pure scoring functions. Each docstring gives the formula it computes."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
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


def sigmoid(x: float) -> float:
    """sigmoid(x) = 1 / (1 + exp(-x)), stable for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def min_max(scores: Mapping[K, float]) -> dict[K, float]:
    """(s - min) / (max - min) per key; all ones when every score is equal."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return {k: 1.0 for k in scores}
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}
