"""The turn-kind signal: talk that tells nothing ranks below what was told (see
retrieval.talk)."""

from __future__ import annotations

from typing import ClassVar

from mnemo.config.search import RetrievalSettings
from mnemo.retrieval.candidates import classify
from mnemo.retrieval.signals.base import Ranking, Signal
from mnemo.retrieval.talk import KindPriors, apply_priors
from mnemo.storage.base import Ref


class TurnKinds(Signal):
    """A question that asks without telling, an assistant non-answer or a courtesy has its
    relevance multiplied by its kind's prior, shown on the hit (``turn_prior``):

    rel'(d) = rel(d) x prior(kind(d)), prior 1 for statements and memories, else
    ``question_prior``, ``non_answer_prior`` or ``greeting_prior``
    (:func:`mnemo.retrieval.talk.apply_priors`); its recency is multiplied by the same prior.
    It runs last, after such a turn has lent its relevance to its neighbours and its reply.
    Turns not yet classified are read from the store (see text.turn_kinds).
    """

    name = "turn_kinds"
    switches: ClassVar[tuple[str, ...]] = ("question_prior", "non_answer_prior", "greeting_prior")

    def __init__(self, settings: RetrievalSettings) -> None:
        self.priors = KindPriors(
            settings.question_prior, settings.non_answer_prior, settings.greeting_prior
        )

    @property
    def active(self) -> bool:
        """On when some kind's prior is not 1."""
        return self.priors != KindPriors()

    @property
    def needs_kinds(self) -> bool:
        """Its priors are by turn kind."""
        return True

    def apply(self, ranking: Ranking, relevance: dict[Ref, float]) -> dict[Ref, float]:
        """Relevance times each candidate's kind prior; the recency damped alike."""
        classify(ranking.store, set(relevance), ranking.cands)
        out, applied = apply_priors(relevance, ranking.cands.kinds, self.priors)
        for ref, p in applied.items():
            ranking.prior(ref, "turn_prior", p)
        ranking.damped.update(applied)
        return out


__all__ = ["TurnKinds"]
