"""Context signals: a turn borrows relevance from the turns around it.

Both read where each candidate sits in its user's vector index (its session, its neighbours)
and apply the pure functions of :mod:`mnemo.retrieval.neighbours`.
"""

from __future__ import annotations

from typing import ClassVar

from mnemo.config.search import RetrievalSettings
from mnemo.retrieval.neighbours import neighbor_boost, session_boost
from mnemo.retrieval.signals.base import Ranking, Signal, WeightedSignal
from mnemo.storage.base import MESSAGE, Ref


class Neighbours(Signal):
    """A turn gains a share of its best same-session neighbour's relevance, and the turn
    right after a question (by another speaker) a share of the question's:

    rel'(d) = rel(d) + max(neighbor_weight * max(rel(n) for n within neighbor_span of d),
    reply_weight * rel(q(d))), q(d) the question ``d`` replies to
    (:func:`mnemo.retrieval.neighbours.neighbor_boost`). A neighbour that was not a
    candidate joins with its borrowed score alone.

    Every hit that borrowed shows it: ``borrowed`` = rel'(d) - rel(d), and a reply to a
    candidate question also ``asked`` = rel(q(d)) (the learned stage reads both).
    """

    name = "neighbours"
    switches: ClassVar[tuple[str, ...]] = ("neighbor_weight", "reply_weight")

    def __init__(self, settings: RetrievalSettings) -> None:
        self.weight = settings.neighbor_weight
        self.span = settings.neighbor_span
        self.reply_weight = settings.reply_weight

    @property
    def active(self) -> bool:
        """On when either share is above 0."""
        return self.weight > 0 or self.reply_weight > 0

    @property
    def needs_kinds(self) -> bool:
        """A reply is recognised by the question before it."""
        return self.reply_weight > 0

    def apply(self, ranking: Ranking, relevance: dict[Ref, float]) -> dict[Ref, float]:
        """Adjacent turns of every candidate, boosted by it; the turn right after a question
        by another speaker, by ``reply_weight`` of it."""
        cands = ranking.cands
        near: dict[Ref, list[Ref]] = {}
        replies: dict[Ref, Ref] = {}
        for ref in list(relevance):
            loc = cands.located.get(ref)
            if loc is None or ref[0] != MESSAGE:
                continue
            index, pos = loc
            asks = cands.kinds.get(ref) == "question" and self.reply_weight > 0
            for p in index.neighbors(pos, max(self.span, 1), agents=ranking.req.scope.agents):
                other = index.ref(p)
                cands.located.setdefault(other, (index, p))
                near.setdefault(other, []).append(ref)
                if asks and p == pos + 1 and not index.same_speaker(pos, p):
                    replies[other] = ref
        out = neighbor_boost(relevance, near, self.weight, replies, self.reply_weight)
        for ref, value in out.items():
            lent = value - relevance.get(ref, 0.0)
            if lent > 0:
                ranking.note(ref, "borrowed", lent)
        for ref, question in replies.items():
            ranking.note(ref, "asked", relevance.get(question, 0.0))
        return out


class Sessions(WeightedSignal):
    """A turn gains a share of its session's relevance as a whole:

    rel'(d) = rel(d) + session_weight * S(session(d)) / max_s S(s), S(s) the mean of the
    session's 3 best relevances (:func:`mnemo.retrieval.neighbours.session_boost`); a memory
    with no session is a session of its own, S = rel(d).
    """

    name = "sessions"
    switches: ClassVar[tuple[str, ...]] = ("session_weight",)

    def __init__(self, settings: RetrievalSettings) -> None:
        super().__init__(settings.session_weight)

    def apply(self, ranking: Ranking, relevance: dict[Ref, float]) -> dict[Ref, float]:
        """Every located candidate grouped by its session, then boosted."""
        codes: dict[tuple[int, str | None], int] = {}
        session_of: dict[Ref, int] = {}
        alone: list[Ref] = []
        for ref in relevance:
            loc = ranking.cands.located.get(ref)
            if loc is None:
                continue
            index, pos = loc
            code = index.session_codes[pos]
            if code == index.session_names.get(None, -1):
                alone.append(ref)
                continue
            key = (id(index), str(code))
            session_of[ref] = codes.setdefault(key, len(codes))
        return session_boost(relevance, session_of, self.weight, alone=alone)


__all__ = ["Neighbours", "Sessions"]
