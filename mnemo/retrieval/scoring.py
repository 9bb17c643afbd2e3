"""Pure scoring functions. Each docstring gives the formula it computes."""

from __future__ import annotations

import math

import numpy as np

SECONDS_PER_DAY = 86_400.0


def recency(age_seconds: float | np.ndarray, tau_days: float = 30.0) -> float | np.ndarray:
    """recency = exp(-age_days / tau_days); ages below zero count as zero (seed 002)."""
    age_days = np.maximum(np.asarray(age_seconds, dtype=np.float64), 0.0) / SECONDS_PER_DAY
    out = np.exp(-age_days / tau_days)
    return float(out) if np.ndim(out) == 0 else out


def blend(relevance: float, recency_score: float, weight: float) -> float:
    """total = (1 - w) * relevance + w * recency (seed 002)."""
    return (1.0 - weight) * relevance + weight * recency_score


def sigmoid(x: float) -> float:
    """sigmoid(x) = 1 / (1 + exp(-x)), stable for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def min_max(scores: dict[object, float]) -> dict[object, float]:
    """(s - min) / (max - min) per key; all ones when every score is equal."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return {k: 1.0 for k in scores}
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}
