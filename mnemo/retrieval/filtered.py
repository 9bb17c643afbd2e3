"""Dense candidates under a filter: the best matching vectors, found without evaluating the
filter on every row of the user when it is not selective.

The in-process index holds every vector of the user. :func:`nearest_matching` walks it best
first: it takes the ``m`` nearest rows (``m`` = 4 x what is asked, at least 256), asks the
store which of them match (:meth:`~mnemo.storage.ports.search.SearchSource.matching_among`,
the filter evaluated on those rows only) and keeps them in cosine order. While fewer than
asked match it takes 4 x more; past :data:`SCAN_AT` rows it asks the store for every
matching row of the user once (``matching_rowids``) and searches the index masked by them.
Either way the result is exactly the ``n`` nearest matching rows: a row left out is farther
than every row kept. A filter that matches 10% of the rows costs one small lookup; a filter
that matches almost nothing costs one scan.
"""

from __future__ import annotations

import numpy as np

from mnemo.filters import Filter
from mnemo.index.vectors import VectorIndex
from mnemo.storage.base import Ref
from mnemo.storage.ports.search import SearchSource

#: Nearest rows first looked at, per row asked for (then 4 x more each round).
WIDEN = 4
#: Rows looked at past which the matching rows of the user are listed once instead.
SCAN_AT = 4096


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
    m = max(WIDEN * n, 256)
    while m <= SCAN_AT:
        positions, sims = index.search(query, m, mask, key_weight)
        refs = [index.ref(int(p)) for p in positions]
        ok = store.matching_among(tenant, tree, refs)
        keep = np.array([i for i, r in enumerate(refs) if r in ok], dtype=np.int64)[:n]
        if len(keep) == n or len(positions) < m:
            return positions[keep], sims[keep]
        m *= WIDEN
    allowed = index.matching(store.matching_rowids(tenant, user_id, tree))
    if mask is not None:
        allowed = mask[: len(allowed)] & allowed[: len(mask)]
    return index.search(query, n, allowed, key_weight)


def admitted(
    store: SearchSource, tenant: str, tree: Filter, scores: dict[Ref, float], known: set[Ref]
) -> dict[Ref, float]:
    """``scores`` of the refs that match the filter: those in ``known`` (candidates, which
    matched already) and those the store says match (a signal may bring in a ref that was no
    candidate: a neighbouring turn)."""
    others = [ref for ref in scores if ref not in known]
    ok = store.matching_among(tenant, tree, others) if others else set()
    return {ref: v for ref, v in scores.items() if ref in known or ref in ok}


__all__ = ["SCAN_AT", "WIDEN", "admitted", "nearest_matching"]
