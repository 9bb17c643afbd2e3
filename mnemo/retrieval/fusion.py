"""Fusing ranked lists from several retrievers into one relevance in [0, 1]."""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from typing import TypeVar

from mnemo.retrieval.scoring import min_max

K = TypeVar("K", bound=Hashable)


def ranks(scores: Mapping[K, float], basis: Collection[K] | None = None) -> dict[K, int]:
    """1-based rank of each key by descending score (ties broken by first appearance).

    With ``basis``, keys of the basis are ranked among themselves, and any other key gets the
    rank it would take if it alone joined them (1 + the basis keys scoring higher): keys
    outside the basis never push a basis key down.
    """
    ordered = sorted(scores, key=lambda k: -scores[k])
    if basis is None:
        return {k: i + 1 for i, k in enumerate(ordered)}
    out: dict[K, int] = {}
    above = 0
    for k in ordered:
        if k in basis:
            above += 1
            out[k] = above
        else:
            out[k] = above + 1
    return out


def rrf(
    rankings: Mapping[str, Mapping[K, int]],
    weights: Mapping[str, float],
    k: float = 60.0,
) -> dict[K, float]:
    """Reciprocal rank fusion, normalised to [0, 1].

    rrf(d) = sum_i w_i / (k + rank_i(d)) / sum_i (w_i / (k + 1)); a list missing d adds 0.
    """
    best = sum(w / (k + 1.0) for name, w in weights.items() if name in rankings and w > 0)
    fused: dict[K, float] = {}
    for name, ranking in rankings.items():
        w = weights.get(name, 0.0)
        if w <= 0:
            continue
        for key, rank in ranking.items():
            fused[key] = fused.get(key, 0.0) + w / (k + rank)
    if best <= 0:
        return fused
    return {key: v / best for key, v in fused.items()}


def weighted_blend(
    scores: Mapping[str, Mapping[K, float]],
    weights: Mapping[str, float],
    basis: Collection[K] | None = None,
    scales: Mapping[str, float] | None = None,
) -> dict[K, float]:
    """Normalised score blend: sum_i w_i * s_i * minmax_i(d) / sum_i w_i; a list missing d
    adds 0. ``s_i`` is list i's factor in ``scales`` (1 when absent): the lexical side's query
    coverage (see retrieval.coverage).

    With ``basis``, each list's min and max are taken over the basis keys only (scores below
    the min count 0): keys outside the basis (talk that tells nothing, see retrieval.talk)
    cannot stretch the scale of the others, and may themselves score above 1 (a stored copy
    of the query does, and lends that to its reply).
    """
    total = sum(w for name, w in weights.items() if name in scores and w > 0)
    fused: dict[K, float] = {}
    for name, per_key in scores.items():
        w = weights.get(name, 0.0)
        if w <= 0:
            continue
        ws = w * (scales.get(name, 1.0) if scales is not None else 1.0)
        for key, v in min_max(per_key, basis).items():
            fused[key] = fused.get(key, 0.0) + ws * v
    if total <= 0:
        return fused
    return {key: v / total for key, v in fused.items()}
