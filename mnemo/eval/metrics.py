"""Retrieval metrics: pure functions over ranked item ids and a set of evidence ids.

Notation: ``ranked`` is the retrieved list, best first (a repeated id is relevant only at its
first position; ``None`` entries are hits that map to no evidence-able item and just take a rank);
``relevant`` is the question's evidence set ``E`` (non-empty); ``top(k)`` is the set of distinct
ids among the first ``k`` entries of ``ranked``.

* ``recall@k  = |E ∩ top(k)| / |E|`` — the share of the evidence found in the top k;
* ``all@k     = 1 if E ⊆ top(k) else 0`` — averaged over questions, the share of questions
  whose evidence is all in the top k;
* ``ndcg@k    = DCG@k / IDCG@k`` with binary relevance,
  ``DCG@k = Σ_{i=1..k} rel_i / log2(i + 1)`` (rel_i = 1 when the i-th entry is evidence and
  its first occurrence) and ``IDCG@k = Σ_{i=1..min(|E|, k)} 1 / log2(i + 1)``;
* ``percentile(xs, q)``: linear interpolation between closest ranks (numpy's default):
  position ``(n - 1) * q / 100`` in the sorted values; p50 is the median;
* ``aggregate``: per-group means of each metric, and the overall mean weighted by question
  (every question counts once, whatever its group).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


def distinct(ranked: Iterable[T | None]) -> list[T | None]:
    """``ranked`` with repeated ids removed (first occurrence kept); ``None``s all stay."""
    seen: set[T] = set()
    out: list[T | None] = []
    for item in ranked:
        if item is None:
            out.append(None)
        elif item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _check(relevant: Iterable[T], k: int) -> set[T]:
    rel = set(relevant)
    if not rel:
        raise ValueError("relevant must not be empty")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return rel


def recall_at_k(ranked: Sequence[T | None], relevant: Iterable[T], k: int) -> float:
    """Share of the evidence found among the first ``k`` results: ``|E ∩ top(k)| / |E|``."""
    rel = _check(relevant, k)
    return len(rel.intersection(x for x in ranked[:k] if x is not None)) / len(rel)


def all_at_k(ranked: Sequence[T | None], relevant: Iterable[T], k: int) -> float:
    """1.0 if every evidence id is among the first ``k`` results, else 0.0."""
    rel = _check(relevant, k)
    return 1.0 if rel.issubset(x for x in ranked[:k] if x is not None) else 0.0


def ndcg_at_k(ranked: Sequence[T | None], relevant: Iterable[T], k: int) -> float:
    """Normalised DCG with binary relevance: ``DCG@k / IDCG@k`` (see the module docstring)."""
    rel = _check(relevant, k)
    seen: set[T] = set()
    dcg = 0.0
    for i, item in enumerate(ranked[:k]):
        if item is not None and item in rel and item not in seen:
            seen.add(item)
            dcg += 1.0 / math.log2(i + 2)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(rel), k)))
    return dcg / idcg


def all_in_first(ranked: Sequence[T | None], relevant: Iterable[T], n: int) -> float:
    """1.0 if every relevant id is among the first ``n`` *distinct* ids of ``ranked``.

    Used for sessions: ``ranked`` is the session of each hit, best first, so sessions are
    ranked by their first (best) hit.
    """
    rel = _check(relevant, n)
    firsts = [x for x in distinct(ranked) if x is not None][:n]
    return 1.0 if rel.issubset(firsts) else 0.0


def latest_first(ranked: Sequence[T | None], relevant: Iterable[T], latest: Iterable[T]) -> float:
    """1.0 when the highest-ranked relevant item is one of ``latest`` (for a knowledge update:
    the evidence of the latest evidence session, what is true now), else 0.0, also when no
    relevant item is ranked at all::

        latest_first = [ first(ranked ∩ relevant) ∈ latest ]
    """
    rel, new = set(relevant), set(latest)
    first = next((r for r in ranked if r is not None and r in rel), None)
    return 1.0 if first is not None and first in new else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; NaN for no values."""
    if not 0 <= q <= 100:
        raise ValueError(f"q must be in [0, 100], got {q}")
    if not values:
        return math.nan
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean; NaN for no values."""
    xs = list(values)
    return sum(xs) / len(xs) if xs else math.nan


def metric_names(ks: Sequence[int], ndcg_k: int = 10) -> list[str]:
    """Column names in report order: ``R@k`` for each k, ``All@k`` for each k, ``NDCG@n``."""
    return [f"R@{k}" for k in ks] + [f"All@{k}" for k in ks] + [f"NDCG@{ndcg_k}"]


def question_metrics(
    ranked: Sequence[T | None], relevant: Iterable[T], ks: Sequence[int], ndcg_k: int = 10
) -> dict[str, float]:
    """Every per-question metric, keyed as in :func:`metric_names`."""
    rel = set(relevant)
    out = {f"R@{k}": recall_at_k(ranked, rel, k) for k in ks}
    out.update({f"All@{k}": all_at_k(ranked, rel, k) for k in ks})
    out[f"NDCG@{ndcg_k}"] = ndcg_at_k(ranked, rel, ndcg_k)
    return out


def aggregate(
    rows: Sequence[tuple[str, dict[str, float]]],
) -> tuple[dict[str, dict[str, float]], dict[str, float], dict[str, int]]:
    """Means per group and overall from ``(group, metrics)`` rows, and questions per group.

    Returns ``(per_group, overall, counts)``. Groups keep the order of first appearance; the
    overall mean weights every question equally. A metric missing from a row is skipped there.
    """
    per_group_rows: dict[str, list[dict[str, float]]] = {}
    for group, metrics in rows:
        per_group_rows.setdefault(group, []).append(metrics)

    def means(ms: list[dict[str, float]]) -> dict[str, float]:
        names = list(dict.fromkeys(name for m in ms for name in m))
        return {name: mean(m[name] for m in ms if name in m) for name in names}

    per_group = {g: means(ms) for g, ms in per_group_rows.items()}
    overall = means([m for _, m in rows])
    counts = {g: len(ms) for g, ms in per_group_rows.items()}
    return per_group, overall, counts


__all__ = [
    "aggregate",
    "all_at_k",
    "all_in_first",
    "distinct",
    "latest_first",
    "mean",
    "metric_names",
    "ndcg_at_k",
    "percentile",
    "question_metrics",
    "recall_at_k",
]
