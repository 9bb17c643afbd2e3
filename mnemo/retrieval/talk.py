"""Talk that does not tell: the prior of a turn's kind, and a question's pull on its reply.

A chat store fills with turns that carry nothing about the user: the questions the user asked
(every ask through the proxy is stored), the assistant's "I'm not sure, could you remind me?",
greetings and thanks. Asked again, the question matches itself best of all. The kind of a turn
(:mod:`mnemo.text.turn_kinds`) sets a prior on its relevance, and a question lends its
relevance to the reply that follows it: the reply, not the question, holds what was said.

* ``prior(kind)`` = 1 for statements and memories, ``question_prior``, ``non_answer_prior`` or
  ``greeting_prior`` for the other kinds; ``rel' = rel x prior``;
* ``reply_boost``: a turn right after a question turn of the same session, by another speaker,
  borrows ``reply_weight x rel(question)`` instead of the ``neighbor_weight`` share (see
  :func:`mnemo.retrieval.neighbours.neighbor_boost`), unless it is talk itself.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from mnemo.text.turn_kinds import TurnKind

K = TypeVar("K", bound=Hashable)

#: The kind of a memory (fact, summary, ...) or a turn that tells something.
STATEMENT: TurnKind = "statement"


@dataclass(frozen=True)
class KindPriors:
    """The relevance factor of each turn kind (statements: 1)."""

    question: float = 1.0
    non_answer: float = 1.0
    greeting: float = 1.0

    def of(self, kind: TurnKind) -> float:
        """prior(kind): 1 for a statement, else the factor of its kind."""
        if kind == "question":
            return self.question
        if kind == "non_answer":
            return self.non_answer
        if kind == "greeting":
            return self.greeting
        return 1.0


def apply_priors(
    relevance: Mapping[K, float], kinds: Mapping[K, TurnKind], priors: KindPriors
) -> tuple[dict[K, float], dict[K, float]]:
    """``rel'(d) = rel(d) x prior(kind(d))`` (a key without a kind is a statement).

    Returns the new relevance and the priors other than 1, by key (shown on hits).
    """
    out = dict(relevance)
    applied: dict[K, float] = {}
    for key, value in relevance.items():
        p = priors.of(kinds.get(key, STATEMENT))
        if p != 1.0:
            out[key] = value * p
            applied[key] = p
    return out, applied


def is_talk(kind: TurnKind) -> bool:
    """True for the kinds that tell nothing: question, non-answer, greeting."""
    return kind != STATEMENT


__all__ = ["STATEMENT", "KindPriors", "apply_priors", "is_talk"]
