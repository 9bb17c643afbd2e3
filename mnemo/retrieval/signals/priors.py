"""Query priors: what the query names (a speaker, a date) multiplies the relevance of the
turns that match it.

Both read each located candidate's row in its vector index (who spoke it, when) and apply a
pure prior of :mod:`mnemo.retrieval.speakers` or :mod:`mnemo.retrieval.dates`; a prior other
than 1 shows on the hit (``speaker_prior``, ``date_prior``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mnemo.config.search import RetrievalSettings
from mnemo.retrieval import dates, speakers
from mnemo.retrieval.signals.base import Ranking, WeightedSignal
from mnemo.storage.base import Ref


class Speakers(WeightedSignal):
    """Turns by the speakers the query names (else by the user, or by the assistant when the
    query recalls what it said) rank higher:

    rel'(d) = rel(d) x (1 + speaker_weight) for those turns, rel(d) elsewhere
    (:func:`mnemo.retrieval.speakers.speaker_prior`).
    """

    name = "speakers"
    switches: ClassVar[tuple[str, ...]] = ("speaker_weight",)

    def __init__(self, settings: RetrievalSettings) -> None:
        super().__init__(settings.speaker_weight)

    def apply(self, ranking: Ranking, relevance: dict[Ref, float]) -> dict[Ref, float]:
        """Relevance times the speaker prior of each located candidate."""
        about = ranking.about
        spoken: dict[int, np.ndarray] = {}
        out = dict(relevance)
        for ref, value in relevance.items():
            loc = ranking.cands.located.get(ref)
            if loc is None:
                continue
            index, pos = loc
            if id(index) not in spoken:
                spoken[id(index)] = speakers.speaker_prior(
                    index.spoken_by(about.names, about.role), self.weight
                )
            prior = spoken[id(index)]
            if pos < len(prior):  # a reload in another thread may have shrunk the index
                out[ref] = value * float(prior[pos])
                if prior[pos] != 1.0:
                    ranking.prior(ref, "speaker_prior", float(prior[pos]))
        return out


class Dates(WeightedSignal):
    """Turns written inside the window of a date the query names ("in June", "last week")
    rank higher:

    rel'(d) = rel(d) x (1 + date_weight) when d was written inside a window, rel(d)
    elsewhere (:func:`mnemo.retrieval.dates.date_prior`); windows are resolved against the
    search's ``now`` (:func:`mnemo.retrieval.dates.windows`).
    """

    name = "dates"
    switches: ClassVar[tuple[str, ...]] = ("date_weight",)

    def __init__(self, settings: RetrievalSettings) -> None:
        super().__init__(settings.date_weight)

    def apply(self, ranking: Ranking, relevance: dict[Ref, float]) -> dict[Ref, float]:
        """Relevance times the date prior of each located candidate (unchanged when the
        query names no date)."""
        spans = dates.windows(ranking.req.query, ranking.now)
        if not spans:
            return relevance
        located = ranking.cands.located
        inside = [r for r in relevance if r in located]
        if not inside:
            return relevance
        times = np.array([located[r][0].times[located[r][1]] for r in inside])
        prior = dates.date_prior(times, spans, self.weight)
        out = dict(relevance)
        for r, p in zip(inside, prior.tolist(), strict=True):
            out[r] = relevance[r] * p
            if p != 1.0:
                ranking.prior(r, "date_prior", p)
        return out


__all__ = ["Dates", "Speakers"]
