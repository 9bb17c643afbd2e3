"""Dense candidates under a filter: the nearest matching vectors, found best first.

The in-process index holds every vector of the user. :func:`nearest_matching` walks it with
:func:`mnemo.filters.walk.best_matching`: the nearest rows, asked about in the store
(:meth:`~mnemo.storage.ports.search.SearchSource.matching_among`, the filter evaluated on
those rows only), widened while too few match; past ``walk.SCAN_AT`` rows, the index masked
by every matching row of the user (``matching_rowids``). The result is exactly the ``n``
nearest matching rows either way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mnemo.filters import Filter, walk
from mnemo.index.vectors import VectorIndex
from mnemo.storage.base import Ref
from mnemo.storage.ports.search import SearchSource

Found = tuple[int, float]


def nearest_matching(
    store: SearchSource,
    index: VectorIndex,
    query: np.ndarray,
    n: int,
    mask: np.ndarray | None,
    key_weight: float,
    where: tuple[str, str, Filter],
) -> tuple[np.ndarray, np.ndarray]:
    """Positions and cosines of the ``n`` rows of ``index`` (within ``mask``) nearest to
    ``query`` that match the filter; ``where`` is (tenant, user id, filter)."""
    tenant, user_id, tree = where

    def found(positions: np.ndarray, sims: np.ndarray) -> list[Found]:
        return list(zip(positions.tolist(), sims.tolist(), strict=True))

    def ranked(m: int) -> list[Found]:
        return found(*index.search(query, m, mask, key_weight))

    def keep(rows: Sequence[Found]) -> list[bool]:
        refs = [index.ref(p) for p, _ in rows]
        ok = store.matching_among(tenant, tree, refs)
        return [ref in ok for ref in refs]

    def scan() -> list[Found]:
        allowed = index.matching(store.matching_rowids(tenant, user_id, tree))
        if mask is not None:
            allowed = mask[: len(allowed)] & allowed[: len(mask)]
        return found(*index.search(query, n, allowed, key_weight))

    rows = walk.best_matching(ranked, keep, n, scan)
    return (
        np.array([p for p, _ in rows], dtype=np.int64),
        np.array([s for _, s in rows], dtype=np.float32),
    )


def admitted(
    store: SearchSource, tenant: str, tree: Filter, scores: dict[Ref, float], known: set[Ref]
) -> dict[Ref, float]:
    """``scores`` of the refs that match the filter: those in ``known`` (candidates, which
    matched already) and those the store says match (a signal may bring in a ref that was no
    candidate: a neighbouring turn)."""
    others = [ref for ref in scores if ref not in known]
    ok = store.matching_among(tenant, tree, others) if others else set()
    return {ref: v for ref, v in scores.items() if ref in known or ref in ok}


__all__ = ["admitted", "nearest_matching"]
