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

from mnemo.filters import walk
from mnemo.index.vectors import VectorIndex
from mnemo.storage.base import Ref
from mnemo.storage.ports.search import SearchRows
from mnemo.storage.scope import ReadScope

Found = tuple[int, float]


def nearest_matching(
    store: SearchRows,
    index: VectorIndex,
    query: np.ndarray,
    n: int,
    mask: np.ndarray | None,
    key_weight: float,
    scope: ReadScope,
) -> tuple[np.ndarray, np.ndarray]:
    """Positions and cosines of the ``n`` rows of ``index`` (within ``mask``) nearest to
    ``query`` that are rows of ``scope`` (the one user's scope whose filter the mask
    lacks)."""

    def found(positions: np.ndarray, sims: np.ndarray) -> list[Found]:
        return list(zip(positions.tolist(), sims.tolist(), strict=True))

    def ranked(m: int) -> list[Found]:
        return found(*index.search(query, m, mask, key_weight))

    def keep(rows: Sequence[Found]) -> list[bool]:
        refs = [index.ref(p) for p, _ in rows]
        ok = store.matching_among(scope, refs)
        return [ref in ok for ref in refs]

    def scan() -> list[Found]:
        allowed = index.matching(store.matching_rowids(scope))
        if mask is not None:
            allowed = mask[: len(allowed)] & allowed[: len(mask)]
        return found(*index.search(query, n, allowed, key_weight))

    rows = walk.best_matching(ranked, keep, n, scan)
    return (
        np.array([p for p, _ in rows], dtype=np.int64),
        np.array([s for _, s in rows], dtype=np.float32),
    )


def admitted(
    store: SearchRows, scope: ReadScope, scores: dict[Ref, float], known: set[Ref]
) -> dict[Ref, float]:
    """``scores`` of the refs that match the filter of the search's ``scope``: those in
    ``known`` (candidates, which matched already) and those the store says match (a signal
    may bring in a ref that was no candidate: a neighbouring turn, of any scope the search
    looked in, so only the tenant, liveness and the filter are asked about)."""
    others = [ref for ref in scores if ref not in known]
    tenant_wide = ReadScope(scope.tenant, where=scope.filter)
    ok = store.matching_among(tenant_wide, others) if others else set()
    return {ref: v for ref, v in scores.items() if ref in known or ref in ok}


__all__ = ["admitted", "nearest_matching"]
