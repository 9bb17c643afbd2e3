"""What every ranking signal is, and the state of one search that signals read and explain.

A signal turns the relevance of a search's candidates into a new relevance: it reads what it
needs (its adapter: the request, the candidates' places in their vector index, rows of the
store), then applies a pure scoring function whose formula its docstring gives. Signals
leave their per-candidate factors and scores on :class:`Ranking`, and every hit shows them in
``hit.scores``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

from mnemo.retrieval.candidates import Candidates
from mnemo.retrieval.request import RetrievalRequest
from mnemo.retrieval.speakers import QuerySpeakers
from mnemo.storage.base import Ref
from mnemo.storage.ports.search import SearchRows


@dataclass
class Ranking:
    """One search as the signals see it: the request, its reference time ``now``, who the
    query is about, its candidates and the store they came from.

    Signals record here what a hit shows: ``priors`` (relevance multipliers other than 1, by
    name), then ``notes`` (other per-stage scores, by name); ``damped`` holds a factor on a
    candidate's recency (a turn that tells nothing gains no recency either).
    """

    req: RetrievalRequest
    now: float
    about: QuerySpeakers
    cands: Candidates
    store: SearchRows
    priors: dict[Ref, dict[str, float]] = field(default_factory=dict)
    notes: dict[Ref, dict[str, float]] = field(default_factory=dict)
    damped: dict[Ref, float] = field(default_factory=dict)

    def prior(self, ref: Ref, name: str, value: float) -> None:
        """Record the relevance factor ``name`` of ``ref`` (shown on its hit)."""
        self.priors.setdefault(ref, {})[name] = value

    def note(self, ref: Ref, name: str, value: float) -> None:
        """Record the score ``name`` of ``ref`` (shown on its hit, after its priors)."""
        self.notes.setdefault(ref, {})[name] = value


class Signal(ABC):
    """One ranking signal of the read path, built for one settings group.

    ``switches`` names the settings that turn it on; :attr:`active` says whether the settings
    it was built with do. Every seed preset sets each switch to its off value, and
    ``tests/retrieval/test_signals.py`` fails when a signal is active under a seed preset that
    does not use it: a new signal is off in the seeds, or it changes them.
    """

    #: The signal's name (the family of ``hit.scores`` keys it leaves).
    name: ClassVar[str]
    #: The settings that switch it on.
    switches: ClassVar[tuple[str, ...]]

    @property
    @abstractmethod
    def active(self) -> bool:
        """True when the settings it was built with switch it on."""

    @property
    def needs_kinds(self) -> bool:
        """True when it reads turn kinds (see text.turn_kinds): the candidate pools are then
        filled up to their statements, and every hit shows its turn's kind."""
        return False

    @abstractmethod
    def apply(self, ranking: Ranking, relevance: dict[Ref, float]) -> dict[Ref, float]:
        """The candidates' new relevance (it may add candidates, or leave some out)."""


class WeightedSignal(Signal, ABC):
    """A signal with one weight setting (its one switch): on when the weight is above 0."""

    def __init__(self, weight: float) -> None:
        self.weight = weight

    @property
    def active(self) -> bool:
        """On when its weight is above 0."""
        return self.weight > 0


__all__ = ["Ranking", "Signal", "WeightedSignal"]
