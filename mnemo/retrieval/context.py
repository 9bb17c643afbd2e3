"""Conversation context: a turn's score borrows from its neighbours in the same session.

An answer often spans a question and its reply: the turn that holds the evidence may share few
words with the query while the turn next to it shares many.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def neighbor_boost(
    relevance: Mapping[K, float], neighbors: Mapping[K, Sequence[K]], weight: float
) -> dict[K, float]:
    """rel'(d) = rel(d) + weight * max(rel(n) for n in neighbors(d)).

    ``neighbors`` may name turns that are not candidates; they join the result with their
    borrowed score alone (rel(d) = 0), so an evidence turn next to a strong match is found.
    """
    out: dict[K, float] = dict(relevance)
    for key, near in neighbors.items():
        best = max((relevance.get(n, 0.0) for n in near), default=0.0)
        if best > 0:
            out[key] = relevance.get(key, 0.0) + weight * best
    return out
