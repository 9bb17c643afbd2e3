"""How much of a query the best lexical match covers, and the lexical side's scale from it.

Min-max normalisation gives the best BM25 candidate 1 whatever it matched: a turn sharing one
word of a five-word question ("name" in "What is the name of my dog?", matched by "named")
would weigh as much as one matching them all. Coverage compares a BM25 score with what the
query could score, the sum of its terms' idf (see
:meth:`~mnemo.storage.ports.search.SearchSource.lexical_idf`), so terms missing from every
row, or rare ones the best match lacks, lower it.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def coverage(bm25: float, ceiling: float) -> float:
    """c = bm25 / C, C = sum over the query's terms of their idf in the row's table: what an
    average-length row holding every term once scores (a shorter row, or one repeating a term,
    may exceed it). A query with no positive ceiling (no terms, an empty table) covers 1."""
    return bm25 / ceiling if ceiling > 0 else 1.0


def lexical_scale(covered: Mapping[K, float], basis: Collection[K] | None, power: float) -> float:
    """The factor on the lexical side's normalised scores: s = min(1, max_d c(d)) ** p.

    ``max_d`` runs over the keys of ``basis`` present (over all keys when none is); no key, or
    ``power`` 0, gives 1 (plain min-max).
    """
    if power <= 0 or not covered:
        return 1.0
    ref = [v for k, v in covered.items() if basis is None or k in basis] or list(covered.values())
    return float(min(1.0, max(max(ref), 0.0)) ** power)
