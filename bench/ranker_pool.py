"""One question's pool as ``bench/ranker.py`` fits and scores the learned stage on it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mnemo.schemas import Hit

#: The cut of R@K.
K = 10
#: The top hits the replay's answer-or-evidence check reads (``mnemo.eval.replay``).
ANSWER_TOP = 3


@dataclass
class Pool:
    """One question's pool in one history: features, labels, and what scores it.

    ``keys`` name each hit's evidence id (None for anything else); ``answers`` the keys of
    stored replies that answered it (a chat replay pool in ``answer`` mode)."""

    id: str
    split: str
    category: str
    groups: frozenset[str]
    own: bool
    x: np.ndarray
    y: np.ndarray
    keys: list[str | None]
    evidence: set[str]
    query: str = ""
    hits: list[Hit] = field(default_factory=list)
    answers: set[str] = field(default_factory=set)


def recall(pool: Pool, order: np.ndarray) -> float:
    """R@K of the pool's hits in ``order``: the share of its evidence in the first K."""
    top = {pool.keys[int(i)] for i in order[:K]} - {None}
    return len(pool.evidence & top) / len(pool.evidence)


def found(pool: Pool, order: np.ndarray) -> float:
    """1 when the first :data:`ANSWER_TOP` hits in ``order`` hold an evidence turn or a stored
    answer (the replay's ``Ans|Ev@3``)."""
    top = {pool.keys[int(i)] for i in order[:ANSWER_TOP]} - {None}
    return float(bool(top & (pool.evidence | pool.answers)))


__all__ = ["ANSWER_TOP", "K", "Pool", "found", "recall"]
