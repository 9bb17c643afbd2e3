"""The ranking signals of the read path, as one list the pipeline runs in order.

After fusion, the pipeline hands the candidates' relevance to each active signal in turn
(:func:`signals_for` gives the order): the context signals (neighbours, then sessions, which
read the relevance the neighbours left), the query priors (speakers, dates), the reranker,
the turn kinds (so talk lends its relevance to its reply before it is lowered), and last the
learned stage, which orders the de-duplicated hits (:class:`Learned`).

To add a signal: write a :class:`~mnemo.retrieval.signals.base.Signal` (its settings in
:mod:`mnemo.config.search` with an "off" value, its formula in a pure function and in its
docstring), put it in :func:`signals_for`, set its switches to off in the seed presets'
``_SEED_RANKING`` (:mod:`mnemo.config.presets`) unless a seed really uses it, and list it in
``tests/retrieval/test_signals.py``.
"""

from __future__ import annotations

from mnemo.config.search import RetrievalSettings
from mnemo.retrieval.ranker_model import RankerModel
from mnemo.retrieval.rerank import Reranker
from mnemo.retrieval.signals.base import Ranking, Signal
from mnemo.retrieval.signals.context import Neighbours, Sessions
from mnemo.retrieval.signals.kinds import TurnKinds
from mnemo.retrieval.signals.learned import Learned
from mnemo.retrieval.signals.priors import Dates, Speakers
from mnemo.retrieval.signals.rerank import Rerank


def signals_for(
    settings: RetrievalSettings, reranker: Reranker | None, ranker: RankerModel | None = None
) -> list[Signal]:
    """Every ranking signal built for ``settings``, in the order they apply (active or not;
    ``reranker`` is the one ``settings.reranker`` names, None when it names none; ``ranker``
    the learned stage's model for the embedder, None when it has none)."""
    return [
        Neighbours(settings),
        Speakers(settings),
        Dates(settings),
        Sessions(settings),
        Rerank(settings, reranker),
        TurnKinds(settings),
        Learned(settings, ranker),
    ]


__all__ = [
    "Dates",
    "Learned",
    "Neighbours",
    "Ranking",
    "Rerank",
    "Sessions",
    "Signal",
    "Speakers",
    "TurnKinds",
    "signals_for",
]
