"""Helpers for the topic tests: a controllable clock and texts the hashing embedder separates."""

from __future__ import annotations

import random

#: Settings that leave only the topic tier on (the default preset also runs facts, profile and
#: episodes, whose jobs would mix with the topic jobs these tests count).
TOPICS_ONLY = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}

T0 = 1_700_000_000.0  # a fixed "now" for the tests' clock (2023-11-14)
DAY = 86_400.0


class Clock:
    """A clock the test moves by hand (epoch seconds)."""

    def __init__(self, start: float = T0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def subject(i: int, n_words: int = 6) -> str:
    """Words of a made-up subject ``i``: random letters, so two subjects share no n-grams."""
    rng = random.Random(i)
    letters = "bcdfghjklmnpqrstvwxz"
    return " ".join("".join(rng.choice(letters) for _ in range(9)) for _ in range(n_words))


def about(i: int, k: int) -> str:
    """The ``k``-th message about subject ``i``: the subject's words plus one new word."""
    return f"{subject(i)} {subject(10_000 + 97 * i + k, 1)}"
