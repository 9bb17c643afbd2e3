"""Maximal marginal relevance: pick relevant items that are not near-duplicates of picked ones."""

from __future__ import annotations

import numpy as np


def mmr_select(scores: np.ndarray, vectors: np.ndarray, k: int, lam: float = 0.7) -> list[int]:
    """Indices chosen greedily by mmr = lam * score - (1 - lam) * max cosine to those chosen.

    ``vectors`` are unit rows, so cosine is a dot product. The first pick is the top score
    (`agent-cli`).
    """
    n = len(scores)
    if n == 0 or k <= 0:
        return []
    chosen: list[int] = []
    redundancy = np.full(n, -np.inf)
    available = np.ones(n, dtype=bool)
    while len(chosen) < min(k, n):
        if chosen:
            value = lam * scores - (1.0 - lam) * redundancy
        else:
            value = np.asarray(scores, dtype=np.float64).copy()
        value = np.where(available, value, -np.inf)
        pick = int(np.argmax(value))
        chosen.append(pick)
        available[pick] = False
        redundancy = np.maximum(redundancy, vectors @ vectors[pick])
    return chosen
