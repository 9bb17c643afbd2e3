"""Conversation context: a turn's score borrows from its neighbours in the same session.

An answer often spans a question and its reply: the turn that holds the evidence may share few
words with the query while the turn next to it shares many.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def neighbor_boost(
    relevance: Mapping[K, float],
    neighbors: Mapping[K, Sequence[K]],
    weight: float,
    replies: Mapping[K, K] | None = None,
    reply_weight: float = 0.0,
) -> dict[K, float]:
    """rel'(d) = rel(d) + max(weight * max(rel(n) for n in neighbors(d)),
    reply_weight * rel(q(d))), where q(d) is the question ``d`` replies to (``replies``).

    ``neighbors`` may name turns that are not candidates; they join the result with their
    borrowed score alone (rel(d) = 0), so an evidence turn next to a strong match is found.
    """
    out: dict[K, float] = dict(relevance)
    replies = replies or {}
    for key, near in neighbors.items():
        best = weight * max((relevance.get(n, 0.0) for n in near), default=0.0)
        asked = replies.get(key)
        if asked is not None:
            best = max(best, reply_weight * relevance.get(asked, 0.0))
        if best > 0:
            out[key] = relevance.get(key, 0.0) + best
    return out


def session_boost(
    relevance: Mapping[K, float],
    session_of: Mapping[K, int],
    weight: float,
    top: int = 3,
    alone: Collection[K] = (),
) -> dict[K, float]:
    """rel'(d) = rel(d) + weight * S(session(d)) / max_s S(s), where S(s) is the sum of the
    session's ``top`` best relevances / ``top``: a turn in a session that matches as a whole
    ranks higher.

    A key in ``alone`` (a memory outside any conversation: a note, a document chunk) is a
    session of its own that counts whole, S = rel(d), so it competes with the turns of a
    matching session on equal terms. Keys in neither are left as they are.
    """
    per: dict[int, list[float]] = {}
    for key, value in relevance.items():
        if key in session_of:
            per.setdefault(session_of[key], []).append(value)
    score = {s: sum(sorted(v, reverse=True)[:top]) / top for s, v in per.items()}
    own = {k: relevance[k] for k in alone if k in relevance}
    best = max([*score.values(), *own.values()], default=0.0)
    if best <= 0:
        return dict(relevance)
    out = {}
    for k, v in relevance.items():
        if k in own:
            out[k] = v + weight * own[k] / best
        elif k in session_of:
            out[k] = v + weight * score[session_of[k]] / best
        else:
            out[k] = v
    return out
